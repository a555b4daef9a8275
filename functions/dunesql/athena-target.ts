import { valueKind } from '../core/sql-types';
import { chainUtilityRules } from './chain-utility-functions';
import { isNestedJsonType, nestedFromJsonText, parseTrinoType } from './nested-json';
import { type RuleSet, unsupported } from './rules';

/**
 * Athena runs Trino, not DuneSQL: Dune's onchain functions and 256-bit types are rewritten into
 * plain Trino. Decision: uint256/int256 become decimal(38,0), so values above 10^38 overflow
 * (Trino raises an error); see docs/adr/0007-dunesql-dialect.md.
 */
const byteAt = (b: string, i: string) =>
  `cast(from_big_endian_64(lpad(substr(${b}, ${i}, 1), 8, X'00')) as decimal(38,0))`;
const unsignedOf = (b: string, byte: (expression: string) => string) =>
  `reduce(sequence(1, greatest(length(${b}), 1)), cast(0 as decimal(38,0)), (acc, i) -> acc * 256 + if(i > length(${b}), 0, ${byte(byteAt(b, 'i'))}), acc -> acc)`;
const UINT256 = unsignedOf('__1', (x) => x);
// Two's complement: a negative value is -(complement + 1), computed on the complemented bytes.
const signedOf = (b: string) =>
  `if(length(${b}) > 0 and from_big_endian_64(lpad(substr(${b}, 1, 1), 8, X'00')) >= 128, -(${unsignedOf(b, (x) => `(255 - ${x})`)}) - 1, ${unsignedOf(b, (x) => x)})`;
const INT256 = signedOf('__1');

/** The bytes' hex with each byte preceded by `|` (`0xaabb` → `|AA|BB`). */
function markedBytes(blob: string): string {
  return `regexp_replace(to_hex(${blob}), '(..)', '|$1')`;
}

const templates: Record<string, string> = {
  varbinary_to_uint256: UINT256,
  varbinary_to_int256: INT256,
  varbinary_to_bigint: `from_big_endian_64(lpad(__1, 8, X'00'))`,
  // Two's complement over 16 bytes, shorter input padded with zero bytes in front (as Dune
  // documents it); Dune's older name of varbinary_to_bigint.
  varbinary_to_decimal: signedOf(`if(length(__1) < 16, lpad(__1, 16, X'00'), __1)`),
  bytea2numeric: `from_big_endian_64(lpad(__1, 8, X'00'))`,
  varbinary_to_integer: `from_big_endian_32(lpad(__1, 4, X'00'))`,
  varbinary_to_varchar: 'from_utf8(__1)',
  varbinary_substring: 'substr(__1, __2, __3)',
  varbinary_length: 'length(__1)',
  varbinary_concat: 'concat(__1, __2)',
  varbinary_ltrim: `from_hex(regexp_replace(to_hex(__1), '^(00)+', ''))`,
  varbinary_rtrim: `from_hex(regexp_replace(to_hex(__1), '(00)+$', ''))`,
  varbinary_starts_with: 'starts_with(to_hex(__1), to_hex(__2))',
  varbinary_ends_with: `regexp_like(to_hex(__1), to_hex(__2) || '$')`,
  varbinary_reverse: 'reverse(__1)',
  // Bytes marked as `|XX` (markedBytes), so a pattern matches at byte boundaries only: a plain
  // search of the hex would find 0xaa in 0x0aa0. A match at character p is byte (p + 2) / 3.
  varbinary_position: `if(length(__2) = 0, 1, (strpos(${markedBytes('__1')}, ${markedBytes('__2')}) + 2) / 3)`,
  varbinary_replace: `if(length(__2) = 0, __1, from_hex(replace(replace(${markedBytes('__1')}, ${markedBytes('__2')}, ${markedBytes('__3')}), '|', '')))`,
  from_hex: `from_hex(regexp_replace(__1, '^0[xX]', ''))`,
};

function templateRule(template: string) {
  return (args: unknown[], context: { template(e: string, a: unknown[]): unknown }) => {
    // A two-argument substring keeps the rest of the bytes.
    const text = template.includes('__3') && args.length === 2 ? template.replace(', __3', '') : template;
    return context.template(text, args);
  };
}

export const ATHENA_RULES: RuleSet = {
  // A varbinary address becomes its 0x hex where its type is known (athena-varbinary-casts.ts).
  ...chainUtilityRules((value) => `CAST(${value} AS VARCHAR)`),
  ...Object.fromEntries(Object.entries(templates).map(([name, template]) => [name, templateRule(template)])),
  ...Object.fromEntries(
    Object.entries(templates)
      .filter(([name]) => name.startsWith('varbinary_'))
      .map(([name, template]) => [name.replace('varbinary_', 'bytearray_'), templateRule(template)]),
  ),
  keccak: unsupported(
    'keccak',
    'keccak() is not available on Athena (Trino has no Keccak-256). Compare against precomputed hashes instead, e.g. the topic0 values of the decoded event tables.',
  ),
  ...Object.fromEntries(
    ['to_base58', 'from_base58'].map((name) => [
      name,
      unsupported(
        name,
        `${name}() is not available on Athena (Trino has no Base58). Compare against the bytes themselves (0x literals), or run the query on the local host.`,
      ),
    ]),
  ),
};

export const ATHENA_TYPES: Record<string, string> = { UINT256: 'DECIMAL(38, 0)', INT256: 'DECIMAL(38, 0)' };

/**
 * The SQL reading a column stored as Athena's result text (`c0`, …) back as its type: numbers,
 * booleans and dates cast, binary from Athena's hex pairs (`00 ab`), timestamps from
 * `2024-01-01 00:00:00.000`, arrays, maps and rows from the JSON text the translation wrote them
 * as. Athena's own text of them (a bare `array` type) stays text: SQL cannot cast it back.
 */
export function textColumnAs(column: string, type: string): string {
  const lower = type.toLowerCase().trim();
  const base = lower.replace(/\(.*$/, '').trim();
  if (base === 'json') return `json_parse(${column})`;
  switch (valueKind(lower)) {
    case 'nested': {
      const nested = parseTrinoType(type);
      return nested && isNestedJsonType(nested) ? nestedFromJsonText(column, nested) : column;
    }
    case 'integer':
    case 'number':
    case 'boolean':
    case 'date':
      return `CAST(${column} AS ${base === 'int' ? 'integer' : base === 'float' ? 'real' : lower})`;
    case 'binary':
      return `from_hex(regexp_replace(${column}, '^0x| ', ''))`;
    case 'timestamp':
      return lower.includes('with time zone')
        ? `CAST(${column} AS timestamp(3) with time zone)`
        : `CAST(${column} AS timestamp(3))`;
    default:
      return column;
  }
}
