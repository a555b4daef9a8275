import { describe, expect, it } from 'vitest';
import type { UploadColumn, UploadColumnType } from '../../functions/core/uploads';
import { csvLines, inferCsvColumns, ndjsonLines } from '../../functions/uploads/rows';

const column = (type: UploadColumnType, nullable = true): UploadColumn => ({ name: 'v', type, nullable });

/** The stored text of one CSV value of the type, or the error it raises. */
function stored(type: UploadColumnType, value: string): string | null {
  return (JSON.parse(csvLines(`v\n${value}\n`, [column(type)])[0]!) as { c0: string | null }).c0;
}

describe('upload values', () => {
  it('writes each type in one canonical text both engines cast back exactly', () => {
    expect(stored('varbinary', '0xC02aAA')).toBe('0xc02aaa');
    expect(stored('varbinary', '0x')).toBe('0x');
    expect(stored('uint256', '+007')).toBe('7');
    expect(stored('uint256', '9'.repeat(38))).toBe('9'.repeat(38));
    expect(stored('int256', `-${'9'.repeat(38)}`)).toBe(`-${'9'.repeat(38)}`);
    expect(stored('bigint', '-9223372036854775808')).toBe('-9223372036854775808');
    expect(stored('integer', '2147483647')).toBe('2147483647');
    expect(stored('double', '1e3')).toBe('1000');
    expect(stored('double', '-.5')).toBe('-0.5');
    expect(stored('boolean', 'TRUE')).toBe('true');
    expect(stored('date', '2024-02-29')).toBe('2024-02-29');
    expect(stored('timestamp', '2024-02-29')).toBe('2024-02-29 00:00:00.000');
    expect(stored('timestamp', '2024-01-01T00:30:00-0230')).toBe('2024-01-01 03:00:00.000');
    expect(stored('timestamp', '2024-01-01 12:00')).toBe('2024-01-01 12:00:00.000');
    expect(stored('timestamp', '2024-01-01T12:00:00.123456789Z')).toBe('2024-01-01 12:00:00.123');
    expect(stored('timestamp', '2024-01-01 12:00:00 UTC')).toBe('2024-01-01 12:00:00.000');
    expect(stored('varchar', ' keeps  spaces ')).toBe(' keeps  spaces ');
  });

  it.each([
    ['varbinary', '0xabc', /0x-prefixed hex string of whole bytes/],
    ['varbinary', 'abcd', /0x-prefixed/],
    ['uint256', '-1', /non-negative integer/],
    ['uint256', '1'.repeat(39), /at most 38 digits/],
    ['integer', '2147483648', /between -2\^31 and 2\^31-1/],
    ['bigint', '1.0', /between -2\^63/],
    ['double', 'NaN', /finite number/],
    ['double', '1e400', /finite number/],
    ['boolean', 'yes', /true or false/],
    ['date', '2023-02-29', /a date such as/],
    ['timestamp', '2024-01-01T24:00:00Z', /ISO 8601 timestamp/],
    ['timestamp', '01/02/2024', /ISO 8601 timestamp/],
  ] as const)('refuses %s %j, naming the row, the column and the form it wants', (type, value, message) => {
    expect(() => stored(type, value)).toThrow(new RegExp(`CSV row 1, column v: .*${message.source}`));
  });

  it('reads an empty CSV field as NULL, a quoted empty one as the empty string; NOT NULL columns refuse NULL', () => {
    const columns = [column('varchar'), { name: 'w', type: 'varchar', nullable: true } as UploadColumn];
    expect(csvLines('v,w\n,""\n', columns)).toEqual(['{"c0":null,"c1":""}']);
    expect(() => csvLines('v\n""\n', [column('bigint', false)])).toThrow(/"" is not an integer/);
    expect(() => csvLines('v\n\n1\n,\n', [column('bigint', false)])).toThrow(/CSV row 2 has 2 fields/);
  });

  it('takes a BOM, CRLF line ends, header names in any case and order, and leaves absent nullable columns NULL', () => {
    const columns: UploadColumn[] = [
      { name: 'a', type: 'integer', nullable: true },
      { name: 'b', type: 'varchar', nullable: true },
      { name: 'c', type: 'boolean', nullable: true },
    ];
    expect(csvLines('\uFEFFB, A \r\nx,1\r\n', columns)).toEqual(['{"c0":"1","c1":"x","c2":null}']);
  });

  it('reads NDJSON objects by key, numbers and booleans as their text, and refuses what JSON cannot carry exactly', () => {
    const columns: UploadColumn[] = [
      { name: 'n', type: 'bigint', nullable: true },
      { name: 'label', type: 'varchar', nullable: true },
      { name: 'ok', type: 'boolean', nullable: true },
    ];
    expect(ndjsonLines('{"n": 5, "label": 12, "ok": true}\n\n{"LABEL": null}\n', columns)).toEqual([
      '{"c0":"5","c1":"12","c2":"true"}',
      '{"c0":null,"c1":null,"c2":null}',
    ]);
    expect(() => ndjsonLines('{"n": 9007199254740993}', columns)).toThrow(/send it as a string/);
    expect(ndjsonLines('{"n": "9007199254740993"}', columns)[0]).toContain('"9007199254740993"');
  });

  it('infers bigint, double, boolean, date and timestamp columns from a CSV, varchar otherwise', () => {
    const csv = [
      'Id,Price ($),Live,Day,Seen At,Note,Empty,Address',
      '1,1.5,true,2024-01-01,2024-01-01T00:00:00Z,x,,0xab',
      '2,2,False,2024-01-02,2024-01-02,7,,0xcd',
    ].join('\n');
    expect(inferCsvColumns(csv).map(({ name, type }) => `${name} ${type}`)).toEqual([
      'id bigint',
      'price double',
      'live boolean',
      'day date',
      'seen_at timestamp',
      'note varchar',
      'empty varchar',
      'address varchar',
    ]);
    expect(() => inferCsvColumns('1st,b\n1,2\n')).toThrow(/column 1 \("1st"\) cannot be a column name/);
    expect(() => inferCsvColumns('a,A\n1,2\n')).toThrow(/names the column a twice/);
    expect(() => inferCsvColumns('')).toThrow(/The CSV is empty/);
  });
});
