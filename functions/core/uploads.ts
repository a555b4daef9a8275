/**
 * Uploaded tables (Dune's uploads API): tables an account fills itself, by CSV or NDJSON, that SQL
 * reads as `dune.<namespace>.<table>`. A table's rows are data files of text values, one per insert;
 * clearing it starts a new generation of files, so a run that resolved the old one still reads it.
 */

/** The catalog (first part) of every uploaded table's full name: `dune.<namespace>.<table>`. */
export const UPLOAD_CATALOG = 'dune';

/** The column types an uploaded table may declare (Dune's list). */
export const UPLOAD_COLUMN_TYPES = [
  'varchar',
  'varbinary',
  'uint256',
  'int256',
  'bigint',
  'integer',
  'double',
  'boolean',
  'timestamp',
  'date',
] as const;
export type UploadColumnType = (typeof UPLOAD_COLUMN_TYPES)[number];

/**
 * Table and column names: a letter first, then lower-case letters, digits and underscores (Dune:
 * "can't start with a special character or a digit"; lower case, as the engines fold names).
 */
export const UPLOAD_NAME = /^[a-z][a-z0-9_]{0,127}$/;

/** The table name a CSV upload (`POST /v1/uploads/csv`) gets, as on Dune: `dataset_<name>`. */
export const CSV_UPLOAD_PREFIX = 'dataset_';

/** At most this many columns: a DynamoDB item holds the schema, and an agent must read it. */
export const MAX_UPLOAD_COLUMNS = 200;

/**
 * Inserts a generation keeps apart before a clear: each insert is one file in the table's record
 * (DynamoDB items hold at most 400 KB).
 */
export const MAX_UPLOAD_FILES = 2000;

/**
 * Integers up to 38 digits: uint256 and int256 values are stored where both engines read them
 * exactly (Athena's decimal(38,0), DuckDB's HUGEINT and UHUGEINT).
 */
export const MAX_INTEGER_DIGITS = 38;

export interface UploadColumn {
  name: string;
  type: UploadColumnType;
  nullable: boolean;
}

/** One insert's data file: the rows it added. */
export interface UploadedFile {
  id: string;
  rows: number;
  bytes: number;
}

export interface UploadedTable {
  /** `dune.<namespace>.<table>` */
  fullName: string;
  namespace: string;
  tableName: string;
  accountId: string;
  description: string;
  isPrivate: boolean;
  columns: UploadColumn[];
  /** The files readers see live under this generation; a clear starts a new one. */
  generation: string;
  files: UploadedFile[];
  rowCount: number;
  sizeBytes: number;
  createdAt: string;
  updatedAt: string;
}

export function uploadFullName(namespace: string, tableName: string): string {
  return `${UPLOAD_CATALOG}.${namespace}.${tableName}`;
}

export interface UploadStore {
  get(fullName: string): Promise<UploadedTable | undefined>;
  /** Creates the table; ConflictError when the name exists. */
  create(table: UploadedTable): Promise<void>;
  /**
   * Adds one insert's file to the table's current generation, in one conditional write; false when
   * the table was cleared or deleted meanwhile (the file is then not part of it).
   */
  addFile(fullName: string, generation: string, file: UploadedFile, updatedAt: string): Promise<boolean>;
  /**
   * Starts an empty generation; answers the record as it was just before (its files are the old
   * generation's, inserts that landed meanwhile included), or undefined when the table is gone or
   * was cleared meanwhile.
   */
  clear(fullName: string, from: string, to: string, updatedAt: string): Promise<UploadedTable | undefined>;
  /** Deletes the record; answers it as it was, or undefined when there was none. */
  delete(fullName: string): Promise<UploadedTable | undefined>;
  listByAccount(accountId: string): Promise<UploadedTable[]>;
  /** Every table an account may read: its own and other accounts' public ones. */
  listReadableBy(accountId: string): Promise<UploadedTable[]>;
  /**
   * Keeps a generation a clear or delete replaced (the record as the switch left it) until
   * `dropRetiredUploadGenerations` drops it: a run that started reading it may still be running.
   */
  retire(table: UploadedTable, retiredAt: string): Promise<void>;
  /** The retired generations retired before `before` (an ISO timestamp), oldest first. */
  listRetired(before: string): Promise<RetiredGeneration[]>;
  /** Forgets a retired generation once its files are gone. */
  forgetRetired(retired: RetiredGeneration): Promise<void>;
}

/** A generation no longer current, kept for the runs that may still read it. */
export interface RetiredGeneration {
  table: UploadedTable;
  retiredAt: string;
}

/**
 * Where uploaded rows are kept (a host adapter): gzip JSON lines, `{"c0": "…", "c1": null}`, one
 * text value per column in column order, the engines casting each back to its type. A generation's
 * files share one location, which Athena reads through one Glue table.
 */
export interface UploadFileStore {
  /** Makes an (empty) generation readable; idempotent. */
  createGeneration(table: UploadedTable, generation: string): Promise<void>;
  /** Writes one insert's rows as one file; returns its size in bytes. */
  writeFile(table: UploadedTable, fileId: string, lines: readonly string[]): Promise<number>;
  /** Removes one file that never became part of the table (its insert lost a race). */
  deleteFile(table: UploadedTable, fileId: string): Promise<void>;
  /** Removes the table's current generation (as the record read lists it): its files, and what reads them. */
  dropGeneration(table: UploadedTable): Promise<void>;
}
