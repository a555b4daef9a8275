import { z } from 'zod';
import type { UploadedTable } from '../core/uploads';

// REST answers, with Dune's field names (docs.dune.com, api-reference/tables).

export const createdUploadResponse = z.object({
  namespace: z.string(),
  table_name: z.string(),
  full_name: z.string().describe('The name SQL reads it by: dune.<namespace>.<table_name>.'),
  example_query: z.string(),
  already_existed: z
    .boolean()
    .describe('True when a table of that name and the same columns was there already.'),
  message: z.string(),
});

export function createdUploadResponseOf(
  table: UploadedTable,
  alreadyExisted: boolean,
): z.output<typeof createdUploadResponse> {
  return {
    namespace: table.namespace,
    table_name: table.tableName,
    full_name: table.fullName,
    example_query: `select * from ${table.fullName} limit 10`,
    already_existed: alreadyExisted,
    message: alreadyExisted ? 'Table already exists' : 'Table created successfully',
  };
}

export const insertedRowsResponse = z.object({
  rows_written: z.number().int(),
  bytes_written: z.number().int().describe('Bytes stored (compressed).'),
  name: z.string().describe('The full name of the table.'),
});

export function insertedRowsResponseOf(
  table: UploadedTable,
  written: { rowsWritten: number; bytesWritten: number },
): z.output<typeof insertedRowsResponse> {
  return { rows_written: written.rowsWritten, bytes_written: written.bytesWritten, name: table.fullName };
}

export const csvUploadResponse = z.object({
  success: z.boolean(),
  table_name: z.string(),
  full_name: z.string(),
  rows_written: z.number().int(),
  columns: z.array(z.object({ name: z.string(), type: z.string(), nullable: z.boolean() })),
});

export function csvUploadResponseOf(
  table: UploadedTable,
  written: { rowsWritten: number },
): z.output<typeof csvUploadResponse> {
  return {
    success: true,
    table_name: table.tableName,
    full_name: table.fullName,
    rows_written: written.rowsWritten,
    columns: table.columns,
  };
}

export const messageResponse = z.object({ message: z.string() });

const uploadedTableResponse = z.object({
  full_name: z.string(),
  is_private: z.boolean(),
  table_size_bytes: z.string().describe('Bytes stored, as a decimal string (as Dune writes it).'),
  row_count: z.number().int(),
  description: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  purged_at: z.string().nullable(),
  owner: z.object({ handle: z.string(), type: z.string() }),
  columns: z.array(z.object({ name: z.string(), type: z.string(), nullable: z.boolean() })),
});

export const uploadListResponse = z.object({
  tables: z.array(uploadedTableResponse),
  next_offset: z.number().int().optional(),
});

export function uploadListResponseOf(page: {
  tables: UploadedTable[];
  nextOffset?: number;
}): z.output<typeof uploadListResponse> {
  return {
    tables: page.tables.map((table) => ({
      full_name: table.fullName,
      is_private: table.isPrivate,
      table_size_bytes: String(table.sizeBytes),
      row_count: table.rowCount,
      description: table.description,
      created_at: table.createdAt,
      updated_at: table.updatedAt,
      purged_at: null,
      owner: { handle: table.namespace, type: 'user' },
      columns: table.columns,
    })),
    ...(page.nextOffset !== undefined ? { next_offset: page.nextOffset } : {}),
  };
}
