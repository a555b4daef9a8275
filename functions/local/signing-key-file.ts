import { readFile, rename, writeFile } from 'node:fs/promises';
import type { SigningKeySet, SigningKeyStore } from '../oauth/signing-keys';

/** The local host's signing keys: a JSON file under the data dir, readable by its owner only. */
export class FileSigningKeyStore implements SigningKeyStore {
  constructor(private readonly path: string) {}

  async load(): Promise<SigningKeySet | undefined> {
    try {
      return JSON.parse(await readFile(this.path, 'utf8')) as SigningKeySet;
    } catch {
      return undefined;
    }
  }

  async save(set: SigningKeySet): Promise<void> {
    const temporary = `${this.path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(set, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, this.path);
  }
}
