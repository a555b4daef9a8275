import { describe, expect, it } from 'vitest';
import type { UploadColumn, UploadColumnType } from '../../functions/core/uploads';
import { csvLines, inferCsvColumns, ndjsonLines, readCsv } from '../../functions/uploads/rows';

const column = (type: UploadColumnType, nullable = true): UploadColumn => ({ name: 'v', type, nullable });

/** The stored text of one CSV value of the type, or the error it raises. */
async function stored(type: UploadColumnType, value: string): Promise<string | null> {
  const [line] = await csvLines(`v\n${value}\n`, [column(type)]);
  return (JSON.parse(line!) as { c0: string | null }).c0;
}

describe('upload values', () => {
  it('writes each type in one canonical text both engines cast back exactly', async () => {
    expect(await stored('varbinary', '0xC02aAA')).toBe('0xc02aaa');
    expect(await stored('varbinary', '0x')).toBe('0x');
    expect(await stored('uint256', '+007')).toBe('7');
    expect(await stored('uint256', '9'.repeat(38))).toBe('9'.repeat(38));
    expect(await stored('int256', `-${'9'.repeat(38)}`)).toBe(`-${'9'.repeat(38)}`);
    expect(await stored('bigint', '-9223372036854775808')).toBe('-9223372036854775808');
    expect(await stored('integer', '2147483647')).toBe('2147483647');
    expect(await stored('double', '1e3')).toBe('1000');
    expect(await stored('double', '-.5')).toBe('-0.5');
    expect(await stored('boolean', 'TRUE')).toBe('true');
    expect(await stored('date', '2024-02-29')).toBe('2024-02-29');
    expect(await stored('timestamp', '2024-02-29')).toBe('2024-02-29 00:00:00.000');
    expect(await stored('timestamp', '2024-01-01T00:30:00-0230')).toBe('2024-01-01 03:00:00.000');
    expect(await stored('timestamp', '2024-01-01 12:00')).toBe('2024-01-01 12:00:00.000');
    expect(await stored('timestamp', '2024-01-01T12:00:00.123456789Z')).toBe('2024-01-01 12:00:00.123');
    expect(await stored('timestamp', '2024-01-01 12:00:00 UTC')).toBe('2024-01-01 12:00:00.000');
    expect(await stored('varchar', ' keeps  spaces ')).toBe(' keeps  spaces ');
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
  ] as const)(
    'refuses %s %j, naming the row, the column and the form it wants',
    async (type, value, message) => {
      await expect(stored(type, value)).rejects.toThrow(
        new RegExp(`CSV row 1, column v: .*${message.source}`),
      );
    },
  );

  it('reads an empty CSV field as NULL, a quoted empty one as the empty string; NOT NULL columns refuse NULL', async () => {
    const columns = [column('varchar'), { name: 'w', type: 'varchar', nullable: true } as UploadColumn];
    expect(await csvLines('v,w\n,""\n', columns)).toEqual(['{"c0":null,"c1":""}']);
    await expect(csvLines('v\n""\n', [column('bigint', false)])).rejects.toThrow(/"" is not an integer/);
    await expect(csvLines('v\n\n1\n,\n', [column('bigint', false)])).rejects.toThrow(
      /CSV row 2 has 2 fields/,
    );
    await expect(csvLines('v\n"1\n', [column('bigint', false)])).rejects.toThrow(/The CSV cannot be read/);
  });

  it('reads a body of many slices whole, an emoji across a slice boundary included', async () => {
    const columns: UploadColumn[] = [{ name: 'label', type: 'varchar', nullable: true }];
    // The header and 65,535 characters put the emoji's two UTF-16 halves on either side of 64 Ki.
    const padding = 'x'.repeat(64 * 1024 - 'label\n'.length - 1);
    const lines = await csvLines(`label\n${padding}😀\nä\n`, columns);
    expect(lines.map((line) => JSON.parse(line).c0)).toEqual([`${padding}😀`, 'ä']);
    const many = await csvLines(`label\n${'row\n'.repeat(50_000)}`, columns);
    expect(many).toHaveLength(50_000);
  });

  it('takes a BOM, CRLF line ends, header names in any case and order, and leaves absent nullable columns NULL', async () => {
    const columns: UploadColumn[] = [
      { name: 'a', type: 'integer', nullable: true },
      { name: 'b', type: 'varchar', nullable: true },
      { name: 'c', type: 'boolean', nullable: true },
    ];
    expect(await csvLines('\uFEFFB, A \r\nx,1\r\n', columns)).toEqual(['{"c0":"1","c1":"x","c2":null}']);
  });

  it('reads NDJSON objects by key, numbers and booleans as their text, and refuses what JSON cannot carry exactly', async () => {
    const columns: UploadColumn[] = [
      { name: 'n', type: 'bigint', nullable: true },
      { name: 'label', type: 'varchar', nullable: true },
      { name: 'ok', type: 'boolean', nullable: true },
    ];
    expect(await ndjsonLines('{"n": 5, "label": 12, "ok": true}\n\n{"LABEL": null}\n', columns)).toEqual([
      '{"c0":"5","c1":"12","c2":"true"}',
      '{"c0":null,"c1":null,"c2":null}',
    ]);
    await expect(ndjsonLines('{"n": 9007199254740993}', columns)).rejects.toThrow(/send it as a string/);
    expect((await ndjsonLines('{"n": "9007199254740993"}', columns))[0]).toContain('"9007199254740993"');
  });

  it('infers bigint, double, boolean, date and timestamp columns from a CSV, varchar otherwise', async () => {
    const csv = [
      'Id,Price ($),Live,Day,Seen At,Note,Empty,Address',
      '1,1.5,true,2024-01-01,2024-01-01T00:00:00Z,x,,0xab',
      '2,2,False,2024-01-02,2024-01-02,7,,0xcd',
    ].join('\n');
    expect(inferCsvColumns(await readCsv(csv)).map(({ name, type }) => `${name} ${type}`)).toEqual([
      'id bigint',
      'price double',
      'live boolean',
      'day date',
      'seen_at timestamp',
      'note varchar',
      'empty varchar',
      'address varchar',
    ]);
    const infer = async (text: string) => inferCsvColumns(await readCsv(text));
    await expect(infer('1st,b\n1,2\n')).rejects.toThrow(/column 1 \("1st"\) cannot be a column name/);
    await expect(infer('a,A\n1,2\n')).rejects.toThrow(
      /header columns 1 \("a"\) and 2 \("A"\) both become the column name a: rename one/,
    );
    await expect(infer('a,b,a\n1,2,3\n')).rejects.toThrow(/names a twice \(columns 1 \("a"\) and 3/);
    await expect(infer('')).rejects.toThrow(/The CSV is empty/);
  });

  it('reads a CSV upload by its normalized header names; an insert matches names as written', async () => {
    const csv = await readCsv('Token Address,label\n0xab,x\n');
    const columns = inferCsvColumns(csv);
    expect(columns.map((c) => c.name)).toEqual(['token_address', 'label']);
    expect(await csvLines(csv, columns, 'normalized')).toEqual(['{"c0":"0xab","c1":"x"}']);
    await expect(csvLines(csv, columns)).rejects.toThrow(
      /"Token Address", which is not a column of the table \(token_address, label\); name it token_address in the header/,
    );
    const clash = await readCsv('Token Address,token-address\n1,2\n');
    await expect(
      csvLines(clash, [{ name: 'token_address', type: 'bigint', nullable: true }], 'normalized'),
    ).rejects.toThrow(
      /\("Token Address"\) and 2 \("token-address"\) both become the column name token_address/,
    );
  });
});
