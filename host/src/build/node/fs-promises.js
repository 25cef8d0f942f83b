// `node:fs/promises`: `fs.promises` (fs.js), with FileHandle.
import { promises } from './fs.js';

export const {
  access, appendFile, chmod, chown, constants, copyFile, cp, glob, lchmod, lchown, link, lstat, lutimes, mkdir, mkdtemp, open,
  opendir, readFile, readdir, readlink, realpath, rename, rm, rmdir, stat, statfs, symlink, truncate, unlink, utimes, watch,
  writeFile, FileHandle,
} = promises;
export default promises;
