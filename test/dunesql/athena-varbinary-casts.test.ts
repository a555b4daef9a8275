import { DuckDBInstance } from '@duckdb/node-api';
import { Dialect, parse } from '@polyglot-sql/sdk';
import { describe, expect, it } from 'vitest';
import { athenaTableSchemas } from '../../functions/aws/catalog/glue-tables';
import { BASE_TABLES } from '../../functions/datasets/base-tables';
import { DUCKDB_SESSION_SETUP, translate } from '../../functions/dunesql';
import { registerDuneFunctions } from '../../functions/local/engine/dune-functions';

/**
 * The Athena translation's typed rewrites. DuneSQL's cast of varbinary to varchar (`0x` and
 * lowercase hex) does not exist in Athena's Trino: it is written as `'0x' || lower(to_hex(x))`
 * wherever the operand is known to be varbinary, and every other cast is left alone. And uint256
 * and int256, decimal(38,0) on Athena, compute as DuneSQL computes them (athena-wide-integers.ts).
 */
const TABLES = athenaTableSchemas(BASE_TABLES);

async function athena(sql: string): Promise<string> {
  const translation = await translate(sql, 'athena', { tables: TABLES });
  // Whatever is rewritten still parses as Trino.
  const parsed = parse(translation.sql, Dialect.Trino);
  expect(parsed.success, `${parsed.error}\n${translation.sql}`).toBe(true);
  return translation.sql;
}

const HEX = (operand: string) => `'0x' || LOWER(TO_HEX(${operand}))`;

