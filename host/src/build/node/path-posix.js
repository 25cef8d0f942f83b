// `node:path/posix`: `node:path` itself, whose paths are POSIX ones.
export { basename, delimiter, dirname, extname, format, isAbsolute, join, matchesGlob, normalize, parse, posix, relative, resolve, sep, toNamespacedPath, win32 } from './path.js';
export { default } from './path.js';
