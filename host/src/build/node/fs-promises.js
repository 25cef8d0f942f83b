// `node:fs/promises`: `fs.promises`.
import { promises } from './fs.js';

export const {
  stat, lstat, access, readFile, writeFile, appendFile, mkdir, readdir, unlink, rmdir, rm, rename, copyFile, realpath, mkdtemp,
  truncate,
} = promises;
export default promises;
