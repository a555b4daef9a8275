import { crc32 } from 'node:zlib';
import {
  BIGINT,
  BLOB,
  blobValue,
  DOUBLE,
  type DuckDBBlobValue,
  type DuckDBConnection,
  DuckDBScalarFunction,
  type DuckDBType,
  type DuckDBValue,
  FLOAT,
  VARCHAR,
} from '@duckdb/node-api';
import { sha512 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58 } from '@scure/base';
import xxhash from 'xxhash-wasm';
import { duneSqlTypeName } from '../../core/sql-types';
import { HELPER_PREFIX } from '../../dunesql/duckdb-target';
import { TRINO_WORDED } from './trino-wording';

/**
 * DuneSQL functions DuckDB has no counterpart for, computed in the engine process in JavaScript and
 * registered in every sandbox under their DuneSQL names, so the translation leaves calls to them
 * as they are. Each is NULL on NULL, as on Trino and Dune:
 * - `keccak(varbinary) → varbinary`: Keccak-256 (Ethereum's hash, not SHA3-256), e.g. an event
 *   signature's topic0;
 * - `xxhash64(varbinary) → varbinary`: xxHash64 with seed 0, as Trino writes it: 8 bytes, big-endian;
 * - `crc32(varbinary) → bigint`: zlib's CRC-32;
 * - `to_base58(varbinary) → varchar`, `from_base58(varchar) → varbinary`: Bitcoin's Base58 alphabet,
 *   Solana's addresses and instruction data (Dune's own functions);
 * - `format_number(double) → varchar`: Trino's short form with a unit symbol (`1.23M`);
 * - `to_ieee754_64(double)`, `to_ieee754_32(real) → varbinary` and `from_ieee754_64`,
 *   `from_ieee754_32`: the number's IEEE 754 bytes, big-endian, and back (Trino's binary functions);
 * - `dunesql_json_canonical(varchar) → varchar`: JSON text as Trino's `json_parse` writes it;
 * - `dunesql_type_name(varchar) → varchar`: DuneSQL's name of a DuckDB type (`typeof` calls it);
 * - `dunesql_double_text(double)` and `dunesql_real_text(real) → varchar`: the text Trino's cast
 *   to varchar gives (Java's notation, `1.0E7`), which the translation's casts call;
 * - `dunesql_cbrt(double) → double`: Trino's `cbrt`, as Java computes it;
 * - `dunesql_utf8_replacing(varbinary) → varchar`: UTF-8 text with U+FFFD for what is not UTF-8,
 *   as Trino's `from_utf8` (which calls it only for values DuckDB's `decode` refuses).
 *
 * DuckDB calls them a chunk of rows (up to 2,048) at a time on the engine process's JavaScript
 * thread, which is idle while its query runs. On Athena all but `keccak` and the Base58 pair are
 * Trino's own; those have no Athena counterpart (functions/dunesql/athena-target.ts).
 */
interface JsFunction {
  name: string;
  parameterType: DuckDBType;
  returnType: DuckDBType;
  compute(value: DuckDBValue): DuckDBValue;
}

const bytesOf = (value: DuckDBValue) => (value as DuckDBBlobValue).bytes;

let loaded: Promise<readonly JsFunction[]> | undefined;

/** A function of one argument: its DuneSQL name, argument and result types, and its computation. */
const scalar = (
  name: string,
  parameterType: DuckDBType,
  returnType: DuckDBType,
  compute: JsFunction['compute'],
): JsFunction => ({ name, parameterType, returnType, compute });

