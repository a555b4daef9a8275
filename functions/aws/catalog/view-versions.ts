import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import {
  AlreadyExistsException,
  CreateTableCommand,
  DeleteTableCommand,
  EntityNotFoundException,
  type GlueClient,
  paginateGetTables,
  type Table,
} from '@aws-sdk/client-glue';
import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { ResultColumn } from '../../core/engine';
import type { ViewVersionCatalog } from '../../core/materialized-views';
import { versionTableName, versionTablePrefix } from '../../core/stored-relations';
import type { CsvRecord } from '../results/athena-csv';

/** Where the rows of stored results come from (S3ResultStore.records). */
export interface StoredRows {
  records(executionId: string): AsyncIterable<CsvRecord[]>;
}

export interface GlueViewVersionsOptions {
  /** The stack's Glue database of view versions. */
  database: string;
  /** The data bucket (no lifecycle: a version lives as long as its view needs it). */
  bucket: string;
  prefix?: string;
  /**
   * How long a superseded version stays readable: the longest a run that resolved it may still
   * last (the largest tier's time limit, plus a margin for the last status poll).
   */
  retireAfterMs: number;
}

/** The one object of a version: gzip JSON lines, which Athena reads by the `.gz` extension. */
const ROWS_OBJECT = 'rows.json.gz';

/** A view version's Glue table (core/stored-relations.ts). */
export const viewVersionTable = versionTableName;
/** What every version table of a view starts with. */
export const viewTablePrefix = versionTablePrefix;

/**
 * View versions on Athena: a refresh's CSV result is rewritten once into the data bucket as gzip
 * JSON lines (`{"c0": "…", "c1": null}`: one text field per column, NULL kept apart from '' and
 * line breaks escaped, which Athena's CSV SerDes cannot read back), under its own prefix, with one
 * Glue table per version over it (Hive JSON SerDe, every column `string`). The Athena translation
 * reads `mv.<owner>.result_<name>` through that table and casts each column back to its type
 * (functions/dunesql, `TextStoredRelation`). See docs/aws.md, "Materialized views on Athena".
 */
export class GlueViewVersions implements ViewVersionCatalog {
  constructor(
    private readonly glue: GlueClient,
    private readonly s3: S3Client,
    private readonly rows: StoredRows,
    private readonly options: GlueViewVersionsOptions,
  ) {}

  async prepare(fullName: string, version: { executionId: string; columns: ResultColumn[] }) {
    const table = viewVersionTable(fullName, version.executionId);
    await this.writeRows(version.executionId, this.objectKey(table));
    try {
      await this.glue.send(
        new CreateTableCommand({
          DatabaseName: this.options.database,
          TableInput: this.tableInput(table, fullName, version),
        }),
      );
    } catch (error) {
      // A retried completion prepares the same version again: the table is already there.
      if (!(error instanceof AlreadyExistsException)) throw error;
    }
  }

  async retire(fullName: string, currentExecutionId: string | undefined, now = new Date()) {
    const current = currentExecutionId && viewVersionTable(fullName, currentExecutionId);
    const versions = (await this.versions(fullName)).sort((a, b) => a.Name!.localeCompare(b.Name!));
    const stale: string[] = [];
    versions.forEach((version, i) => {
      if (version.Name === current) return;
      // Execution ids sort by time: an older version stopped being current when a newer one was
      // published, just after that one's table was created; a newer one that never became
      // current (its refresh lost the race or was cancelled) is judged by its own creation.
      const older = current !== undefined && version.Name! < current;
      const since = older ? versions[i + 1]?.CreateTime : version.CreateTime;
      if (since && now.getTime() - since.getTime() > this.options.retireAfterMs) stale.push(version.Name!);
    });
    for (const table of stale) await this.dropVersion(table);
  }

  async drop(fullName: string) {
    for (const version of await this.versions(fullName)) await this.dropVersion(version.Name!);
  }

