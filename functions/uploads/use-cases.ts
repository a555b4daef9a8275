import type { Account } from '../core/accounts';
import { billingPeriodOf } from '../core/credits';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PaymentRequiredError,
  UnsupportedMediaTypeError,
} from '../core/errors';
import { newId } from '../core/ids';
import {
  CSV_UPLOAD_PREFIX,
  MAX_UPLOAD_FILES,
  type UploadColumn,
  type UploadedTable,
  uploadFullName,
} from '../core/uploads';
import { longestRunMs } from '../executions/config';
import { assertWithinCreditLimit } from '../executions/use-cases';
import { logger } from '../http/logger';
import type { Services } from '../services';
import { csvLines, inferCsvColumns, ndjsonLines, readCsv } from './rows';

/** What creating a table asks for (`POST /v1/uploads`). */
export interface NewUpload {
  namespace: string;
  tableName: string;
  description: string;
  isPrivate: boolean;
  columns: UploadColumn[];
}

/** Creating a table costs 1 credit, an insert 3 credits per GB written, at least 1 (Dune's prices). */
export const CREATE_CREDITS = 1;
export const CREDITS_PER_GB_WRITTEN = 3;
export const MINIMUM_WRITE_CREDITS = 1;

/**
 * Creates an empty table. Creating one that exists with the same columns answers it again
 * (`alreadyExisted`), so a script may create before every insert; other columns are a 409.
 */
export async function createUpload(
  services: Services,
  account: Account,
  spec: NewUpload,
  now = new Date(),
): Promise<{ table: UploadedTable; alreadyExisted: boolean }> {
  assertOwnNamespace(account, spec.namespace);
  const fullName = uploadFullName(spec.namespace, spec.tableName);
  const existing = await services.uploads.get(fullName);
  if (existing) {
    if (sameColumns(existing.columns, spec.columns)) return { table: existing, alreadyExisted: true };
    throw new ConflictError(
      `Table ${fullName} already exists with other columns (${describeColumns(existing.columns)}); delete it first or choose another name.`,
    );
  }
  await assertWithinCreditLimit(services, account, now);
  const at = now.toISOString();
  const table: UploadedTable = {
    fullName,
    namespace: spec.namespace,
    tableName: spec.tableName,
    accountId: account.accountId,
    description: spec.description,
    isPrivate: spec.isPrivate,
    columns: spec.columns,
    generation: newId(now.getTime()),
    files: [],
    rowCount: 0,
    sizeBytes: 0,
    createdAt: at,
    updatedAt: at,
  };
  await services.uploadFiles.createGeneration(table, table.generation);
  try {
    await services.uploads.create(table);
  } catch (error) {
    // Another request created the name meanwhile: its generation is not this one.
    await services.uploadFiles.dropGeneration(table).catch(() => undefined);
    throw error;
  }
  await services.usage.addCredits(account.accountId, billingPeriodOf(now), CREATE_CREDITS);
  return { table, alreadyExisted: false };
}

/** The media types an insert takes. */
export type UploadFormat = 'csv' | 'ndjson';

export function uploadFormatOf(contentType: string | undefined): UploadFormat {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/csv') return 'csv';
  if (type === 'application/x-ndjson' || type === 'application/ndjson' || type === 'application/jsonl') {
    return 'ndjson';
  }
  throw new UnsupportedMediaTypeError(
    `Content-Type ${contentType ? `"${contentType}"` : 'is missing'}: send the rows as text/csv (a header row naming the columns) or application/x-ndjson (one JSON object per line).`,
  );
}

/**
 * Appends rows, all or none: every value is checked before anything is written, and the rows become
 * part of the table in one conditional write (a clear or delete meanwhile makes this a 409).
 */
