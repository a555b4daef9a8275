/**
 * DuckDB's words for the run-time errors users meet most, in the words Trino (and so Athena, the
 * AWS engine) uses for the same failure, so a DuneSQL query fails alike on both hosts: a bad
 * cast, an integer out of its type's range, an overflow, a division by zero, text json_parse
 * cannot read, a scalar subquery with several rows, text cast to a decimal, a bad hex digit.
 * Trino's texts are its own (`VarcharOperators`, `BigintOperators`, `DateTimeOperators`,
 * `JsonFunctions`, `DecimalCasts`, Java's `HexFormat`, the planner's scalar-subquery check).
 * A message not listed here keeps DuckDB's words, labelled with DuckDB's error type.
 */

/**
 * Starts the messages of the translation's own failures (`dunesql_fail`, raised where DuneSQL
 * fails and DuckDB would not), which are written in Trino's words already: the mark goes, and so
 * does the label DuckDB gives an error raised in a function.
 */
export const TRINO_WORDED = '[trino] ';

/** Trino's spelling of a type in "Cannot cast '…' to T" (its varchar cast operators). */
const CAST_TARGETS: Record<string, string> = {
  BIGINT: 'BIGINT',
  INT64: 'BIGINT',
  INTEGER: 'INT',
  INT32: 'INT',
  SMALLINT: 'SMALLINT',
  INT16: 'SMALLINT',
  TINYINT: 'TINYINT',
  INT8: 'TINYINT',
  DOUBLE: 'DOUBLE',
  FLOAT: 'REAL',
  REAL: 'REAL',
  BOOL: 'BOOLEAN',
  BOOLEAN: 'BOOLEAN',
};

/** Trino's name of an integer type in range and overflow messages. */
const INTEGER_TYPES: Record<string, string> = {
  bigint: 'bigint',
  int64: 'bigint',
  integer: 'integer',
  int32: 'integer',
  smallint: 'smallint',
  int16: 'smallint',
  tinyint: 'tinyint',
  int8: 'tinyint',
};

const OPERATIONS: Record<string, string> = { addition: '+', subtraction: '-', multiplication: '*' };

type Rewrite = (match: RegExpExecArray) => string | undefined;

/** Text Java's `new BigDecimal(text)` reads as a number (no spaces, an optional exponent). */
const JAVA_BIG_DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

const REWRITES: readonly [RegExp, Rewrite][] = [
  [
    /^Could not convert string '([\s\S]*)' to (\w+)$/,
    ([, value, type]) => {
      const target = CAST_TARGETS[type!.toUpperCase()];
      return target && `Cannot cast '${value}' to ${target}`;
    },
  ],
  [
    /^Type \w+ with value (\S+) can't be cast because the value is out of range for the destination type (\w+)$/,
    ([, value, type]) => {
      const target = INTEGER_TYPES[type!.toLowerCase()];
      return target && `Out of range for ${target}: ${value}`;
    },
  ],
  [
    /^Overflow in (addition|subtraction|multiplication) of (\w+) \((\S+) [+\-*] (\S+)\)!$/,
    ([, operation, type, left, right]) => {
      const name = INTEGER_TYPES[type!.toLowerCase()];
      return name && `${name} ${operation} overflow: ${left} ${OPERATIONS[operation!]} ${right}`;
    },
  ],
  [
    /^(?:date field value out of range|invalid date field format): "([^"]*)"/,
    ([, value]) => `Value cannot be cast to date: ${value}`,
  ],
  [
    /^(?:timestamp field value out of range|invalid timestamp field format): "([^"]*)"/,
    ([, value]) => `Value cannot be cast to timestamp: ${value}`,
  ],
  [/^Cannot convert '([\s\S]*)' to JSON$/, ([, value]) => `Cannot convert value to JSON: '${value}'`],
  [
    /^More than one row returned by a subquery used as an expression/,
    () => 'Scalar sub-query has returned multiple rows',
  ],
  [
    // Trino's varchar-to-decimal cast (DecimalCasts): the text is no number, or too large for the type.
    /^Could not convert string "([\s\S]*)" to DECIMAL\((\d+),(\d+)\)$/,
    ([, value, precision, scale]) =>
      `Cannot cast VARCHAR '${value}' to DECIMAL(${precision}, ${scale}). ${
        JAVA_BIG_DECIMAL.test(value!) ? 'Value too large.' : 'Value is not a number.'
      }`,
  ],
  [
    // from_hex reads digits with Java's HexFormat.fromHexDigit; a printable ASCII character's code is its byte.
    /^Invalid input for hex digit: ([ -~])$/,
    ([, digit]) => `not a hexadecimal digit: "${digit}" = ${digit!.charCodeAt(0)}`,
  ],
  // DuckDB's text is Trino's already: only DuckDB's label goes.
  [/^Division by zero$/, () => 'Division by zero'],
  [/^Array subscript must be less than or equal to array length: \d+ > \d+$/, ([text]) => text],
];

/** Trino's message for DuckDB's, or undefined when it is not one of those listed above. */
export function trinoWording(message: string): string | undefined {
  if (message.startsWith(TRINO_WORDED)) return message.slice(TRINO_WORDED.length);
  for (const [pattern, rewrite] of REWRITES) {
    const match = pattern.exec(message);
    if (match) return rewrite(match);
  }
  return undefined;
}
