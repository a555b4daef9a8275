import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root: route entries, package-lock.json and tsconfig are resolved against it. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export const LOCK_FILE = join(REPO_ROOT, 'package-lock.json');
