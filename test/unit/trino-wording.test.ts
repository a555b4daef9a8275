import { describe, expect, it } from 'vitest';
import { TRINO_WORDED, trinoWording } from '../../functions/local/engine/trino-wording';

describe("DuckDB's run-time errors in Trino's words", () => {
  it.each([
    ["Could not convert string 'x' to INT64", "Cannot cast 'x' to BIGINT"],
    ["Could not convert string 'it''s' to FLOAT", "Cannot cast 'it''s' to REAL"],
    [
      "Type integer with value -40000 can't be cast because the value is out of range for the destination type smallint",
      'Out of range for smallint: -40000',
    ],
    [
      'Overflow in subtraction of bigint (-9223372036854775808 - 1)!',
      'bigint subtraction overflow: -9223372036854775808 - 1',
    ],
    [
      'Overflow in multiplication of integer (2147483647 * 2)!',
      'integer multiplication overflow: 2147483647 * 2',
    ],
    ['date field value out of range: "2024-02-30"', 'Value cannot be cast to date: 2024-02-30'],
    [`${TRINO_WORDED}Cannot negate the uint256 value 1`, 'Cannot negate the uint256 value 1'],
    [
      'Could not convert string "abc" to DECIMAL(10,2)',
      "Cannot cast VARCHAR 'abc' to DECIMAL(10, 2). Value is not a number.",
    ],
    [
      'Could not convert string "12345.6" to DECIMAL(4,1)',
      "Cannot cast VARCHAR '12345.6' to DECIMAL(4, 1). Value too large.",
    ],
    [
      'Could not convert string "1e400" to DECIMAL(38,2)',
      "Cannot cast VARCHAR '1e400' to DECIMAL(38, 2). Value too large.",
    ],
    ['Invalid input for hex digit: z', 'not a hexadecimal digit: "z" = 122'],
  ])('%j → %j', (duckdb, trino) => {
    expect(trinoWording(duckdb)).toBe(trino);
  });

  it.each([
    // Trino words these differently (decimal-to-decimal casts, 256-bit types), or a non-ASCII
    // character's code is not the byte Trino names: DuckDB's words stay.
    'Casting value "12345.6" to type DECIMAL(4,1) failed: value is out of range!',
    "Type int256 with value -1 can't be cast because the value is out of range for the destination type uint256",
    'Overflow in addition of int256 (1 + 2)!',
    'Invalid input for hex digit: ü',
    // The mark only counts at the start.
    `Error in ${TRINO_WORDED}x`,
  ])('leaves %j to DuckDB', (duckdb) => {
    expect(trinoWording(duckdb)).toBeUndefined();
  });
});