export async function insertRows(
  services: Services,
  account: Account,
  fullName: string,
  body: string,
  format: UploadFormat,
  now = new Date(),
): Promise<{ table: UploadedTable; rowsWritten: number; bytesWritten: number }> {
  const table = await ownedUpload(services, account, fullName);
  const lines =
    format === 'csv' ? await csvLines(body, table.columns) : await ndjsonLines(body, table.columns);
  return appendLines(services, account, table, lines, now);
}

async function appendLines(
  services: Services,
  account: Account,
  table: UploadedTable,
  lines: readonly string[],
  now: Date,
): Promise<{ table: UploadedTable; rowsWritten: number; bytesWritten: number }> {
  if (lines.length === 0) return { table, rowsWritten: 0, bytesWritten: 0 };
  if (table.files.length >= MAX_UPLOAD_FILES) {
    throw new ConflictError(
      `Table ${table.fullName} has taken ${MAX_UPLOAD_FILES} inserts since it was created or cleared; send fewer, larger inserts, or clear it and insert everything again.`,
    );
  }
  await assertWithinCreditLimit(services, account, now);
  await assertStorageLeft(
    services,
    account,
    lines.reduce((sum, line) => sum + line.length, 0),
  );
  const fileId = newId(now.getTime());
  const bytes = await services.uploadFiles.writeFile(table, fileId, lines);
  const file = { id: fileId, rows: lines.length, bytes };
  if (!(await services.uploads.addFile(table.fullName, table.generation, file, now.toISOString()))) {
    await services.uploadFiles.deleteFile(table, fileId).catch(() => undefined);
    throw new ConflictError(
      `Table ${table.fullName} was cleared or deleted while these rows were written; nothing was inserted. Send them again.`,
    );
  }
  await Promise.all([
    services.usage.addStorageBytes(account.accountId, bytes),
    services.usage.addCredits(account.accountId, billingPeriodOf(now), writeCredits(bytes)),
  ]);
  return { table, rowsWritten: lines.length, bytesWritten: bytes };
}

/** Removes every row and keeps the table and its columns. */
export async function clearUpload(services: Services, account: Account, fullName: string, now = new Date()) {
  const table = await ownedUpload(services, account, fullName);
  const generation = newId(now.getTime());
  await services.uploadFiles.createGeneration(table, generation);
  const cleared = await services.uploads.clear(fullName, table.generation, generation, now.toISOString());
  if (!cleared) {
    await services.uploadFiles.dropGeneration({ ...table, generation, files: [] }).catch(() => undefined);
    throw new ConflictError(`Table ${fullName} changed while it was being cleared; clear it again.`);
  }
  // The record as the switch left it: inserts that landed after it was read are released too.
  await releaseGeneration(services, cleared, now);
}

export async function deleteUpload(services: Services, account: Account, fullName: string, now = new Date()) {
  await ownedUpload(services, account, fullName);
  const deleted = await services.uploads.delete(fullName);
  if (deleted) await releaseGeneration(services, deleted, now);
}

/** The caller's tables, one page of them. */
export async function listUploads(
  services: Services,
  account: Account,
  page: { limit: number; offset: number },
): Promise<{ tables: UploadedTable[]; nextOffset?: number }> {
  const all = await services.uploads.listByAccount(account.accountId);
  const tables = all.slice(page.offset, page.offset + page.limit);
  const next = page.offset + tables.length;
  return { tables, ...(next < all.length ? { nextOffset: next } : {}) };
}

/**
 * `POST /v1/uploads/csv`: a table `dune.<handle>.dataset_<name>` made from one CSV, its columns
 * inferred; uploading to an existing name replaces that table (columns and rows), as on Dune.
 */
