import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../functions/core/errors';
import { bindParameters } from '../../functions/core/parameters';
import type { QueryParameter } from '../../functions/core/queries';
import { inlineStatement, parseQueryViewName, positionAsWritten } from '../../functions/core/query-views';
import { translate } from '../../functions/dunesql';
import { DuneSqlTableReferenceParser } from '../../functions/dunesql/table-references';

const parser = new DuneSqlTableReferenceParser();

/** Each query view call as written in `sql`, with whether it has its own alias. */
async function calls(sql: string) {
  return (await parser.queryViewsCalledBy(sql)).map((call) => ({
    written: sql.slice(call.start, call.end),
    name: call.name,
    aliased: call.aliased,
  }));
}

describe('finding query views in a statement', () => {
  it('finds every call in FROM, joins, subqueries, CTE bodies and set operations, in order', async () => {
    expect(
      await calls(
        `with a as (select * from query_1) select * from query_2 q join "query_3(chain='base')" on true, a
         where x in (select y from Query_4) union all select * from query_2`,
      ),
    ).toEqual([
      { written: 'query_1', name: 'query_1', aliased: false },
      { written: 'query_2', name: 'query_2', aliased: true },
      { written: `"query_3(chain='base')"`, name: "query_3(chain='base')", aliased: false },
      { written: 'Query_4', name: 'Query_4', aliased: false },
      { written: 'query_2', name: 'query_2', aliased: false },
    ]);
  });

  it('leaves CTEs of the same name, qualified tables and other names alone', async () => {
    expect(await calls('with query_1 as (select 1 as x) select * from query_1')).toEqual([]);
    expect(await calls('select * from dune.query_1, query_12x, my_query_1, "query_1 "')).toEqual([]);
    // A name that starts like a call with parameters is one, so its mistakes are reported as such.
    expect(await calls(`select * from "query_1(chain='base'"`)).toEqual([
      { written: `"query_1(chain='base'"`, name: "query_1(chain='base'", aliased: false },
    ]);
    expect(await calls('select query_1 from t where query_1 > 0')).toEqual([]);
  });

  it('gives offsets in the text as written, after 0x literals and characters outside the BMP', async () => {
    const sql = "select 0xabc as a, '😀é' as b from query_7 where 0x01 = 0x1";
    expect(await calls(sql)).toEqual([{ written: 'query_7', name: 'query_7', aliased: false }]);
  });
});

describe('reading a query view name', () => {
  it("reads the id and the parameters, with \\' and \\\\ escapes", () => {
    expect(parseQueryViewName('query_42')).toEqual({ queryId: 42, arguments: new Map() });
    expect(parseQueryViewName('QUERY_42()')).toEqual({ queryId: 42, arguments: new Map() });
    expect(
      parseQueryViewName(String.raw`query_42( chain = 'base' ,token='\'WETH\'', path='a\\b', empty='')`),
    ).toEqual({
      queryId: 42,
      arguments: new Map([
        ['chain', 'base'],
        ['token', "'WETH'"],
        ['path', 'a\\b'],
        ['empty', ''],
      ]),
    });
  });

  it.each([
    ['query_1(chain=base)', /the value of "chain" must be in single quotes/],
    ["query_1(chain='base'", /Cannot read the query view "query_1\(chain='base'": write query_<id>, or/],
    ["query_1(chain='base)", /the value of "chain" has no closing quote/],
    ["query_1(chain='a' token='b')", /expected a comma after the value of "chain"/],
    ["query_1(chain='a',)", /a comma ends the list/],
    ["query_1(chain='a', chain='b')", /"chain" is given twice/],
    ["query_1('a')", /expected name='value'/],
    ["query_1(1x='a')", /"1x" is not a parameter name/],
    ['query_0', /query ids are positive integers/],
  ])('refuses %s, saying how to write it', (name, why) => {
    expect(() => parseQueryViewName(name)).toThrow(BadRequestError);
    expect(() => parseQueryViewName(name)).toThrow(why);
  });
});

describe("a called query's SQL inlined", () => {
  it('drops comments and a final semicolon, and puts the statement on one line outside strings', () => {
    expect(
      inlineStatement(
        '-- daily volume\nselect a, -- first\n  \'x\ny\' as "multi\nline" /* c */ from t;\n-- end\n',
      ),
    ).toBe('select a, \'x\ny\' as "multi\nline" from t');
    expect(inlineStatement("select 'it''s -- not a comment' as s ; ;")).toBe(
      "select 'it''s -- not a comment' as s",
    );
  });
});