/** The functions, built once per process (xxHash64 is WebAssembly, instantiated asynchronously). */
function jsFunctions(): Promise<readonly JsFunction[]> {
  loaded ??= xxhash().then(({ h64Raw }) => [
    scalar('keccak', BLOB, BLOB, (value) => blobValue(keccak_256(bytesOf(value)))),
    scalar('xxhash64', BLOB, BLOB, (value) => {
      const digest = new Uint8Array(8);
      new DataView(digest.buffer).setBigUint64(0, h64Raw(bytesOf(value)));
      return blobValue(digest);
    }),
    scalar('crc32', BLOB, BIGINT, (value) => BigInt(crc32(bytesOf(value)))),
    scalar('sha512', BLOB, BLOB, (value) => blobValue(sha512(bytesOf(value)))),
    scalar('format_number', DOUBLE, VARCHAR, (value) => formatNumber(Number(value))),
    scalar('to_ieee754_64', DOUBLE, BLOB, (value) => ieee754Bytes(8, Number(value))),
    scalar('to_ieee754_32', FLOAT, BLOB, (value) => ieee754Bytes(4, Number(value))),
    scalar('from_ieee754_64', BLOB, DOUBLE, (value) => ieee754Number(8, bytesOf(value))),
    scalar('from_ieee754_32', BLOB, FLOAT, (value) => ieee754Number(4, bytesOf(value))),
    scalar('to_base58', BLOB, VARCHAR, (value) => base58.encode(bytesOf(value))),
    scalar('from_base58', VARCHAR, BLOB, (value) => fromBase58(String(value))),
    scalar(`${HELPER_PREFIX}json_canonical`, VARCHAR, VARCHAR, (value) => canonicalJson(String(value))),
    // DuckDB names NULL's type `"NULL"`; Trino calls it unknown.
    scalar(`${HELPER_PREFIX}type_name`, VARCHAR, VARCHAR, (value) =>
      value === '"NULL"' ? 'unknown' : duneSqlTypeName(String(value)),
    ),
    scalar(`${HELPER_PREFIX}double_text`, DOUBLE, VARCHAR, (value) => javaDoubleText(Number(value))),
    scalar(`${HELPER_PREFIX}real_text`, FLOAT, VARCHAR, (value) => javaFloatText(Number(value))),
    // fdlibm's cube root, as Java's (V8 ports the same code): exact for perfect cubes, where
    // DuckDB's is off by an ulp (cbrt(27) = 3.0000000000000004).
    scalar(`${HELPER_PREFIX}cbrt`, DOUBLE, DOUBLE, (value) => Math.cbrt(Number(value))),
    scalar(`${HELPER_PREFIX}utf8_replacing`, BLOB, VARCHAR, (value) =>
      replacingDecoder.decode(bytesOf(value)),
    ),
    // Fails its query with the message, as DuckDB's error() does, but as a function DuckDB does not
    // count as volatile, so try() around a translation that may fail still binds (the translation
    // casts its text result to the type the failing branch stands in for).
    scalar(`${HELPER_PREFIX}fail`, VARCHAR, VARCHAR, (value) => {
      throw new Error(`${TRINO_WORDED}${String(value)}`);
    }),
  ]);
  return loaded;
}

/** A double (8 bytes) or real (4) as its IEEE 754 bytes, big-endian (DataView's default). */
function ieee754Bytes(size: 4 | 8, value: number): DuckDBValue {
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  if (size === 8) view.setFloat64(0, value);
  else view.setFloat32(0, value);
  return blobValue(bytes);
}

