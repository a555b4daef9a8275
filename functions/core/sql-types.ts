/**
 * Column types as users see them: DuneSQL (Trino) type names, the same on both hosts. The table
 * registry states every column in these names; each host maps them to its engine's own types here
 * and nowhere else (DuckDB for the local warehouse; Glue/Athena in AWS).
 *
 * Names are Trino's lowercase spelling: `varchar`, `varbinary`, `uint256`, `int256`, `bigint`,
 * `integer`, `double`, `boolean`, `timestamp`, `date`, `decimal(p,s)`, `array(T)`,
 * `row(name T, ...)`, `map(K, V)`.
 */

/** Scalar DuneSQL types and the DuckDB type that stores each in the local warehouse. */
const DUCKDB_SCALARS: Readonly<Record<string, string>> = {
  varchar: 'VARCHAR',
  varbinary: 'BLOB',
  // DuckDB's widest integers are 128-bit: uint256/int256 values at or above 2^128 (2^127 signed) are
  // not representable locally. Token amounts stay far below; unlimited approvals (2^256-1) only
  // appear inside raw calldata and log data.
  uint256: 'UHUGEINT',
  int256: 'HUGEINT',
  bigint: 'BIGINT',
  integer: 'INTEGER',
  smallint: 'SMALLINT',
  tinyint: 'TINYINT',
  double: 'DOUBLE',
  real: 'FLOAT',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMP',
  'timestamp with time zone': 'TIMESTAMP WITH TIME ZONE',
  date: 'DATE',
  uuid: 'UUID',
  json: 'JSON',
};

/** The DuckDB type that stores a DuneSQL column type locally; throws on a name it does not know. */
export function duckDbTypeOf(duneType: string): string {
  const type = duneType.trim();
  const call = /^(array|map|row|decimal)\s*\((.*)\)$/is.exec(type);
  if (call) {
    const [, kind, body] = call as unknown as [string, string, string];
    const parts = splitTopLevel(body);
    switch (kind.toLowerCase()) {
      case 'array':
        return `${duckDbTypeOf(body)}[]`;
      case 'map':
        if (parts.length !== 2) break;
        return `MAP(${duckDbTypeOf(parts[0]!)}, ${duckDbTypeOf(parts[1]!)})`;
      case 'row':
        return `STRUCT(${parts.map(rowField).join(', ')})`;
      case 'decimal':
        if (parts.length === 2 && parts.every((part) => /^\d+$/.test(part)))
          return `DECIMAL(${parts.join(',')})`;
    }
    throw new Error(`Unknown DuneSQL type: ${duneType}`);
  }
  const scalar = DUCKDB_SCALARS[type.toLowerCase().replace(/^timestamp\(\d\)/, 'timestamp')];
  if (!scalar) throw new Error(`Unknown DuneSQL type: ${duneType}`);
  return scalar;
}