describe('parameters of a called query', () => {
  const params: QueryParameter[] = [
    { key: 'chain', type: 'text', value: 'ethereum' },
    { key: 'n', type: 'number', value: '5' },
  ];

  it('puts passed values in as SQL text and binds the rest from their defaults', () => {
    const sql = "select * from t where chain = '{{chain}}' and x = {{chain}} limit {{n}}";
    expect(bindParameters(sql, params, {}, new Map([['chain', 'base']]))).toBe(
      "select * from t where chain = 'base' and x = base limit 5",
    );
  });

  it("passes a caller's values into a view's name escaped for it, so they stay data", () => {
    const caller: QueryParameter[] = [
      { key: 'c', type: 'text', value: `it's "x" \\ y` },
      { key: 'since', type: 'datetime', value: '2024-01-02' },
      { key: 'tokens', type: 'enum', value: 'a', isMultiselect: true, enumOptions: ['a', "b'c"] },
    ];
    const sql = `select * from "query_9(chain='{{c}}', since='{{since}}', tokens='{{tokens}}')"`;
    const bound = bindParameters(sql, caller, { tokens: ['a', "b'c"] });
    expect(bound).toBe(
      String.raw`select * from "query_9(chain='it\'\'s ""x"" \\ y', since='2024-01-02 00:00:00', tokens='\'a\', \'b\'\'c\'')"`,
    );
    // Read back by the parser and the view name reader: the SQL text the called query receives.
    const name = bound.slice(bound.indexOf('"') + 1, bound.lastIndexOf('"')).replaceAll('""', '"');
    expect(parseQueryViewName(name).arguments).toEqual(
      new Map([
        ['chain', `it''s "x" \\ y`],
        ['since', '2024-01-02 00:00:00'],
        ['tokens', "'a', 'b''c'"],
      ]),
    );
    expect(() => bindParameters('select "{{c}}" from t', caller)).toThrow(/double-quoted identifier/);
  });
});

describe('an inlined view on Athena', () => {
  it('translates to Trino with the subquery under the name the caller used', async () => {
    const expanded = `select q.blockchain from (select blockchain, count(*) as trades from dex.trades where blockchain = 'base' group by 1) q join (select 1 as x) AS "query_3(chain='base')" on true`;
    const translation = await translate(expanded, 'athena');
    expect(translation.sql).toMatch(/AS "query_3\(chain='base'\)"/);
  });
});

describe('positionAsWritten', () => {
  // What the user wrote, and what ran: query_7 inlined on line 2, query_8 on line 3.
  const written = 'select a,\n  b from query_7 join "query_8(x=\'1\')" q\n  on q.id = b where c > 1';
  const body7 = '(select 1 as b, 2 as id) AS query_7';
  const body8 = '(select 3 as id)';
  const ran = written.replace('query_7', body7).replace('"query_8(x=\'1\')"', body8);
  const start7 = ran.indexOf(body7);
  const start8 = ran.indexOf(body8);
  const views = [
    { start: start8, end: start8 + body8.length, text: '"query_8(x=\'1\')"' },
    { start: start7, end: start7 + body7.length, text: 'query_7' },
  ];
  const at = (text: string, from = 0) => {
    const offset = ran.indexOf(text, from);
    const before = ran.slice(0, offset);
    return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
  };

  it('leaves a position before any view, and one on a line without views, as it is', () => {
    expect(positionAsWritten(ran, views, { line: 1, column: 8 })).toEqual({
      position: { line: 1, column: 8 },
    });
    expect(positionAsWritten(ran, views, at('c > 1'))).toEqual({ position: { line: 3, column: 21 } });
  });

  it('reports a position inside a called query at its call, naming it', () => {
    expect(positionAsWritten(ran, views, at('2 as id'))).toEqual({
      position: { line: 2, column: 10 },
      view: 'query_7',
    });
    expect(positionAsWritten(ran, views, at('3 as id'))).toEqual({
      position: { line: 2, column: 23 },
      view: '"query_8(x=\'1\')"',
    });
  });

  it('moves a position after a view back by what the inlining added', () => {
    const column = written.split('\n')[1]!.lastIndexOf(' q') + 1;
    expect(positionAsWritten(ran, views, at(' q\n'))).toEqual({ position: { line: 2, column } });
    expect(column).toBe(39);
  });

  it('leaves a position outside the SQL alone', () => {
    expect(positionAsWritten(ran, views, { line: 9, column: 1 })).toEqual({
      position: { line: 9, column: 1 },
    });
  });
});