describe('casts of varbinary to varchar on Athena', () => {
  it('rewrites a stored varbinary column in the select list, WHERE, JOIN and GROUP BY', async () => {
    const sql = await athena(
      `select cast(t.tx_hash as varchar) as h, try_cast(taker as varchar(42)) as who, count(*) as n
       from dex.trades t join tokens.erc20 e on cast(e.contract_address as varchar) = cast(t.token_bought_address as varchar)
       where cast(t.tx_to as varchar) <> '0x00'
       group by cast(t.tx_hash as varchar), try_cast(taker as varchar(42))`,
    );
    expect(sql).toContain(`${HEX('t.tx_hash')} AS h`);
    expect(sql).toContain(`${HEX('taker')} AS who`);
    expect(sql).toContain(`ON ${HEX('e.contract_address')} = ${HEX('t.token_bought_address')}`);
    expect(sql).toContain(`WHERE ${HEX('t.tx_to')} <> '0x00'`);
    expect(sql).toContain(`GROUP BY ${HEX('t.tx_hash')}, ${HEX('taker')}`);
    expect(sql).not.toMatch(/CAST\(|TRY_CAST\(/);
  });

  it('follows CTEs, subqueries, scalar subqueries and set operations, and types calls and literals', async () => {
    expect(
      await athena(
        `with x as (select tx_hash as h, blockchain from dex.trades)
         select cast(h as varchar) as h, cast(blockchain as varchar) as chain from x`,
      ),
    ).toContain(`SELECT ${HEX('h')} AS h, CAST(blockchain AS VARCHAR) AS chain FROM x`);
    expect(
      await athena(`select cast(q.h as varchar) from (select max(tx_hash) as h from dex.trades) q`),
    ).toContain(HEX('q.h'));
    expect(
      await athena(`select (select cast(max(hash) as varchar) from ethereum.transactions) as m`),
    ).toContain(HEX('MAX(hash)'));
    const union = await athena(
      `select cast(tx_hash as varchar) as h from dex.trades union all select cast(hash as varchar) from ethereum.transactions`,
    );
    expect(union).toContain(HEX('tx_hash'));
    expect(union).toContain(HEX('hash'));
    expect(
      await athena(`select cast(0xdead as varchar) as a, cast(from_hex('00ff') as varchar) as b`),
    ).toContain(`${HEX(`x'dead'`)} AS a, ${HEX(`FROM_HEX(REGEXP_REPLACE('00ff', '^0[xX]', ''))`)} AS b`);
  });

  it('types what varbinary functions return, Dune’s (rewritten to Trino) and Trino’s', async () => {
    const sql = await athena(
      `select cast(varbinary_substring(data, 13, 20) as varchar) as a, cast(bytearray_ltrim(topic1) as varchar) as b,
              cast(lpad(contract_address, 32, 0x00) as varchar) as c, cast(sha256(data) as varchar) as d,
              cast(varbinary_concat(topic1, 0x01) as varchar) as e, cast(to_utf8('x') as varchar) as f,
              cast(coalesce(topic2, topic3) as varchar) as g, cast(data || topic1 as varchar) as h,
              cast(substr('abc', 2) as varchar) as i
       from ethereum.logs`,
    );
    expect(sql.match(/TO_HEX\(/g)).toHaveLength(8 + 1); // bytearray_ltrim's own rewrite reads the hex too
    expect(sql).toContain(`${HEX('SUBSTR(data, 13, 20)')} AS a`);
    expect(sql).toContain(`${HEX("LPAD(contract_address, 32, x'00')")} AS c`);
    expect(sql).toContain(`${HEX('SHA256(data)')} AS d`);
    expect(sql).toContain(`${HEX("CONCAT(topic1, x'01')")} AS e`);
    expect(sql).toContain(`${HEX('COALESCE(topic2, topic3)')} AS g`);
    expect(sql).toContain(`${HEX('data || topic1')} AS h`);
    expect(sql).toContain(`CAST(SUBSTR('abc', 2) AS VARCHAR) AS i`);
  });

  it('leaves other casts, and operands of unknown type, to Trino', async () => {
    const sql = await athena(
      `select cast(block_time as varchar) as t, cast(amount_usd as varchar) as a, cast(blockchain as varchar) as b,
              cast(nope as varchar) as unknown_column, cast(tx_hash as varbinary) as same, cast(tx_hash as varchar) as h
       from dex.trades cross join unnest(array[1]) as u (nope)`,
    );
    expect(sql).toContain(
      `SELECT CAST(block_time AS VARCHAR) AS t, CAST(amount_usd AS VARCHAR) AS a, CAST(blockchain AS VARCHAR) AS b, CAST(nope AS VARCHAR) AS unknown_column, CAST(tx_hash AS VARBINARY) AS same, ${HEX('tx_hash')} AS h`,
    );
    // A table the catalog does not hold: nothing is known of its columns.
    expect(await athena(`select cast(h as varchar) from somewhere.else`)).not.toContain('TO_HEX');
  });

  it('gives the text DuneSQL’s cast gives, NULL included', async () => {
    // The rewritten expression and DuneSQL's own cast, both run by the local engine.
    const rewritten = await athena(
      `select cast(from_hex('00ABff') as varchar) as a, cast(from_hex('') as varchar) as b, cast(cast(null as varbinary) as varchar) as c`,
    );
    expect(rewritten).toContain('TO_HEX');
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      await registerDuneFunctions(connection);
      for (const statement of DUCKDB_SESSION_SETUP) await connection.run(statement);
      const rows = async (sql: string) =>
        (await connection.runAndReadAll((await translate(sql, 'duckdb')).sql)).getRowsJson();
      const dune = await rows(
        `select cast(from_hex('00ABff') as varchar) as a, cast(from_hex('') as varchar) as b, cast(cast(null as varbinary) as varchar) as c`,
      );
      expect(dune).toEqual([['0x00abff', '0x', null]]);
      expect(await rows(rewritten)).toEqual(dune);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});

describe('uint256 and int256 arithmetic on Athena', () => {
  it.each([
    // A decimal division would round half up; DuneSQL's uint256 division truncates.
    ['select value / 1000000 as v from ethereum.transactions', '((value - value % 1000000) / 1000000) AS v'],
    [
      'select sum(value) / count(*) as v from ethereum.transactions',
      '((SUM(value) - SUM(value) % COUNT(*)) / COUNT(*)) AS v',
    ],
    [
      'select cast(x as uint256) / 3 as v from (values 7) as t (x)',
      '((CAST(x AS DECIMAL(38, 0)) - CAST(x AS DECIMAL(38, 0)) % 3) / 3) AS v',
    ],
    // With a fraction, a double (a decimal(38, 1) would overflow past 10^37).
    [
      'select value * 1.5 as v from ethereum.transactions',
      'CAST(value AS DOUBLE) * CAST(1.5 AS DOUBLE) AS v',
    ],
    [
      'select 0.5 + value as v from ethereum.transactions',
      'CAST(0.5 AS DOUBLE) + CAST(value AS DOUBLE) AS v',
    ],
  ])('%s', async (sql, expected) => {
    expect(await athena(sql)).toContain(expected);
  });

  it('leaves other numbers, and operands of unknown type, to Trino', async () => {
    const sql =
      'select fee / input_value as a, value * 2 as b, gas_used / 2 as c, x / 2 as d from bitcoin.transactions, ethereum.transactions, (values 1) as t (x)';
    expect(await athena(sql)).toBe(sql);
  });
});
