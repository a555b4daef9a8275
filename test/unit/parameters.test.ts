import { describe, expect, it } from 'vitest';
import {
  bindParameters,
  effectiveParameterValues,
  parametersFromValues,
  placeholdersIn,
  usedParameterValues,
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
    // Past any number type (it would bind as Infinity), refused as Infinity itself is.
    [{ min_usd: '1e400' }, /Parameter "min_usd" must be a number, got "1e400"/],
    [{ min_usd: '-1E+400' }, /Parameter "min_usd" must be a number, got "-1E\+400"/],
    [{ min_usd: 'Infinity' }, /Parameter "min_usd" must be a number, got "Infinity"/],
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
      validateParameterDefinitions('select {{a}}', [
        { key: 'a', type: 'text', value: '' },
        { key: 'a', type: 'text', value: '' },
      ]),
    ).toThrow(/declared twice/);
  });

  it('an enum without options (as the Dune SDKs create them) or with isFreeformAllowed takes any value', () => {
    const bare: QueryParameter[] = [{ key: 'chain', type: 'enum', value: 'ethereum' }];
    expect(bindParameters('where c = {{chain}}', bare, { chain: 'base' })).toBe("where c = 'base'");
    const freeform: QueryParameter[] = [
      { key: 'chain', type: 'enum', value: 'ethereum', enumOptions: ['ethereum'], isFreeformAllowed: true },
    ];
    expect(bindParameters('where c = {{chain}}', freeform, { chain: "it's" })).toBe("where c = 'it''s'");
  });

  it('types bare default values by their value, keeping the declared type of known names', () => {
    expect(parametersFromValues({ n: '5', at: '2024-03-05 10:00:00', s: 'base', f: 1.5 })).toEqual([
      { key: 'n', type: 'number', value: '5' },
      { key: 'at', type: 'datetime', value: '2024-03-05 10:00:00' },
      { key: 's', type: 'text', value: 'base' },
      { key: 'f', type: 'number', value: '1.5' },
    ]);
    expect(parametersFromValues({ big: '1e400' })).toEqual([{ key: 'big', type: 'text', value: '1e400' }]);
    const declared: QueryParameter[] = [{ key: 'code', type: 'text', value: 'a' }];
    expect(parametersFromValues({ code: '42' }, declared)).toEqual([
      { key: 'code', type: 'text', value: '42' },
    ]);
  });

  it('matches a run by the values asked for', () => {
    const run = effectiveParameterValues(
      [
        { key: 'chain', type: 'text', value: 'ethereum' },
        { key: 'n', type: 'number', value: '5' },
      ],
      { n: 7 },
    );
    expect(run).toEqual({ chain: 'ethereum', n: '7' });
    expect(usedParameterValues(run, { n: '7' })).toBe(true);
    expect(usedParameterValues(run, { chain: 'ethereum', n: '7' })).toBe(true);
    expect(usedParameterValues(run, { n: '5' })).toBe(false);
  });
});