  /**
   * Streams the result's rows through gzip into one upload (multipart past 5 MiB: bounded memory).
   * A failure destroys the stream with the error, so the upload fails, aborts its multipart upload
   * and only then rejects: nothing is left half-written (`Upload.abort()` would reject at once and
   * abort in the background, which a frozen Lambda may never finish).
   */
  private async writeRows(executionId: string, key: string): Promise<void> {
    const gzip = createGzip();
    const upload = new Upload({
      client: this.s3,
      params: { Bucket: this.options.bucket, Key: key, Body: gzip, ContentType: 'application/x-ndjson' },
    });
    const uploaded = upload.done();
    // Surfaces an upload failure while rows are still being written, instead of a stuck drain.
    const failed = uploaded.then(
      () => new Promise<never>(() => {}),
      (error) => Promise.reject(error),
    );
    failed.catch(() => undefined); // awaited below when it matters; never an unhandled rejection
    try {
      for await (const batch of this.rows.records(executionId)) {
        if (!gzip.write(batch.map(jsonLine).join(''))) await Promise.race([once(gzip, 'drain'), failed]);
      }
      gzip.end();
    } catch (error) {
      gzip.destroy(error as Error);
      await uploaded.catch(() => undefined);
      throw error;
    }
    await uploaded;
  }

  private tableInput(
    table: string,
    fullName: string,
    version: { executionId: string; columns: ResultColumn[] },
  ) {
    return textTableInput({
      name: table,
      description: `Version ${version.executionId} of ${fullName}`,
      parameters: { materialized_view: fullName, execution_id: version.executionId },
      columns: version.columns,
      location: `s3://${this.options.bucket}/${this.objectKey(table).replace(ROWS_OBJECT, '')}`,
    });
  }

  private async versions(fullName: string): Promise<Table[]> {
    const tables: Table[] = [];
    const pages = paginateGetTables(
      { client: this.glue },
      { DatabaseName: this.options.database, Expression: `${viewTablePrefix(fullName)}.*` },
    );
    for await (const page of pages) tables.push(...(page.TableList ?? []));
    return tables;
  }

  /** The table first, so no table ever points at missing rows. */
  private async dropVersion(table: string): Promise<void> {
    try {
      await this.glue.send(new DeleteTableCommand({ DatabaseName: this.options.database, Name: table }));
    } catch (error) {
      if (!(error instanceof EntityNotFoundException)) throw error;
    }
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(table) }));
  }

  private objectKey(table: string): string {
    return `${this.options.prefix ?? 'views/'}${table}/${ROWS_OBJECT}`;
  }
}

/** One row as a JSON object line: `c<i>` → the value's text, or null. */
function jsonLine(record: CsvRecord): string {
  let line = '{';
  for (let i = 0; i < record.length; i++) {
    const value = record[i];
    line += `${i > 0 ? ',' : ''}"c${i}":${value === null || value === undefined ? 'null' : JSON.stringify(value)}`;
  }
  return `${line}}\n`;
}

/**
 * A Glue table over gzip JSON lines of text values (`c0`, `c1`, … in column order, Hive JSON SerDe,
 * every column `string`): how Athena reads stored versions (view refreshes, upload generations),
 * the translation casting each column back to its type.
 */
export function textTableInput(table: {
  name: string;
  description: string;
  parameters: Record<string, string>;
  columns: readonly { name: string; type: string }[];
  location: string;
}) {
  return {
    Name: table.name,
    TableType: 'EXTERNAL_TABLE',
    Description: table.description,
    Parameters: { classification: 'json', compressionType: 'gzip', ...table.parameters },
    StorageDescriptor: {
      Columns: table.columns.map((column, i) => ({
        Name: `c${i}`,
        Type: 'string',
        Comment: `${column.name} ${column.type}`.slice(0, 255),
      })),
      Location: table.location,
      InputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
      OutputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
      SerdeInfo: { SerializationLibrary: 'org.apache.hive.hcatalog.data.JsonSerDe' },
    },
  };
}
