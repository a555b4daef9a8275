/**
 * The onchain data lake's Glue catalog, generated from the same table registry that builds the
 * local warehouse (functions/datasets/base-tables.ts): one database per schema, one external
 * Parquet table per base table, partitioned by its date column with Athena partition projection
 * (no crawler, no partition sync job). Shared by the stack and `npm run load-data -- --aws`.
 */
import type { ColumnDefinition, TableDefinition } from '../../core/catalog';
import { splitTopLevel } from '../../core/sql-types';
import type { TableSchema } from '../../dunesql';

/**
 * DuneSQL type names → Glue (Hive DDL) types. uint256/int256 become decimal(38,0), Athena's
 * widest exact integer: values past 38 digits (e.g. max uint256 approvals) do not fit.
 */
const SCALAR_TYPES: Record<string, string> = {
  varbinary: 'binary',
  uint256: 'decimal(38,0)',
  int256: 'decimal(38,0)',
  bigint: 'bigint',
  integer: 'int',
  smallint: 'smallint',
  tinyint: 'tinyint',
  double: 'double',
  real: 'float',
  boolean: 'boolean',
  varchar: 'string',
  timestamp: 'timestamp',
  date: 'date',
};

/**
 * The registry's current engine names (DuckDB's), read as the DuneSQL names they stand for, until
 * the registry itself speaks DuneSQL.
 */
const ENGINE_ALIASES: Record<string, string> = {
  uhugeint: 'uint256',
  hugeint: 'int256',
  blob: 'varbinary',
  ubigint: 'decimal(20,0)',
};

export function glueType(type: string): string {
  const text = type.trim();
  const lower = text.toLowerCase();
  if (lower.endsWith('[]')) return `array<${glueType(text.slice(0, -2))}>`;
  const call = /^(array|row|struct)\s*\(([\s\S]*)\)$/i.exec(text);
  if (call) {
    const kind = call[1]!.toLowerCase();
    const inner = call[2]!;
    if (kind === 'array') return `array<${glueType(inner)}>`;
    const fields = splitTopLevel(inner).map((field) => {
      const match = /^\s*(?:"((?:[^"]|"")+)"|([A-Za-z_][A-Za-z0-9_]*))\s+([\s\S]+)$/.exec(field);
      if (!match) throw new Error(`Cannot map field ${JSON.stringify(field)} of ${type} to a Glue type`);
      const name = (match[1] ?? match[2]!).replaceAll('""', '"').toLowerCase();
      return `${name}:${glueType(match[3]!)}`;
    });
    return `struct<${fields.join(',')}>`;
  }
  const decimal = /^decimal\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)$/.exec(lower);
  if (decimal) return `decimal(${decimal[1]},${decimal[2]})`;
  const name = ENGINE_ALIASES[lower] ?? lower;
  if (name !== lower) return glueType(name);
  const mapped = SCALAR_TYPES[name];
  if (!mapped) throw new Error(`No Glue type for column type ${JSON.stringify(type)}`);
  return mapped;
}

/** Earliest chain date (bitcoin's genesis block): projection only generates candidate paths. */
export const PROJECTION_START = '2009-01-03';

/** Glue lowercases names; Athena matches them case-insensitively. */
export const glueDatabaseName = (table: TableDefinition) => table.schema.toLowerCase();
export const glueTableName = (table: TableDefinition) => table.table.toLowerCase();

/**
 * The tables as Athena types their columns (Trino spelling; uint256/int256 are decimal(38,0)), for
 * the translation to type its output columns.
 */
export function athenaTableSchemas(tables: readonly TableDefinition[]): TableSchema[] {
  return tables.map((table) => ({
    schema: glueDatabaseName(table),
    name: glueTableName(table),
    columns: table.columns.map((column) => ({
      name: column.name.toLowerCase(),
      type: athenaColumnType(column.type),
    })),
  }));
}

/** A DuneSQL column type as Athena types it (Trino spelling): uint256 and int256 are decimal(38,0). */
export function athenaColumnType(type: string): string {
  return type.replace(/\b(?:uint256|int256)\b/gi, 'decimal(38,0)');
}

/** Where a table's Parquet files live: `<prefix><schema>/<table>/[<date column>=YYYY-MM-DD/]`. */
export function tablePrefix(table: TableDefinition, prefix = 'tables/'): string {
  return `${prefix}${glueDatabaseName(table)}/${glueTableName(table)}/`;
}

/** The table's date column (the partition key), when it has one. */
export function partitionKey(table: TableDefinition): ColumnDefinition | undefined {
  return table.columns.find((column) => glueTypeOrUndefined(column.type) === 'date');
}

function glueTypeOrUndefined(type: string): string | undefined {
  try {
    return glueType(type);
  } catch {
    return undefined;
  }
}

export interface GlueColumn {
  name: string;
  type: string;
  comment?: string;
}

/** A Glue TableInput (the shape CreateTable and AWS::Glue::Table take, camelCased for CDK). */
export interface GlueTableInput {
  name: string;
  description: string;
  tableType: 'EXTERNAL_TABLE';
  parameters: Record<string, string>;
  partitionKeys: GlueColumn[];
  storageDescriptor: {
    columns: GlueColumn[];
    location: string;
    inputFormat: string;
    outputFormat: string;
    serdeInfo: { serializationLibrary: string };
  };
}

export function glueTableInput(
  table: TableDefinition,
  dataBucket: string,
  prefix = 'tables/',
): GlueTableInput {
  const location = `s3://${dataBucket}/${tablePrefix(table, prefix)}`;
  const key = partitionKey(table);
  const column = (definition: ColumnDefinition): GlueColumn => ({
    name: definition.name.toLowerCase(),
    type: glueType(definition.type),
    comment: definition.description.slice(0, 255),
  });
  const parameters: Record<string, string> = { classification: 'parquet', EXTERNAL: 'TRUE' };
  if (key) {
    const name = key.name.toLowerCase();
    Object.assign(parameters, {
      'projection.enabled': 'true',
      [`projection.${name}.type`]: 'date',
      [`projection.${name}.format`]: 'yyyy-MM-dd',
      [`projection.${name}.range`]: `${PROJECTION_START},NOW`,
      [`projection.${name}.interval`]: '1',
      [`projection.${name}.interval.unit`]: 'DAYS',
      'storage.location.template': `${location}${name}=\${${name}}/`,
    });
  }
  return {
    name: glueTableName(table),
    description: table.description.slice(0, 2048),
    tableType: 'EXTERNAL_TABLE',
    parameters,
    partitionKeys: key ? [column(key)] : [],
    storageDescriptor: {
      columns: table.columns.filter((definition) => definition !== key).map(column),
      location,
      inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
      outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
      serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
    },
  };
}
