import type { TableDefinition } from '../../core/catalog';
import { duckDbTypeOf } from '../../core/sql-types';
import { BASE_TABLES } from '../../datasets/base-tables';

/**
 * SQL building blocks for the generator. All pseudo-randomness comes from DuckDB's hash() of
 * (seed, salt, row id): the same inputs give the same value on any thread, unlike random().
 * hash() of several arguments correlates strongly across salts for the same id, so the combined
 * hash is hashed once more before use.
 */

/** Prefix of every temporary object the generator creates (dropped when it finishes). */
export const TEMP_PREFIX = '_sd_';

export const lit = (value: string): string => `'${value.replaceAll("'", "''")}'`;
export const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;
export const qualified = (definition: Pick<TableDefinition, 'schema' | 'table'>): string =>
  `${ident(definition.schema)}.${ident(definition.table)}`;

/** A SQL number literal; fractions are typed DOUBLE so they never become wide DECIMALs. */
export const num = (value: number): string => {
  if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  return Number.isInteger(value) ? String(value) : `(${String(value)})::DOUBLE`;
};

/** `(VALUES (...), (...)) AS alias(col, ...)` from rows of already-rendered SQL literals. */
export function valuesTable(
  alias: string,
  columns: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  if (rows.length === 0) throw new Error(`no rows for ${alias}`);
  const body = rows.map((row) => `(${row.join(', ')})`).join(',\n    ');
  return `(VALUES\n    ${body}\n  ) AS ${alias}(${columns.join(', ')})`;
}

export function macroStatements(seed: number): string[] {
  const s = String(seed);
  return [
    // 64-bit pseudo-random value for (salt, id).
    `CREATE OR REPLACE TEMP MACRO _sd_h(salt, id) AS hash(hash(${s}::BIGINT, salt, id))`,
    // Uniform in (0, 1), 53 bits.
    'CREATE OR REPLACE TEMP MACRO _sd_u(salt, id) AS ((_sd_h(salt, id) >> 11)::DOUBLE + 0.5) / 9007199254740992.0',
    // Standard normal (Box-Muller).
    `CREATE OR REPLACE TEMP MACRO _sd_n(salt, id) AS
       sqrt(-2.0 * ln(_sd_u(salt, id))) * cos(2.0 * pi() * _sd_u(salt || '~', id))`,
    // 20-byte address and 32-byte hash as 0x-prefixed lowercase hex.
    `CREATE OR REPLACE TEMP MACRO _sd_addr(salt, id) AS
       '0x' || printf('%016x%016x%08x', _sd_h(salt, id), _sd_h(salt || '.2', id), _sd_h(salt || '.3', id) >> 32)`,
    `CREATE OR REPLACE TEMP MACRO _sd_hex64(salt, id) AS
       printf('%016x%016x%016x%016x', _sd_h(salt, id), _sd_h(salt || '.2', id), _sd_h(salt || '.3', id),
              _sd_h(salt || '.4', id))`,
    `CREATE OR REPLACE TEMP MACRO _sd_hash32(salt, id) AS '0x' || _sd_hex64(salt, id)`,
    // One ABI word (32 bytes) of an integer, two's complement for negatives (int256).
    `CREATE OR REPLACE TEMP MACRO _sd_word(x) AS lpad(lower(to_hex(x)), 64, CASE WHEN x < 0 THEN 'f' ELSE '0' END)`,
    // One ABI word of an address, and the same as a log topic.
    `CREATE OR REPLACE TEMP MACRO _sd_aword(address) AS lpad(substr(address, 3), 64, '0')`,
    `CREATE OR REPLACE TEMP MACRO _sd_topic(address) AS '0x' || lpad(substr(address, 3), 64, '0')`,
    // An exact raw token amount (uint256) for `amount` whole tokens: the leading 15 significant digits
    // come from the (double) amount, the digits below them from the hash, so the integer itself is built
    // in integer arithmetic and keeps full precision at any magnitude. Never 0.
    `CREATE OR REPLACE TEMP MACRO _sd_raw_low(amount, decimals) AS
       greatest(0, decimals - 15 + ceil(log10(amount)))::INTEGER`,
    `CREATE OR REPLACE TEMP MACRO _sd_raw(amount, decimals, noise) AS
       greatest(
         CAST(floor(amount * pow(10, decimals - _sd_raw_low(amount, decimals))) AS UHUGEINT)
           * CAST(pow(10, _sd_raw_low(amount, decimals)) AS UHUGEINT)
           + noise::UHUGEINT % CAST(pow(10, _sd_raw_low(amount, decimals)) AS UHUGEINT),
         CASE WHEN amount IS NOT NULL THEN 1::UHUGEINT END)`,
    // Whole-token amount of a raw uint256 (what analysts compute as raw / 10^decimals).
    'CREATE OR REPLACE TEMP MACRO _sd_units(raw, decimals) AS CAST(raw AS DOUBLE) / pow(10, decimals)',
    // UTC activity cycle: busiest around 15:00 UTC (Europe + US overlap), quieter at weekends.
    `CREATE OR REPLACE TEMP MACRO _sd_activity(t) AS
       (1.0 + 0.45 * cos(2.0 * pi() * (hour(t) + minute(t) / 60.0 - 15.0) / 24.0))
       * CASE WHEN dayofweek(t) IN (0, 6) THEN 0.8 ELSE 1.0 END`,
  ];
}

export const DROP_MACROS = [
  '_sd_h',
  '_sd_u',
  '_sd_n',
  '_sd_addr',
  '_sd_hex64',
  '_sd_hash32',
  '_sd_word',
  '_sd_aword',
  '_sd_topic',
  '_sd_raw',
  '_sd_raw_low',
  '_sd_units',
  '_sd_activity',
];

/** CREATE OR REPLACE TABLE from a registry definition, so the data always matches the catalog. */
export function createTableStatement(definition: TableDefinition): string {
  const columns = definition.columns
    .map((column) => `  ${ident(column.name)} ${duckDbTypeOf(column.type)}`)
    .join(',\n');
  return `CREATE OR REPLACE TABLE ${qualified(definition)} (\n${columns}\n)`;
}

/**
 * `INSERT INTO <table> BY NAME` from a SELECT that spells the table's varbinary columns as `0x` hex
 * text. The generator builds addresses, hashes and ABI words with string functions (lpad, concat,
 * printf); they become bytes here, once, at the boundary to the stored table.
 */
export function insertFromHex(fullName: string, select: string): string {
  const definition = BASE_TABLES.find((candidate) => candidate.fullName === fullName);
  if (!definition) throw new Error(`no base table ${fullName}`);
  const binary = definition.columns
    .filter((column) => column.type === 'varbinary')
    .map((column) => `from_hex(substr(${ident(column.name)}, 3)) AS ${ident(column.name)}`);
  const projection = binary.length > 0 ? `* REPLACE (${binary.join(', ')})` : '*';
  return `INSERT INTO ${qualified(definition)} BY NAME SELECT ${projection} FROM (\n${select}\n)`;
}
