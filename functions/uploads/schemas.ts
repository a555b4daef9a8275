import { z } from 'zod';
import { MAX_UPLOAD_COLUMNS, UPLOAD_COLUMN_TYPES, UPLOAD_NAME, uploadFullName } from '../core/uploads';
import type { NewUpload } from './use-cases';

// The uploads operations (Dune's /v1/uploads). Each field's rules live here once.

const NAME_RULE = 'start with a letter, then lower-case letters, digits or underscores (at most 128)';

export const uploadNameSchema = (what: string) =>
  z.string().regex(UPLOAD_NAME, `${what} must ${NAME_RULE}, e.g. interest_rates`);

/** Column types are matched case-insensitively (Dune's examples write them in lower case). */
const columnTypeSchema = z
  .string()
  .transform((type) => type.trim().toLowerCase())
  .pipe(z.enum(UPLOAD_COLUMN_TYPES, { error: `type must be one of ${UPLOAD_COLUMN_TYPES.join(', ')}` }));

const columnSchema = z.strictObject({
  name: uploadNameSchema('a column name'),
  type: columnTypeSchema,
  nullable: z.boolean().default(true),
});

export const createUploadBody = z
  .strictObject({
    namespace: z
      .string()
      .min(1)
      .max(128)
      .describe('Your handle: the table is dune.<namespace>.<table_name>.'),
    table_name: uploadNameSchema('table_name'),
    description: z.string().max(10_000).default(''),
    is_private: z
      .boolean()
      .default(false)
      .describe("Public unless true (Dune's default): a public table is readable by every account's SQL."),
    schema: z
      .array(columnSchema)
      .min(1, 'schema needs at least one column')
      .max(MAX_UPLOAD_COLUMNS, `schema may have at most ${MAX_UPLOAD_COLUMNS} columns`)
      .refine(
        (columns) => new Set(columns.map((column) => column.name)).size === columns.length,
        'schema names a column twice',
      ),
  })
  .transform(
    (body): NewUpload => ({
      namespace: body.namespace,
      tableName: body.table_name,
      description: body.description,
      isPrivate: body.is_private,
      columns: body.schema,
    }),
  );

export const uploadCsvBody = z
  .strictObject({
    table_name: uploadNameSchema('table_name'),
    data: z.string().min(1, 'data must hold the CSV text: a header row, then the rows'),
    description: z.string().max(10_000).default(''),
    is_private: z
      .boolean()
      .default(false)
      .describe("Public unless true (Dune's default): a public table is readable by every account's SQL."),
  })
  .transform((body) => ({
    tableName: body.table_name,
    data: body.data,
    description: body.description,
    isPrivate: body.is_private,
  }));

export const uploadPath = z
  .strictObject({
    namespace: z.string().min(1).max(128),
    table_name: uploadNameSchema('table_name'),
  })
  .transform((path) => uploadFullName(path.namespace, path.table_name));

export const listUploadsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(10_000).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});
