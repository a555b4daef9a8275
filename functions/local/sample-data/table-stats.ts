import type { DuckDBConnection } from '@duckdb/node-api';
import type { TableDefinition, TableStats } from '../../core/catalog';
import { ident, lit, qualified } from './sql';

/** Most distinct emitting contracts reported for a decoded table. */
export const MAX_CONTRACT_ADDRESSES = 1000;

const FIXED_WIDTHS: Record<string, number> = {
  BOOLEAN: 1,
  TINYINT: 1,
  UTINYINT: 1,
  SMALLINT: 2,
  USMALLINT: 2,
  INTEGER: 4,
  UINTEGER: 4,
  FLOAT: 4,
  DATE: 4,
  BIGINT: 8,
  UBIGINT: 8,
  DOUBLE: 8,
  TIME: 8,
  TIMESTAMP: 8,
  'TIMESTAMP WITH TIME ZONE': 8,
  TIMESTAMP_S: 8,
  TIMESTAMP_MS: 8,
  TIMESTAMP_NS: 8,
  HUGEINT: 16,
  UHUGEINT: 16,
  UUID: 16,
  INTERVAL: 16,
};

/** Bytes per value of a fixed-width type, or undefined for variable-width ones. */
export function fixedWidth(type: string): number | undefined {
  const decimal = /^DECIMAL\((\d+),\s*\d+\)$/.exec(type);
  if (decimal) {
    const precision = Number(decimal[1]);
    return precision <= 4 ? 2 : precision <= 9 ? 4 : precision <= 18 ? 8 : 16;
  }
  return FIXED_WIDTHS[type];
}

/** SQL summing the scanned bytes of a variable-width column. */
function variableWidthSql(name: string, type: string): string {
  if (type === 'VARCHAR') return `coalesce(sum(strlen(${ident(name)})), 0)`;
  if (type === 'BLOB') return `coalesce(sum(octet_length(${ident(name)})), 0)`;
  // Nested and other types: the length of their text form is a fair proxy for their decoded size.
  return `coalesce(sum(strlen(CAST(${ident(name)} AS VARCHAR))), 0)`;
}

const TIME_TYPES = new Set(['DATE', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', 'TIMESTAMP_S', 'TIMESTAMP_MS']);

/**
 * Measures row counts, estimated full-scan bytes (uncompressed: fixed width x rows for fixed-width
 * types, summed lengths for strings), the partition column's time range and, for decoded tables,
 * the contracts that emitted the rows. One aggregate query per table (plus one for contracts).
 */
export async function measureTableStats(
  connection: DuckDBConnection,
  definitions: readonly TableDefinition[],
): Promise<TableStats[]> {
  const refreshedAt = new Date().toISOString();
  const stats: TableStats[] = [];
  for (const definition of definitions) {
    const columnsResult = await connection.runAndReadAll(
      `SELECT column_name, data_type FROM information_schema.columns
       WHERE table_schema = ${lit(definition.schema)} AND table_name = ${lit(definition.table)}
       ORDER BY ordinal_position`,
    );
    const columns = columnsResult
      .getRows()
      .map(([name, type]) => ({ name: String(name), type: String(type) }));
    if (columns.length === 0) throw new Error(`table ${definition.fullName} does not exist`);

    const partition = columns.find((column) => column.name === definition.partitionColumn);
    const hasTimeRange = partition !== undefined && TIME_TYPES.has(partition.type);
    const selects = ['count(*) AS row_count'];
    const variable = columns.filter((column) => fixedWidth(column.type) === undefined);
    variable.forEach((column, index) => {
      selects.push(`${variableWidthSql(column.name, column.type)}::BIGINT AS v${index}`);
    });
    if (hasTimeRange) {
      const col = ident(definition.partitionColumn);
      selects.push(`epoch_ms(min(${col})::TIMESTAMP) AS t_min`, `epoch_ms(max(${col})::TIMESTAMP) AS t_max`);
    }
    const reader = await connection.runAndReadAll(
      `SELECT ${selects.join(', ')} FROM ${qualified(definition)}`,
    );
    const row = reader.getRowObjects()[0] ?? {};
    const rowCount = Number(row.row_count ?? 0);

    const columnBytes: Record<string, number> = {};
    for (const column of columns) {
      const width = fixedWidth(column.type);
      columnBytes[column.name] =
        width !== undefined ? width * rowCount : Number(row[`v${variable.indexOf(column)}`] ?? 0);
    }
    const sizeBytes = Object.values(columnBytes).reduce((sum, bytes) => sum + bytes, 0);

    const entry: TableStats = {
      fullName: definition.fullName,
      rowCount,
      sizeBytes,
      columnBytes,
      refreshedAt,
    };
    if (hasTimeRange && row.t_min !== null && row.t_min !== undefined && row.t_max !== null) {
      entry.timeRange = {
        min: new Date(Number(row.t_min)).toISOString(),
        max: new Date(Number(row.t_max)).toISOString(),
      };
    }
    if (definition.category === 'decoded' && columns.some((column) => column.name === 'contract_address')) {
      // Reported as the lowercase 0x hex users search with (varbinary sorts like its hex).
      const address = ident('contract_address');
      const hex =
        columns.find((column) => column.name === 'contract_address')?.type === 'BLOB'
          ? `'0x' || lower(hex(${address}))`
          : address;
      const contracts = await connection.runAndReadAll(
        `SELECT ${hex} FROM (SELECT DISTINCT ${address} FROM ${qualified(definition)} WHERE ${address} IS NOT NULL
         ORDER BY ${address} LIMIT ${MAX_CONTRACT_ADDRESSES})`,
      );
      entry.contractAddresses = contracts.getRows().map(([address]) => String(address));
    }
    stats.push(entry);
  }
  return stats;
}
