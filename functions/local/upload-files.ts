import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { UploadedTable, UploadFileStore } from '../core/uploads';
import { uploadFilePath, uploadGenerationDirectory } from './engine/result-files';

const gzipAsync = promisify(gzip);

/**
 * Uploaded rows on the local host: one gzip JSON-lines file per insert under
 * `<resultsDir>/uploads/<generation>/`, which the engine reads by the paths the table's record lists
 * (functions/local/engine/relations.ts). Written to a temporary name and renamed into place.
 */
export class LocalUploadFiles implements UploadFileStore {
  constructor(private readonly resultsDir: string) {}

  async createGeneration(table: UploadedTable, generation: string): Promise<void> {
    await mkdir(uploadGenerationDirectory(this.resultsDir, table.fullName, generation), { recursive: true });
  }

  async writeFile(table: UploadedTable, fileId: string, lines: readonly string[]): Promise<number> {
    const path = uploadFilePath(this.resultsDir, table.fullName, table.generation, fileId);
    const body = await gzipAsync(lines.map((line) => `${line}\n`).join(''));
    await mkdir(uploadGenerationDirectory(this.resultsDir, table.fullName, table.generation), {
      recursive: true,
    });
    await writeFile(`${path}.partial`, body);
    await rename(`${path}.partial`, path);
    return body.length;
  }

  async deleteFile(table: UploadedTable, fileId: string): Promise<void> {
    await rm(uploadFilePath(this.resultsDir, table.fullName, table.generation, fileId), { force: true });
  }

  async dropGeneration(table: UploadedTable): Promise<void> {
    const directory = uploadGenerationDirectory(this.resultsDir, table.fullName, table.generation);
    await rm(directory, { recursive: true, force: true });
  }
}
