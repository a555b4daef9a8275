import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import {
  AlreadyExistsException,
  CreateTableCommand,
  DeleteTableCommand,
  EntityNotFoundException,
  type GlueClient,
} from '@aws-sdk/client-glue';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { versionTableName } from '../../core/stored-relations';
import type { UploadedTable, UploadFileStore } from '../../core/uploads';
import { textTableInput } from './view-versions';

const gzipAsync = promisify(gzip);

/** S3's DeleteObjects takes at most 1,000 keys a request (docs/aws.md). */
const DELETE_BATCH = 1000;

export interface GlueUploadTablesOptions {
  /** The stack's Glue database of stored versions (view versions and upload generations). */
  database: string;
  /** The data bucket. */
  bucket: string;
  /** Where versions' objects live; the query-run role's session policy names this prefix. */
  prefix?: string;
}

/**
 * Uploaded tables on Athena: each generation is one Glue table in the views database (named as a
 * view version is, so a run's IAM session policy admits it the same way: run-isolation.ts) over
 * the prefix `views/<table>/`, which holds one gzip JSON-lines object per insert. An object is
 * written whole by one PutObject, so a query sees an insert entirely or not at all.
 */
export class GlueUploadTables implements UploadFileStore {
  constructor(
    private readonly glue: GlueClient,
    private readonly s3: S3Client,
    private readonly options: GlueUploadTablesOptions,
  ) {}

  async createGeneration(table: UploadedTable, generation: string): Promise<void> {
    const name = versionTableName(table.fullName, generation);
    try {
      await this.glue.send(
        new CreateTableCommand({
          DatabaseName: this.options.database,
          TableInput: textTableInput({
            name,
            description: `Generation ${generation} of the uploaded table ${table.fullName}`,
            parameters: { uploaded_table: table.fullName, generation },
            columns: table.columns,
            location: `s3://${this.options.bucket}/${this.generationPrefix(name)}`,
          }),
        }),
      );
    } catch (error) {
      if (!(error instanceof AlreadyExistsException)) throw error;
    }
  }

  async writeFile(table: UploadedTable, fileId: string, lines: readonly string[]): Promise<number> {
    const body = await gzipAsync(lines.map((line) => `${line}\n`).join(''));
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: this.objectKey(table, table.generation, fileId),
        Body: body,
        ContentType: 'application/x-ndjson',
      }),
    );
    return body.length;
  }

  async deleteFile(table: UploadedTable, fileId: string): Promise<void> {
    await this.s3.send(
      new DeleteObjectCommand({
        Bucket: this.options.bucket,
        Key: this.objectKey(table, table.generation, fileId),
      }),
    );
  }

  /** The table first, so no table ever points at missing objects. */
  async dropGeneration(table: UploadedTable): Promise<void> {
    const name = versionTableName(table.fullName, table.generation);
    try {
      await this.glue.send(new DeleteTableCommand({ DatabaseName: this.options.database, Name: name }));
    } catch (error) {
      if (!(error instanceof EntityNotFoundException)) throw error;
    }
    const keys = table.files.map((file) => this.objectKey(table, table.generation, file.id));
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const { Errors } = await this.s3.send(
        new DeleteObjectsCommand({
          Bucket: this.options.bucket,
          Delete: { Objects: keys.slice(i, i + DELETE_BATCH).map((Key) => ({ Key })), Quiet: true },
        }),
      );
      if (Errors?.length) {
        throw new Error(
          `Could not delete ${Errors.length} objects of ${table.fullName}: ${Errors[0]?.Message}`,
        );
      }
    }
  }

  private generationPrefix(name: string): string {
    return `${this.options.prefix ?? 'views/'}${name}/`;
  }

  private objectKey(table: UploadedTable, generation: string, fileId: string): string {
    return `${this.generationPrefix(versionTableName(table.fullName, generation))}${fileId.toLowerCase()}.json.gz`;
  }
}
