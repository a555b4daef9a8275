import { type DuckDBType, DuckDBTypeId } from '@duckdb/node-api';
import { intervalText } from '../../dunesql/duckdb-target';
import { sqlIdentifier } from './result-files';

/**
 * How a result column is written to Parquet when its engine type cannot be stored exactly.
 *
 * DuckDB's Parquet writer stores HUGEINT and UHUGEINT as DOUBLE, which would turn an exact uint256
 * amount into an approximation; those are stored as their exact decimal text instead (also inside
 * lists, structs, maps and arrays). UNION has no Parquet form worth reading back and is stored as
 * text. A row's unnamed fields (`ROW(1, 'a')`, zip's elements), which DuckDB names "" and a reader
 * would collapse into one key, are named `field0`, `field1`, … by position, as the Athena host
 * names them. Returns undefined when the column can be written as is.
 *
 * UHUGEINT→VARCHAR is very slow in DuckDB 1.5 (~60 µs a value, 1.2 s for 20k rows) while
 * HUGEINT→VARCHAR is fast, so values below 2^127 (all but the top half of the range) go through
 * HUGEINT; lists and structs are rebuilt element-wise to keep that fast path.
 */
export function storageExpression(type: DuckDBType, source: string): string | undefined {
  return needsRewrite(type) ? rewrite(type, source, 0) : undefined;
}

function needsRewrite(type: DuckDBType): boolean {
  switch (type.typeId) {
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.UNION:
    case DuckDBTypeId.INTERVAL:
      return true;
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
      return needsRewrite(type.valueType);
    case DuckDBTypeId.MAP:
      return needsRewrite(type.keyType) || needsRewrite(type.valueType);
    case DuckDBTypeId.STRUCT:
      return type.entryNames.includes('') || type.entryTypes.some(needsRewrite);
    default:
      return false;
  }
}

/** A struct field's stored name: its own, or `field<position>` when it has none. */
const fieldName = (name: string, position: number) => (name === '' ? `field${position}` : name);

const HUGEINT_MAX = '170141183460469231731687303715884105727';

function rewrite(type: DuckDBType, source: string, depth: number): string {
  if (!needsRewrite(type)) return source;
  switch (type.typeId) {
    case DuckDBTypeId.INTERVAL:
      return intervalText(source);
    case DuckDBTypeId.UHUGEINT:
      return (
        `CASE WHEN ${source} <= CAST('${HUGEINT_MAX}' AS UHUGEINT) ` +
        `THEN CAST(CAST(${source} AS HUGEINT) AS VARCHAR) ELSE CAST(${source} AS VARCHAR) END`
      );
    case DuckDBTypeId.LIST: {
      const element = `x${depth}`;
      return `list_transform(${source}, lambda ${element}: ${rewrite(type.valueType, element, depth + 1)})`;
    }
    case DuckDBTypeId.STRUCT: {
      // An unnamed field is read by its position (its name "" may be shared).
      const fields = type.entryNames.map((name, i) => {
        const field =
          name === ''
            ? `struct_extract(${source}, ${i + 1})`
            : `struct_extract(${source}, '${name.replaceAll("'", "''")}')`;
        return `${sqlIdentifier(fieldName(name, i))} := ${rewrite(type.entryTypes[i]!, field, depth + 1)}`;
      });
      return `CASE WHEN ${source} IS NULL THEN NULL ELSE struct_pack(${fields.join(', ')}) END`;
    }
    default:
      return `CAST(${source} AS ${castTarget(type)})`;
  }
}

function castTarget(type: DuckDBType): string {
  switch (type.typeId) {
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.UNION:
    case DuckDBTypeId.INTERVAL:
      return 'VARCHAR';
    case DuckDBTypeId.LIST:
      return `${castTarget(type.valueType)}[]`;
    case DuckDBTypeId.ARRAY:
      return `${castTarget(type.valueType)}[${type.length}]`;
    case DuckDBTypeId.MAP:
      return `MAP(${castTarget(type.keyType)}, ${castTarget(type.valueType)})`;
    case DuckDBTypeId.STRUCT:
      return `STRUCT(${type.entryNames.map((name, i) => `${sqlIdentifier(fieldName(name, i))} ${castTarget(type.entryTypes[i]!)}`).join(', ')})`;
    default:
      return type.toString();
  }
}

/** Engine types stored as exact decimal text at the top level of a column (see storageExpression). */
export function isBigIntegerType(typeName: string): boolean {
  return typeName === 'HUGEINT' || typeName === 'UHUGEINT';
}
