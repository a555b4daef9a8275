/**
 * Arrays, maps and rows on Athena. Athena writes them to its result CSV in a text form that loses
 * string boundaries (`[a, b]`, `{k=v}`), so the results API could not return them as JSON. The
 * Athena translation therefore turns each such output column into JSON text in SQL
 * (`json_format(CAST(… AS JSON))`), first converting what JSON cannot carry (varbinary, dates,
 * timestamps, non-varchar map keys) into the strings the local host returns for them. A view
 * refresh stores that JSON text, and readers cast it back to the column's type.
 *
 * Trino's rules (docs/aws.md, "Nested values"): only boolean, integers, real, double, decimal and
 * varchar cast to JSON, and arrays, rows and varchar-keyed maps of them; a row casts to a JSON
 * object keyed by its field names; JSON casts back to arrays, maps and rows (from objects).
 *
 * A row's unnamed fields (`ROW(1, 'a')`, `zip`'s elements, `map_entries`') are keyed `field0`,
 * `field1`, … by position (Trino's own cast would key them all ""); the local host does the same.
 */
import { splitTopLevel } from '../core/sql-types';

/** A Trino type as a tree; a row field without a name (`row(integer, varchar)`) has none here either. */
export type TrinoType =
  | { kind: 'scalar'; name: string }
  | { kind: 'array'; element: TrinoType }
  | { kind: 'map'; key: TrinoType; value: TrinoType }
  | { kind: 'row'; fields: RowField[] };

export interface RowField {
  name?: string;
  type: TrinoType;
}

/** The key of a row field in JSON: its name, or `field<position>` when it has none. */
export const fieldKey = (field: RowField, position: number) => field.name ?? `field${position}`;

const hasUnnamedField = (type: TrinoType) =>
  type.kind === 'row' && type.fields.some((f) => f.name === undefined);

/** Scalars that cast to JSON as they are. */
const JSON_SCALARS =
  /^(boolean|tinyint|smallint|integer|int|bigint|real|double|decimal\(\d+,\s*\d+\)|varchar(\(\d+\))?|json)$/;

/**
 * Scalars turned into JSON strings first, as the local host renders them: `0x…` hex, `… UTC`
 * timestamps to the millisecond, ISO dates; and back from those strings when a view is read.
 */
const STRING_SCALARS: Record<string, { toText(e: string): string; fromText(e: string): string }> = {
  varbinary: {
    toText: (e) => `'0x' || lower(to_hex(${e}))`,
    fromText: (e) => `from_hex(substr(${e}, 3))`,
  },
  timestamp: {
    toText: (e) => `format_datetime(${e}, 'yyyy-MM-dd HH:mm:ss.SSS') || ' UTC'`,
    fromText: (e) => `CAST(substr(${e}, 1, 23) AS timestamp(3))`,
  },
  'timestamp with time zone': {
    toText: (e) => `format_datetime(${e} AT TIME ZONE 'UTC', 'yyyy-MM-dd HH:mm:ss.SSS') || ' UTC'`,
    fromText: (e) => `from_iso8601_timestamp(replace(substr(${e}, 1, 23), ' ', 'T') || 'Z')`,
  },
  date: { toText: (e) => `CAST(${e} AS varchar)`, fromText: (e) => `CAST(${e} AS date)` },
};

/** A scalar's name without precision where precision does not change its handling (`timestamp(3)`). */
function scalarKey(name: string): string {
  return name.replace(/^timestamp\(\d+\)/, 'timestamp').replace(/^time\(\d+\)/, 'time');
}

