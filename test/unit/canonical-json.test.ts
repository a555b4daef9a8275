/**
 * Trino's json_parse writes JSON through Jackson with map entries ordered by key; the local engine's
 * translation calls canonicalJson for it (functions/local/engine/dune-functions.ts).
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../functions/local/engine/dune-functions';

describe('canonicalJson', () => {
  it.each([
    ['{"b": 1, "a": 2}', '{"a":2,"b":1}'],
    ['{"k": {"z": [ {"y": 1, "x": 2} ], "a": null}}', '{"k":{"a":null,"z":[{"x":2,"y":1}]}}'],
    ['{"a": 1, "a": 2}', '{"a":2}'],
    [
      '[12345678901234567890, -0, 1.50, 0.001, 1e7, true, "é\\n"]',
      '[12345678901234567890,0,1.5,0.001,1.0E7,true,"é\\n"]',
    ],
    ['"text"', '"text"'],
    [' 7 ', '7'],
    ['{"B": 1, "a": 2, "_": 3}', '{"B":1,"_":3,"a":2}'],
  ])('%s is %s', (text, expected) => {
    expect(canonicalJson(text)).toBe(expected);
  });

  it('refuses text that is not JSON, saying so', () => {
    expect(() => canonicalJson('{bad')).toThrow("Cannot convert '{bad' to JSON");
  });
});
