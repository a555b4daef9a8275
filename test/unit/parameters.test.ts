import { describe, expect, it } from 'vitest';
import {
  bindParameters,
  placeholdersIn,
  validateParameterDefinitions,
} from '../../functions/core/parameters';
import type { QueryParameter } from '../../functions/core/queries';

const params: QueryParameter[] = [
  { key: 'chain', type: 'enum', value: 'ethereum', enumOptions: ['ethereum', 'base', "it's"] },
  { key: 'min_usd', type: 'number', value: '1000' },
  { key: 'start', type: 'datetime', value: '2026-10-01 00:00:00' },
  { key: 'symbol', type: 'text', value: 'WETH' },
  { key: 'day', type: 'date', value: '2026-10-05' },
];

describe('query parameters', () => {
  it('finds placeholders, with or without inner spaces', () => {
    expect(placeholdersIn('select {{a}}, {{ b }}, {{a}}')).toEqual(['a', 'b']);
  });

  it('binds defaults and partial overrides as typed literals', () => {
    const sql =
      'select * from dex.trades where blockchain = {{chain}} and amount_usd > {{min_usd}} and block_time >= {{start}} and token_bought_symbol = {{symbol}}';
    expect(bindParameters(sql, params, { min_usd: 5e3, symbol: 'USDC' })).toBe(
      "select * from dex.trades where blockchain = 'ethereum' and amount_usd > 5000 and block_time >= TIMESTAMP '2026-10-01 00:00:00' and token_bought_symbol = 'USDC'",
    );
  });

  it('escapes text so it can never end the literal', () => {
    const bound = bindParameters('select {{symbol}}', params, { symbol: "x' or 1=1; drop table t; --" });
    expect(bound).toBe("select 'x'' or 1=1; drop table t; --'");
  });

  it('fills placeholders already inside quotes (Dune style) with escaped text', () => {
    expect(
      bindParameters("where block_time > timestamp '{{start}}' and s = '{{symbol}}'", params, {
        symbol: "a'b",
      }),
    ).toBe("where block_time > timestamp '2026-10-01 00:00:00' and s = 'a''b'");
    expect(bindParameters("where s like '%{{symbol}}%'", params, { symbol: "o'clock" })).toBe(
      "where s like '%o''clock%'",
    );
  });

  it('normalizes datetimes and dates, and accepts ISO forms', () => {
    expect(bindParameters('{{start}}', params, { start: '2026-10-01T12:30:00Z' })).toBe(
      "TIMESTAMP '2026-10-01 12:30:00'",
    );
    expect(bindParameters('{{day}}', params)).toBe("TIMESTAMP '2026-10-05 00:00:00'");
  });

  it('escapes enum options that contain quotes', () => {
    expect(bindParameters('{{chain}}', params, { chain: "it's" })).toBe("'it''s'");
  });

  it.each([
    [{ min_usd: '10; drop table x' }, /Parameter "min_usd" must be a number/],
    [{ min_usd: '' }, /"min_usd" has no value/],
    [{ start: '2026-02-30' }, /Parameter "start" must be a date or datetime/],
    [{ start: "2026-01-01' or '1'='1" }, /Parameter "start" must be a date or datetime/],
    [{ chain: 'solana' }, /Parameter "chain" must be one of "ethereum", "base"/],
    [{ nope: 1 }, /Unknown parameter "nope"; this query has parameters "chain"/],
    [{ chain: ['ethereum', 'base'] }, /"chain" takes one value, not a list/],
  ])('rejects %j naming the parameter', (overrides, message) => {
    expect(() =>
      bindParameters('select {{chain}}, {{min_usd}}, {{start}}', params, overrides as never),
    ).toThrow(message);
  });

  it('refuses placeholders inside quoted identifiers and undeclared placeholders', () => {
    expect(() => bindParameters('select "{{symbol}}"', params)).toThrow(/double-quoted identifier/);
    expect(() => bindParameters('select {{other}}', params)).toThrow(/no parameter "other"/);
  });

  it('binds multiselect enums as a list of literals', () => {
    const multi: QueryParameter[] = [
      { key: 'chains', type: 'enum', value: 'base', enumOptions: ['ethereum', 'base'], isMultiselect: true },
    ];
    expect(bindParameters('where blockchain in ({{chains}})', multi, { chains: ['ethereum', 'base'] })).toBe(
      "where blockchain in ('ethereum', 'base')",
    );
  });

  it('validates definitions when a query is saved', () => {
    expect(() => validateParameterDefinitions('select {{a}}', [])).toThrow(
      /uses \{\{a\}\} but no parameter "a" is declared/,
    );
    expect(() =>
      validateParameterDefinitions('select {{a}}', [{ key: 'a', type: 'number', value: 'abc' }]),
    ).toThrow(/must be a number/);
    expect(() =>
      validateParameterDefinitions('select {{a}}', [{ key: 'a', type: 'enum', value: 'x' }]),
    ).toThrow(/needs enumOptions/);
    expect(() =>
      validateParameterDefinitions('select {{a}}', [
        { key: 'a', type: 'text', value: '' },
        { key: 'a', type: 'text', value: '' },
      ]),
    ).toThrow(/declared twice/);
  });
});