/** Parses Trino's spelling (any case, quoted row field names) of a type; undefined if unsupported. */
export function parseTrinoType(text: string): TrinoType | undefined {
  const type = text.trim();
  const call = /^(array|map|row)\s*\(([\s\S]*)\)$/i.exec(type);
  if (!call) {
    const name = type.toLowerCase().replace(/\s+/g, ' ').replace(/,\s+/g, ',');
    return /^[a-z][a-z0-9 (),]*$/.test(name) ? { kind: 'scalar', name } : undefined;
  }
  const parts = splitTopLevel(call[2]!);
  switch (call[1]!.toLowerCase()) {
    case 'array': {
      const element = parseTrinoType(call[2]!);
      return element && { kind: 'array', element };
    }
    case 'map': {
      const [key, value] = parts.map(parseTrinoType);
      return parts.length === 2 && key && value ? { kind: 'map', key, value } : undefined;
    }
    default: {
      const fields: RowField[] = [];
      for (const part of parts) {
        const match = /^("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_]*)\s+([\s\S]+)$/.exec(part);
        // A lone type (`row(integer, varchar)`, `row(timestamp with time zone)`) is an unnamed field.
        if (!match || /^(array|map|row|timestamp|time)$/i.test(match[1]!)) {
          const fieldType = parseTrinoType(part);
          if (!fieldType) return undefined;
          fields.push({ type: fieldType });
          continue;
        }
        const fieldType = parseTrinoType(match[2]!);
        if (!fieldType) return undefined;
        const name = match[1]!.startsWith('"') ? match[1]!.slice(1, -1).replaceAll('""', '"') : match[1]!;
        fields.push({ name: name.toLowerCase(), type: fieldType });
      }
      return { kind: 'row', fields };
    }
  }
}

/** A double-quoted Trino identifier. */
export const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;
const quote = quoteIdentifier;

/** Trino's lower-case spelling of a type, as the results API reports column types. */
export function typeText(type: TrinoType): string {
  switch (type.kind) {
    case 'scalar':
      return type.name;
    case 'array':
      return `array(${typeText(type.element)})`;
    case 'map':
      return `map(${typeText(type.key)}, ${typeText(type.value)})`;
    case 'row':
      return `row(${type.fields.map((f) => (f.name === undefined ? typeText(f.type) : `${/^[a-z_][a-z0-9_]*$/.test(f.name) ? f.name : quote(f.name)} ${typeText(f.type)}`)).join(', ')})`;
  }
}

/** The row with its unnamed fields named `field<position>`, so they can be read by name. */
function withFieldNames(type: TrinoType & { kind: 'row' }): TrinoType & { kind: 'row' } {
  return { kind: 'row', fields: type.fields.map((f, i) => ({ name: fieldKey(f, i), type: f.type })) };
}

/** Whether a value of the type casts to JSON unchanged. Undefined: a scalar nothing here knows. */
function castsToJson(type: TrinoType): boolean | undefined {
  switch (type.kind) {
    case 'scalar':
      if (JSON_SCALARS.test(type.name)) return true;
      return scalarKey(type.name) in STRING_SCALARS ? false : undefined;
    case 'array':
      return castsToJson(type.element);
    case 'map': {
      const key = isVarchar(type.key);
      const value = castsToJson(type.value);
      return value === undefined ? undefined : key && value;
    }
    case 'row': {
      const fields = type.fields.map((f) => castsToJson(f.type));
      return fields.includes(undefined) ? undefined : fields.every(Boolean) && !hasUnnamedField(type);
    }
  }
}

/** The type a value has once made JSON-castable (`jsonReady`). */
function jsonReadyType(type: TrinoType): TrinoType {
  switch (type.kind) {
    case 'scalar':
      return JSON_SCALARS.test(type.name) ? type : { kind: 'scalar', name: 'varchar' };
    case 'array':
      return { kind: 'array', element: jsonReadyType(type.element) };
    case 'map':
      return { kind: 'map', key: { kind: 'scalar', name: 'varchar' }, value: jsonReadyType(type.value) };
    case 'row':
      return {
        kind: 'row',
        fields: type.fields.map((f, i) => ({ name: fieldKey(f, i), type: jsonReadyType(f.type) })),
      };
  }
}

const isVarchar = (type: TrinoType) => type.kind === 'scalar' && /^varchar/.test(type.name);

/** A scalar map key as text (`toText`), or back from text. */
function keyConversion(key: TrinoType, way: Way): (e: string) => string {
  if (key.kind !== 'scalar') throw new Error('unsupported map key');
  const special = STRING_SCALARS[scalarKey(key.name)];
  if (special) return special[way];
  return way === 'toText' ? (e) => `CAST(${e} AS varchar)` : (e) => `CAST(${e} AS ${key.name})`;
}

/** `toText`: to JSON-ready values (`jsonReadyType`); `fromText`: back to the type. */
type Way = 'toText' | 'fromText';

/**
 * SQL converting `e` between `type` and `jsonReadyType(type)`, either way: the strings of
 * STRING_SCALARS, inside arrays, map values and keys, and row fields.
 */
function convert(e: string, type: TrinoType, depth: number, way: Way): string {
  if (castsToJson(type)) return e;
  const v = `json_v${depth}`;
  const k = `json_k${depth}`;
  switch (type.kind) {
    case 'scalar':
      return STRING_SCALARS[scalarKey(type.name)]![way](e);
    case 'array':
      return `transform(${e}, ${v} -> ${convert(v, type.element, depth + 1, way)})`;
    case 'map': {
      let map = e;
      if (!castsToJson(type.value)) {
        map = `transform_values(${map}, (${k}, ${v}) -> ${convert(v, type.value, depth + 1, way)})`;
      }
      if (!isVarchar(type.key))
        map = `transform_keys(${map}, (${k}, ${v}) -> ${keyConversion(type.key, way)(k)})`;
      return map;
    }
    case 'row': {
      // Unnamed fields are read by position through a cast naming them (`field0`, …).
      const named =
        way === 'toText' && hasUnnamedField(type) ? `CAST(${e} AS ${typeText(withFieldNames(type))})` : e;
      const fields = type.fields.map((f, i) =>
        convert(`${named}.${quote(fieldKey(f, i))}`, f.type, depth + 1, way),
      );
      const target = way === 'toText' ? jsonReadyType(type) : type;
      // A NULL row stays NULL (ROW(NULL, …) would be an object of nulls).
      return `IF(${e} IS NULL, NULL, CAST(ROW(${fields.join(', ')}) AS ${typeText(target)}))`;
    }
  }
}

/** Whether a type is an array, map or row this module can carry as JSON. */
export function isNestedJsonType(type: TrinoType): boolean {
  return type.kind !== 'scalar' && castsToJson(type) !== undefined && mapKeysSupported(type);
}

function mapKeysSupported(type: TrinoType): boolean {
  switch (type.kind) {
    case 'scalar':
      return true;
    case 'array':
      return mapKeysSupported(type.element);
    case 'map':
      return type.key.kind === 'scalar' && mapKeysSupported(type.value);
    case 'row': {
      // A name that is also another field's positional key (`row(field1 integer, varchar)`) would clash.
      const keys = type.fields.map(fieldKey);
      return new Set(keys).size === keys.length && type.fields.every((f) => mapKeysSupported(f.type));
    }
  }
}

/** `e` (an array, map or row of `type`) as JSON text (varchar). */
export function nestedAsJsonText(e: string, type: TrinoType): string {
  return `json_format(CAST(${convert(e, type, 1, 'toText')} AS JSON))`;
}

/** JSON text written by `nestedAsJsonText` read back as `type` (the outer CAST states the type). */
export function nestedFromJsonText(e: string, type: TrinoType): string {
  const ready = `CAST(json_parse(${e}) AS ${typeText(jsonReadyType(type))})`;
  return `CAST(${convert(ready, type, 1, 'fromText')} AS ${typeText(type)})`;
}