function rowField(field: string): string {
  const match = /^("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_]*)\s+(.+)$/s.exec(field);
  if (!match) throw new Error(`Unknown DuneSQL row field: ${field}`);
  const name = match[1]!.startsWith('"') ? match[1]!.slice(1, -1).replaceAll('""', '"') : match[1]!;
  return `"${name.replaceAll('"', '""')}" ${duckDbTypeOf(match[2]!)}`;
}

/**
 * Result column types the local engine's own cannot tell, named by the translation
 * (dunesql/output-types.ts): a year-to-month interval (DuckDB has one interval type), and a
 * timestamp holding a zone's wall-clock time (`x AT TIME ZONE 'Asia/Tokyo'`), shown with that zone
 * as Trino shows a `timestamp with time zone`.
 */
export const YEAR_MONTH_INTERVAL = 'INTERVAL YEAR TO MONTH';
const ZONED_TIMESTAMP = /^TIMESTAMP AT TIME ZONE (\S+)$/;

export function zonedTimestampType(zone: string): string {
  return `TIMESTAMP AT TIME ZONE ${zone}`;
}

/** The zone of a zoned timestamp column's engine type; undefined for any other type. */
export function timestampZone(engineType: string): string | undefined {
  return ZONED_TIMESTAMP.exec(engineType)?.[1];
}

/** Engine types of interval columns (the local results store them as the text Trino writes). */
export function isIntervalType(engineType: string): boolean {
  return engineType === 'INTERVAL' || engineType === YEAR_MONTH_INTERVAL;
}

/** DuckDB type names (as DuckDB prints them) and the DuneSQL/Trino name users see. */
const DUNE_SCALARS: Readonly<Record<string, string>> = {
  VARCHAR: 'varchar',
  BLOB: 'varbinary',
  UHUGEINT: 'uint256',
  HUGEINT: 'int256',
  BIGINT: 'bigint',
  INTEGER: 'integer',
  SMALLINT: 'smallint',
  TINYINT: 'tinyint',
  // Trino has no unsigned types; these are the narrowest signed types that hold every value.
  UTINYINT: 'smallint',
  USMALLINT: 'integer',
  UINTEGER: 'bigint',
  UBIGINT: 'decimal(20,0)',
  DOUBLE: 'double',
  FLOAT: 'real',
  BOOLEAN: 'boolean',
  // Results render timestamps to the millisecond, as Trino's (and Dune's) timestamp(3) does.
  TIMESTAMP: 'timestamp(3)',
  TIMESTAMP_MS: 'timestamp(3)',
  TIMESTAMP_S: 'timestamp(0)',
  TIMESTAMP_NS: 'timestamp(9)',
  'TIMESTAMP WITH TIME ZONE': 'timestamp(3) with time zone',
  DATE: 'date',
  TIME: 'time(6)',
  'TIME WITH TIME ZONE': 'time(6) with time zone',
  INTERVAL: 'interval day to second',
  [YEAR_MONTH_INTERVAL]: 'interval year to month',
  UUID: 'uuid',
  JSON: 'json',
  BIT: 'varbinary',
  NULL: 'unknown',
  '"NULL"': 'unknown',
};

/**
 * The DuneSQL (Trino) name of a result column's engine type, for `column_types` and catalog
 * entries built from results. DuckDB's spelling (upper case: `UHUGEINT`, `STRUCT(...)[]`) is
 * translated; a name already in Trino's lower-case spelling (what Athena reports) passes through.
 */
export function duneSqlTypeName(engineType: string): string {
  const type = engineType.trim();
  if (!/[A-Z]/.test(type.replace(/"(?:[^"]|"")*"/g, ''))) return type;
  const list = /^(.*)\[\d*\]$/s.exec(type);
  if (list) return `array(${duneSqlTypeName(list[1]!)})`;
  const call = /^(STRUCT|MAP|DECIMAL|UNION)\s*\((.*)\)$/s.exec(type);
  if (call) {
    const parts = splitTopLevel(call[2]!);
    switch (call[1]) {
      case 'DECIMAL':
        return `decimal(${parts.join(',')})`;
      case 'MAP':
        return `map(${parts.map(duneSqlTypeName).join(', ')})`;
      case 'STRUCT':
        return `row(${parts.map(structField).join(', ')})`;
      default:
        return 'varchar';
    }
  }
  if (timestampZone(type)) return 'timestamp(3) with time zone';
  return DUNE_SCALARS[type] ?? type.toLowerCase();
}

function structField(field: string): string {
  const match = /^("(?:[^"]|"")*"|\S+)\s+(.+)$/s.exec(field);
  if (!match) return field.toLowerCase();
  const name = match[1]!.startsWith('"') ? match[1]!.slice(1, -1).replaceAll('""', '"') : match[1]!;
  // An unnamed field (DuckDB's ""), as Trino spells it: the type alone.
  return name === '' ? duneSqlTypeName(match[2]!) : `${name} ${duneSqlTypeName(match[2]!)}`;
}

/** Splits at commas outside parentheses and double quotes. */
export function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}

/** What kind of value a column of a Trino type holds: how Athena's text of it is read back and compared. */
export type ValueKind =
  | 'integer'
  | 'number'
  | 'boolean'
  | 'binary'
  | 'timestamp'
  | 'date'
  | 'interval'
  | 'text'
  | 'nested';

/**
 * Athena type names as GetQueryResults reports them (ColumnInfo.Type, with Precision/Scale for
 * decimals), e.g. `bigint`, `decimal(38,0)`, `varbinary`, `timestamp`, `array`. A complete array,
 * map or row type (`array(varchar)`) names a column the translation returned as JSON text
 * (dunesql/nested-json.ts); Athena's own bare `array`, `map` or `row` is its lossy text form.
 */
export function valueKind(type: string): ValueKind {
  if (/^\s*(array|map|row)\s*\(/i.test(type)) return 'nested';
  const base = type.toLowerCase().replace(/\(.*$/, '').trim();
  switch (base) {
    case 'tinyint':
    case 'smallint':
    case 'integer':
    case 'int':
    case 'bigint':
      return 'integer';
    case 'decimal':
      // decimal(p,0) holds uint256/int256 amounts: exact integers.
      return /,\s*0\)$/.test(type) ? 'integer' : 'number';
    case 'double':
    case 'real':
    case 'float':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'varbinary':
      return 'binary';
    case 'timestamp':
    case 'timestamp with time zone':
      return 'timestamp';
    case 'date':
      return 'date';
    case 'interval day to second':
    case 'interval year to month':
      return 'interval';
    default:
      return 'text';
  }
}