export async function uploadCsv(
  services: Services,
  account: Account,
  spec: { tableName: string; data: string; description: string; isPrivate: boolean },
  now = new Date(),
): Promise<{ table: UploadedTable; rowsWritten: number; bytesWritten: number }> {
  const csv = await readCsv(spec.data);
  const columns = inferCsvColumns(csv);
  const tableName = `${CSV_UPLOAD_PREFIX}${spec.tableName.replace(new RegExp(`^${CSV_UPLOAD_PREFIX}`), '')}`;
  const fullName = uploadFullName(account.handle, tableName);
  // Every value is checked against the inferred columns before the old table goes.
  const lines = await csvLines(csv, columns, 'normalized');
  const existing = await services.uploads.get(fullName);
  if (existing) await deleteUpload(services, account, fullName, now);
  const { table } = await createUpload(
    services,
    account,
    {
      namespace: account.handle,
      tableName,
      description: spec.description,
      isPrivate: spec.isPrivate,
      columns,
    },
    now,
  );
  return appendLines(services, account, table, lines, now);
}

/** The owner's table; another account's private one is 404 as if absent, a public one 403. */
async function ownedUpload(services: Services, account: Account, fullName: string): Promise<UploadedTable> {
  const table = await services.uploads.get(fullName);
  if (!table || (table.isPrivate && table.accountId !== account.accountId)) {
    throw new NotFoundError(
      `Table ${fullName} not found (never created, or deleted). Your tables: GET /v1/uploads; a new one: POST /v1/uploads.`,
    );
  }
  if (table.accountId !== account.accountId) {
    throw new ForbiddenError(`Table ${fullName} belongs to another account; only its owner can change it.`);
  }
  return table;
}

function assertOwnNamespace(account: Account, namespace: string) {
  if (namespace !== account.handle) {
    throw new ForbiddenError(
      `Namespace ${namespace} is not yours: create tables in your own namespace, "${account.handle}".`,
    );
  }
}

async function assertStorageLeft(services: Services, account: Account, incomingBytes: number) {
  const used = await services.usage.getStorageBytes(account.accountId);
  const allowed = services.config.storageBytesAllowed;
  if (used + incomingBytes > allowed) {
    throw new PaymentRequiredError(
      `This insert would exceed your storage quota: ${used} of ${allowed} bytes used. Clear or delete tables you no longer need, or delete old results.`,
    );
  }
}

/**
 * After a clear or delete the old generation's storage is released at once, but its files stay
 * until no run can still be reading them (dropRetiredUploadGenerations): a query that started
 * before the switch finishes on the rows it began with.
 */
async function releaseGeneration(services: Services, table: UploadedTable, now: Date) {
  await services.usage.addStorageBytes(table.accountId, -table.sizeBytes);
  await services.uploads.retire(table, now.toISOString());
}

/** How long a retired generation is kept: as long as a superseded view version (longestRunMs). */
export function retiredGenerationLifetimeMs(services: Services): number {
  return longestRunMs(services.config);
}

/**
 * Drops the retired generations no run can still read (retired longer ago than a run may take);
 * run by the sweep in AWS and on a timer by the local host. A generation that cannot be dropped
 * now is tried again next time. Returns how many were dropped.
 */
export async function dropRetiredUploadGenerations(services: Services, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - retiredGenerationLifetimeMs(services)).toISOString();
  let dropped = 0;
  for (const retired of await services.uploads.listRetired(before)) {
    try {
      await services.uploadFiles.dropGeneration(retired.table);
      await services.uploads.forgetRetired(retired);
      dropped++;
    } catch (error) {
      logger.warn('Could not remove a retired upload generation', {
        fullName: retired.table.fullName,
        error: error as Error,
      });
    }
  }
  return dropped;
}

function writeCredits(bytes: number): number {
  return Math.max(MINIMUM_WRITE_CREDITS, (bytes / 1e9) * CREDITS_PER_GB_WRITTEN);
}

function sameColumns(a: readonly UploadColumn[], b: readonly UploadColumn[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (column, i) =>
        column.name === b[i]!.name && column.type === b[i]!.type && column.nullable === b[i]!.nullable,
    )
  );
}

function describeColumns(columns: readonly UploadColumn[]): string {
  return columns.map((column) => `${column.name} ${column.type}`).join(', ');
}
