/**
 * Trino casts a double or real to varchar as Java's Double.toString / Float.toString: the shortest
 * digits that read back as the same value, plain from 10^-3 up to 10^7, else Java's scientific form.
 * The local engine's casts call these (functions/local/engine/dune-functions.ts).
 */
import { describe, expect, it } from 'vitest';
import { javaDoubleText, javaFloatText } from '../../functions/local/engine/dune-functions';

describe('javaDoubleText', () => {
  it.each([
    [1.5, '1.5'],
    [100, '100.0'],
    [0.001, '0.001'],
    [9999999.999, '9999999.999'],
    [1e7, '1.0E7'],
    [12345678.9, '1.23456789E7'],
    [1e18, '1.0E18'],
    [1e21, '1.0E21'],
    [0.00099, '9.9E-4'],
    [-2.5e-7, '-2.5E-7'],
    [0.1 + 0.2, '0.30000000000000004'],
    [1.7976931348623157e308, '1.7976931348623157E308'],
    [0, '0.0'],
    [-0, '-0.0'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
  ])('%s is %s', (value, text) => {
    expect(javaDoubleText(value)).toBe(text);
  });
});

describe('javaFloatText', () => {
  it.each([
    [0.1, '0.1'],
    [1.5, '1.5'],
    [0.3, '0.3'],
    [16777216, '1.6777216E7'],
    [3.4028235e38, '3.4028235E38'],
    [1e-5, '1.0E-5'],
  ])('the real nearest %s is %s', (value, text) => {
    expect(javaFloatText(Math.fround(value))).toBe(text);
  });
});