/** The double or real of IEEE 754 big-endian bytes; other lengths fail, in Trino's words. */
function ieee754Number(size: 4 | 8, bytes: Uint8Array): number {
  if (bytes.length !== size) {
    throw new Error(`Input floating-point value must be exactly ${size} bytes long`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, size);
  return size === 8 ? view.getFloat64(0) : view.getFloat32(0);
}

function fromBase58(text: string): DuckDBValue {
  try {
    return blobValue(base58.decode(text));
  } catch {
    throw new Error(
      `from_base58: "${text.slice(0, 60)}" is not Base58 (characters 1-9, A-Z and a-z without 0, O, I and l).`,
    );
  }
}

const replacingDecoder = new TextDecoder('utf-8', { fatal: false });

const UNITS = ['K', 'M', 'B', 'T', 'Q'];

/**
 * Trino's `format_number` (FormatNumberFunction, read in Trino's source): the value truncated to a
 * bigint, divided by 1,000 while it is at least 1,000 in size (up to `Q`), then shown with up to
 * two decimals below 10 (negative values included), one below 100, none above, rounded half up,
 * without trailing zeros. `toFixed` rounds the double's exact value, ties away from zero, as
 * Java's `DecimalFormat` with `HALF_UP` does.
 */
export function formatNumber(value: number): string {
  // Java's (long) cast, read back as a double: NaN is 0, values beyond a long saturate at ±2^63.
  let fractional = Number.isNaN(value) ? 0 : Math.trunc(Math.min(Math.max(value, -(2 ** 63)), 2 ** 63));
  let unit = '';
  for (const next of UNITS) {
    if (fractional < 1000 && fractional > -1000) break;
    fractional /= 1000;
    unit = next;
  }
  const decimals = fractional < 10 ? 2 : fractional < 100 ? 1 : 0;
  const text = fractional.toFixed(decimals);
  const trimmed = decimals > 0 ? text.replace(/\.?0+$/, '') : text;
  return `${trimmed === '-0' ? '0' : trimmed}${unit}`;
}

/**
 * A double as Trino casts it to varchar, which is Java's `Double.toString`: the shortest decimal
 * that reads back as the same double, plain with at least one decimal from 10^-3 up to 10^7
 * (`0.001`, `1.5`, `100.0`), else in Java's scientific form (`1.0E7`, `1.2345E-5`), and `NaN`,
 * `Infinity`, `-Infinity`. JavaScript's `toExponential()` gives the same shortest digits.
 */
export function javaDoubleText(value: number): string {
  return javaText(value, value.toExponential());
}

/**
 * A real as Trino casts it to varchar (Java's `Float.toString`): as `javaDoubleText`, with the
 * shortest digits that read back as the same 32-bit float.
 */
export function javaFloatText(value: number): string {
  if (!Number.isFinite(value)) return javaText(value, '');
  let digits = value.toExponential();
  for (let precision = 1; precision <= 9; precision++) {
    const candidate = value.toExponential(precision - 1);
    if (Math.fround(Number(candidate)) === value) {
      digits = candidate;
      break;
    }
  }
  return javaText(value, digits);
}

/** Java's layout of a double or float given its shortest digits as `d.ddde±n`. */
function javaText(value: number, exponential: string): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa = '', exponentText = '0'] = exponential.split('e');
  const exponent = Number(exponentText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    const point = exponent + 1;
    const whole = point <= 0 ? '0' : digits.slice(0, point).padEnd(point, '0');
    const fraction = point <= 0 ? '0'.repeat(-point) + digits : digits.slice(point);
    return `${sign}${whole}.${fraction || '0'}`;
  }
  return `${sign}${digits[0]}.${digits.slice(1) || '0'}E${exponent}`;
}

/** A number of a parsed JSON text, kept as written. */
class JsonNumber {
  constructor(readonly source: string) {}
}

/**
 * JSON text as Trino's `json_parse` writes it (Jackson, reading into Java maps and writing them with
 * ORDER_MAP_ENTRIES_BY_KEYS, read in Trino's JsonFunctions): no whitespace, object keys sorted at
 * every level (the last of duplicate keys kept), integers exact at any size, other numbers as a
 * Java double (`1.50` is `1.5`). DuckDB's JSON type then writes numbers beyond 10^7 or below
 * 10^-3 in its own notation (`1e20` as `100000000000000000000.0`; Trino: `1.0E20`).
 */
export function canonicalJson(text: string): string {
  let parsed: unknown;
  try {
    // The reviver's third argument holds a primitive's source text (Node 22's JSON.parse).
    parsed = JSON.parse(text, (_key, value, context?: { source?: string }) =>
      typeof value === 'number' ? new JsonNumber(context?.source ?? String(value)) : value,
    );
  } catch {
    throw new Error(`Cannot convert '${text.slice(0, 80)}' to JSON`);
  }
  return writeJson(parsed);
}

function writeJson(value: unknown): string {
  if (value instanceof JsonNumber) {
    return /^-?\d+$/.test(value.source)
      ? BigInt(value.source).toString()
      : javaDoubleText(Number(value.source));
  }
  if (Array.isArray(value)) return `[${value.map(writeJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${writeJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Registers the functions in the connection's database (every connection of it sees them). */
export async function registerDuneFunctions(connection: DuckDBConnection): Promise<void> {
  for (const fn of await jsFunctions()) {
    connection.registerScalarFunction(
      DuckDBScalarFunction.create({
        name: fn.name,
        returnType: fn.returnType,
        parameterTypes: [fn.parameterType],
        mainFunction: (info, input, output) => {
          try {
            const values = input.getColumnVector(0);
            for (let row = 0; row < input.rowCount; row++) {
              const value = values.getItem(row);
              output.setItem(row, value === null ? null : fn.compute(value));
            }
            output.flush();
          } catch (error) {
            // The query fails with the message, as a built-in function's error fails it.
            info.setError(error instanceof Error ? error.message : String(error));
          }
        },
      }),
    );
  }
}
