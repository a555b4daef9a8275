import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError } from '../../functions/core/errors';
import { normalizeTableName, type TableReference } from '../../functions/core/lineage';
import { DuckDbTableReferenceParser } from '../../functions/local/engine/table-references';

let parser: DuckDbTableReferenceParser;

beforeAll(() => {
  parser = new DuckDbTableReferenceParser();
});

afterAll(async () => {
  await parser.close();
});

/** The normalized names of the tables `sql` reads, in order of first appearance. */
async function tables(sql: string): Promise<string[]> {
  return (await parser.tablesReadBy(sql)).map(normalizeTableName);
}

async function rejection(sql: string): Promise<BadRequestError> {
  try {
    await parser.tablesReadBy(sql);
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).kind).toBe('bad_request');
    return error as BadRequestError;
  }
  throw new Error(`expected a BadRequestError for: ${sql}`);
}

describe('normalizeTableName', () => {
  it('lower-cases and joins the parts that are present', () => {
    expect(normalizeTableName({ schema: 'Dex', table: 'Trades' })).toBe('dex.trades');
    expect(normalizeTableName({ catalog: 'Service', schema: 'local', table: 'result_X' })).toBe(
      'service.local.result_x',
    );
    expect(normalizeTableName({ table: 'T' })).toBe('t');
    expect(normalizeTableName({ catalog: '', schema: '', table: 't' })).toBe('t');
  });
});

describe('DuckDbTableReferenceParser: FROM and joins', () => {
  it('reads a plain FROM and keeps the parts and the text as written', async () => {
    expect(await parser.tablesReadBy('SELECT * FROM dex.trades')).toEqual([
      { schema: 'dex', table: 'trades', text: 'dex.trades' },
    ]);
    expect(await tables('SELECT 1 FROM trades')).toEqual(['trades']);
  });

  it('reads FROM-first queries', async () => {
    expect(await tables('FROM dex.trades SELECT block_time, amount_usd')).toEqual(['dex.trades']);
    expect(await tables('FROM dex.trades')).toEqual(['dex.trades']);
    expect(await tables('FROM dex.trades t JOIN prices.usd p ON p.minute = t.block_time SELECT t.*')).toEqual(
      ['dex.trades', 'prices.usd'],
    );
  });

  it.each([
    ['comma', 'SELECT * FROM a.x, b.y'],
    ['inner', 'SELECT * FROM a.x JOIN b.y ON x.id = y.id'],
    ['left', 'SELECT * FROM a.x LEFT JOIN b.y ON x.id = y.id'],
    ['right outer', 'SELECT * FROM a.x RIGHT OUTER JOIN b.y USING (id)'],
    ['full outer', 'SELECT * FROM a.x FULL OUTER JOIN b.y ON true'],
    ['cross', 'SELECT * FROM a.x CROSS JOIN b.y'],
    ['natural', 'SELECT * FROM a.x NATURAL JOIN b.y'],
    ['semi', 'SELECT * FROM a.x SEMI JOIN b.y ON x.id = y.id'],
    ['anti', 'SELECT * FROM a.x ANTI JOIN b.y ON x.id = y.id'],
    ['asof', 'SELECT * FROM a.x ASOF JOIN b.y ON x.t >= y.t'],
    ['asof left', 'SELECT * FROM a.x ASOF LEFT JOIN b.y ON x.k = y.k AND x.t >= y.t'],
    ['positional', 'SELECT * FROM a.x POSITIONAL JOIN b.y'],
    ['lateral subquery', 'SELECT * FROM a.x, LATERAL (SELECT * FROM b.y WHERE y.id = x.id) l'],
    ['join lateral', 'SELECT * FROM a.x JOIN LATERAL (SELECT * FROM b.y WHERE y.id = x.id) l ON true'],
  ])('reads both sides of a %s join', async (_kind, sql) => {
    expect(await tables(sql)).toEqual(['a.x', 'b.y']);
  });

  it('reads chains of joins and parenthesized joins', async () => {
    expect(
      await tables('SELECT * FROM a.x JOIN (b.y LEFT JOIN c.z ON y.id = z.id) ON x.id = y.id CROSS JOIN d.w'),
    ).toEqual(['a.x', 'b.y', 'c.z', 'd.w']);
  });
});

describe('subqueries', () => {
  it('reads subqueries in FROM, WHERE (IN, EXISTS, ANY, scalar), SELECT, HAVING, ORDER BY and LIMIT', async () => {
    const sql = `
      SELECT (SELECT max(price) FROM prices.usd) AS top,
             EXISTS (SELECT 1 FROM tokens.transfers) AS any_transfer
      FROM (SELECT * FROM dex.trades) t
      WHERE t.taker IN (SELECT address FROM labels.addresses)
        AND EXISTS (SELECT 1 FROM labels.cex c WHERE c.address = t.taker)
        AND t.amount_usd > ANY (SELECT amount_usd FROM nft.trades)
        AND t.block_number < (SELECT max(number) FROM ethereum.blocks)
      GROUP BY 1, 2
      HAVING count(*) > (SELECT count(*) FROM bitcoin.blocks)
      ORDER BY (SELECT 1 FROM bitcoin.transactions LIMIT 1)
      LIMIT (SELECT 10 FROM ethereum.transactions LIMIT 1)`;
    expect(await tables(sql)).toEqual([
      'prices.usd',
      'tokens.transfers',
      'dex.trades',
      'labels.addresses',
      'labels.cex',
      'nft.trades',
      'ethereum.blocks',
      'bitcoin.blocks',
      'bitcoin.transactions',
      'ethereum.transactions',
    ]);
  });

  it('reads subqueries nested in subqueries and in CASE, function arguments and lambdas', async () => {
    const sql = `
      SELECT CASE WHEN x > 0 THEN (SELECT 1 FROM a.one) ELSE coalesce((SELECT 2 FROM a.two), 0) END,
             list_transform([1, 2], v -> v + (SELECT 3 FROM a.three))
      FROM (SELECT * FROM (SELECT * FROM a.deep WHERE id IN (SELECT id FROM a.deeper)))`;
    expect(await tables(sql)).toEqual(['a.one', 'a.two', 'a.three', 'a.deep', 'a.deeper']);
  });
});

describe('CTEs', () => {
  it('leaves out CTE names and reads the CTE bodies', async () => {
    expect(
      await tables(
        'WITH big AS (SELECT * FROM dex.trades WHERE amount_usd > 1e6) SELECT * FROM big JOIN big b2 ON true',
      ),
    ).toEqual(['dex.trades']);
  });

  it('follows CTEs that read other CTEs', async () => {
    const sql = `
      WITH a AS (SELECT * FROM dex.trades),
           b AS (SELECT * FROM a JOIN prices.usd p ON true),
           c AS (SELECT * FROM b UNION ALL SELECT * FROM a)
      SELECT * FROM c`;
    expect(await tables(sql)).toEqual(['dex.trades', 'prices.usd']);
  });

  it('treats a reference to a CTE defined later in the same WITH as a table (DuckDB does not see it)', async () => {
    expect(await tables('WITH x AS (SELECT * FROM later), later AS (SELECT 1) SELECT * FROM x')).toEqual([
      'later',
    ]);
  });

  it('reads materialized CTEs and CTEs on set operations', async () => {
    const sql = `WITH m AS MATERIALIZED (SELECT * FROM dex.trades), n AS NOT MATERIALIZED (SELECT * FROM prices.usd)
                 SELECT * FROM m UNION SELECT * FROM n`;
    expect(await tables(sql)).toEqual(['dex.trades', 'prices.usd']);
  });

  it('compares CTE names case-insensitively, quoted or not', async () => {
    expect(await tables('WITH Recent AS (SELECT * FROM dex.trades) SELECT * FROM recent, "RECENT"')).toEqual([
      'dex.trades',
    ]);
  });

  it('reads recursive CTEs: the anchor reads tables, the recursive part reads the CTE', async () => {
    const sql = `
      WITH RECURSIVE hops(address, depth) AS (
        SELECT "from", 0 FROM tokens.transfers WHERE "to" = '0x01'
        UNION ALL
        SELECT t."from", h.depth + 1 FROM hops h JOIN tokens.transfers t ON t."to" = h.address WHERE h.depth < 3
      )
      SELECT * FROM hops JOIN labels.addresses USING (address)`;
    expect(await tables(sql)).toEqual(['tokens.transfers', 'labels.addresses']);
  });

  it('reads a recursive CTE with USING KEY and its recurring table', async () => {
    const sql = `
      WITH RECURSIVE t(k, v) USING KEY (k) AS (
        SELECT k, v FROM base.seed
        UNION
        SELECT t.k, t.v + 1 FROM t JOIN recurring.t r USING (k) WHERE t.v < 5
      )
      SELECT * FROM t`;
    expect(await tables(sql)).toEqual(['base.seed']);
  });

  it('treats the name of a recursive CTE as a table in its anchor (as DuckDB binds it)', async () => {
    expect(
      await tables('WITH RECURSIVE t AS (SELECT * FROM t UNION ALL SELECT * FROM t) SELECT * FROM t'),
    ).toEqual(['t']);
    // Without UNION, WITH RECURSIVE is a plain CTE and its body reads the table.
    expect(await tables('WITH RECURSIVE trades AS (SELECT * FROM trades) SELECT * FROM trades')).toEqual([
      'trades',
    ]);
  });

  it('reads a WITH inside a subquery, a CTE body and a set operation branch', async () => {
    const sql = `
      WITH outer_cte AS (WITH inner_cte AS (SELECT * FROM a.one) SELECT * FROM inner_cte)
      SELECT * FROM outer_cte, (WITH sub AS (SELECT * FROM a.two) SELECT * FROM sub) s
      UNION ALL
      (WITH branch AS (SELECT * FROM a.three) SELECT * FROM branch)`;
    expect(await tables(sql)).toEqual(['a.one', 'a.two', 'a.three']);
  });

  describe('shadowing', () => {
    it('a CTE named like a table hides the table, but its own body reads the table', async () => {
      expect(
        await tables('WITH trades AS (SELECT * FROM trades WHERE amount_usd > 0) SELECT * FROM trades'),
      ).toEqual(['trades']);
      expect(await tables('WITH trades AS (SELECT * FROM dex.trades) SELECT * FROM trades')).toEqual([
        'dex.trades',
      ]);
    });

    it('a qualified name is never a CTE', async () => {
      expect(
        await tables('WITH trades AS (SELECT 1) SELECT * FROM trades, main.trades, memory.main.trades'),
      ).toEqual(['main.trades', 'memory.main.trades']);
      expect(await tables('WITH trades AS (SELECT 1) SELECT * FROM dex.trades')).toEqual(['dex.trades']);
    });

    it('an inner WITH shadows only inside its own query', async () => {
      const sql = `
        SELECT * FROM (WITH usd AS (SELECT 1 AS price) SELECT * FROM usd) inner_q, usd
        WHERE EXISTS (SELECT 1 FROM usd)`;
      expect(await tables(sql)).toEqual(['usd']);
    });

    it('an outer CTE stays visible in subqueries unless an inner WITH reuses its name', async () => {
      const sql = `
        WITH t AS (SELECT * FROM a.base)
        SELECT (SELECT count(*) FROM t),
               (WITH t AS (SELECT * FROM t) SELECT count(*) FROM t)
        FROM (WITH u AS (SELECT 1) SELECT * FROM u, t) x, u`;
      // The inner `WITH t AS (SELECT * FROM t)` body sees the outer CTE t; the final `u` is a table.
      expect(await tables(sql)).toEqual(['a.base', 'u']);
    });
  });
});

describe('set operations', () => {
  it.each([
    'UNION',
    'UNION ALL',
    'UNION BY NAME',
    'UNION ALL BY NAME',
    'INTERSECT',
    'INTERSECT ALL',
    'EXCEPT',
    'EXCEPT ALL',
  ])('reads every branch of %s', async (operator) => {
    expect(
      await tables(`SELECT x FROM a.one ${operator} SELECT x FROM a.two ${operator} (SELECT x FROM a.three)`),
    ).toEqual(['a.one', 'a.two', 'a.three']);
  });

  it('reads set operations with ORDER BY/LIMIT and nested in subqueries', async () => {
    expect(
      await tables('SELECT * FROM (SELECT 1 FROM a.one EXCEPT SELECT 1 FROM a.two) s ORDER BY 1 LIMIT 5'),
    ).toEqual(['a.one', 'a.two']);
  });
});

describe('windows, QUALIFY, PIVOT, UNPIVOT and VALUES', () => {
  it('reads subqueries in window definitions, the WINDOW clause and QUALIFY', async () => {
    const sql = `
      SELECT row_number() OVER (PARTITION BY (SELECT 1 FROM a.partition_by) ORDER BY x) AS r,
             sum(x) OVER w
      FROM a.base
      WINDOW w AS (ORDER BY (SELECT 2 FROM a.window_clause))
      QUALIFY r <= (SELECT 3 FROM a.qualify)`;
    expect(await tables(sql)).toEqual(['a.partition_by', 'a.base', 'a.window_clause', 'a.qualify']);
  });

  it('reads the PIVOT statement and the PIVOT clause, with a subquery as source', async () => {
    expect(
      await tables("PIVOT dex.trades ON blockchain IN ('ethereum', 'base') USING sum(amount_usd)"),
    ).toEqual(['dex.trades']);
    expect(
      await tables(
        "PIVOT (SELECT * FROM dex.trades JOIN labels.chains USING (blockchain)) ON blockchain IN ('ethereum') USING count(*)",
      ),
    ).toEqual(['dex.trades', 'labels.chains']);
    expect(
      await tables(
        "SELECT * FROM (SELECT * FROM dex.trades) PIVOT (sum(amount_usd) FOR blockchain IN ('ethereum', 'base'))",
      ),
    ).toEqual(['dex.trades']);
  });

  it('reads the UNPIVOT statement and the UNPIVOT clause', async () => {
    expect(await tables('UNPIVOT stats.monthly ON jan, feb INTO NAME month VALUE volume')).toEqual([
      'stats.monthly',
    ]);
    expect(
      await tables(
        'SELECT * FROM stats.monthly UNPIVOT (volume FOR month IN (jan, feb)) JOIN stats.other USING (k)',
      ),
    ).toEqual(['stats.monthly', 'stats.other']);
  });

  it('reads VALUES (none) and subqueries inside VALUES', async () => {
    expect(await tables('VALUES (1, 2), (3, 4)')).toEqual([]);
    expect(await tables('SELECT * FROM (VALUES (1), (2)) v(x)')).toEqual([]);
    expect(await tables('SELECT * FROM (VALUES ((SELECT max(x) FROM a.one)), (2)) v(x), a.two')).toEqual([
      'a.one',
      'a.two',
    ]);
  });

  it('reads DESCRIBE, SHOW and SUMMARIZE of a table or query', async () => {
    expect(await tables('DESCRIBE dex.trades')).toEqual(['dex.trades']);
    expect(await tables('SUMMARIZE prices.usd')).toEqual(['prices.usd']);
    expect(await tables('SUMMARIZE SELECT * FROM tokens.transfers')).toEqual(['tokens.transfers']);
    expect(await tables('SHOW TABLES')).toEqual([]);
  });
});

describe('table functions', () => {
  it('are not tables', async () => {
    expect(await tables('SELECT * FROM range(10)')).toEqual([]);
    expect(
      await tables("SELECT * FROM read_parquet('s3://bucket/x.parquet') JOIN generate_series(1, 3) ON true"),
    ).toEqual([]);
    expect(await tables('SELECT * FROM range(10) r JOIN dex.trades ON true')).toEqual(['dex.trades']);
  });

  it('have their subquery arguments read', async () => {
    expect(
      await tables(
        'SELECT * FROM range((SELECT count(*) FROM dex.trades)), unnest((SELECT list(x) FROM a.lists))',
      ),
    ).toEqual(['dex.trades', 'a.lists']);
  });

  it('read the tables named by query_table() and the SQL given to query(), as DuckDB binds them', async () => {
    expect(await parser.tablesReadBy("SELECT * FROM query_table('dex.trades')")).toEqual([
      { schema: 'dex', table: 'trades', text: 'dex.trades' },
    ]);
    expect(
      await tables(`SELECT * FROM query_table(['a.one', '"odd.name".two'], true), query_table('c.s.t')`),
    ).toEqual(['a.one', 'odd.name.two', 'c.s.t']);
    expect(
      await tables("SELECT * FROM query('SELECT * FROM prices.usd WHERE x IN (SELECT x FROM a.inner)')"),
    ).toEqual(['prices.usd', 'a.inner']);
    // The argument is bound in the outer query, so its CTEs are visible there.
    expect(
      await tables(
        "WITH c AS (SELECT * FROM a.one) SELECT * FROM query_table('c'), query('SELECT * FROM c, a.two')",
      ),
    ).toEqual(['a.one', 'a.two']);
  });

  it('refuse query()/query_table() whose argument is not a constant, and unreadable SQL inside query()', async () => {
    expect((await rejection('SELECT * FROM query_table($1)')).message).toMatch(
      /query_table\(\) at line 1, column 15 is not a constant table name/,
    );
    expect((await rejection("SELECT * FROM query('SELECT * FORM x')")).message).toBe(
      "Cannot read the query's SQL to find its tables: the SQL given to query() at line 1, column 15 cannot be read: " +
        'Parser Error: syntax error at or near "x" (line 1, column 15 of that SQL)',
    );
    expect((await rejection("SELECT * FROM query('CREATE TABLE t (x INT)')")).message).toMatch(
      /not a SELECT/,
    );
  });
});

describe('DuckDB syntax', () => {
  it('reads SELECT * EXCLUDE/REPLACE, COLUMNS and sampling', async () => {
    expect(
      await tables('SELECT * EXCLUDE (tx_hash) REPLACE (amount_usd / 1e6 AS amount_usd) FROM dex.trades'),
    ).toEqual(['dex.trades']);
    expect(await tables("SELECT COLUMNS('amount.*') FROM dex.trades USING SAMPLE 10%")).toEqual([
      'dex.trades',
    ]);
    expect(await tables('SELECT * FROM dex.trades TABLESAMPLE reservoir(100 ROWS) REPEATABLE (42)')).toEqual([
      'dex.trades',
    ]);
    expect(
      await tables(
        'SELECT * FROM (SELECT * FROM dex.trades USING SAMPLE 5 ROWS) JOIN prices.usd TABLESAMPLE 1% ON true',
      ),
    ).toEqual(['dex.trades', 'prices.usd']);
  });

  it('unquotes quoted identifiers and keeps their case and the text as written', async () => {
    expect(await parser.tablesReadBy('SELECT * FROM "dex"."trades", "Weird ""Schema"""."My Table"')).toEqual([
      { schema: 'dex', table: 'trades', text: '"dex"."trades"' },
      { schema: 'Weird "Schema"', table: 'My Table', text: '"Weird ""Schema"""."My Table"' },
    ]);
  });

  it('keeps the catalog of three-part names', async () => {
    expect(
      await parser.tablesReadBy(
        'SELECT * FROM service.local.result_daily_volume r JOIN dex.trades USING (day)',
      ),
    ).toEqual([
      {
        catalog: 'service',
        schema: 'local',
        table: 'result_daily_volume',
        text: 'service.local.result_daily_volume',
      },
      { schema: 'dex', table: 'trades', text: 'dex.trades' },
    ]);
  });

  it('reads names after non-ASCII text at the right place', async () => {
    expect(await parser.tablesReadBy("SELECT 'é🙂' AS s FROM Dex.Trades")).toEqual([
      { schema: 'Dex', table: 'Trades', text: 'Dex.Trades' },
    ]);
  });

  it('accepts a trailing semicolon and comments', async () => {
    expect(await tables('-- daily volume\nSELECT * FROM dex.trades /* all of it */;')).toEqual([
      'dex.trades',
    ]);
  });
});

describe('deduplication and order', () => {
  it('lists each table once, in order of first appearance, with the first text seen', async () => {
    const refs = await parser.tablesReadBy(`
      SELECT (SELECT 1 FROM prices.usd), * FROM dex.trades
      JOIN "DEX"."TRADES" t2 ON true
      WHERE EXISTS (SELECT 1 FROM Dex.Trades) AND x IN (SELECT x FROM prices.usd)`);
    expect(refs).toEqual([
      { schema: 'prices', table: 'usd', text: 'prices.usd' },
      { schema: 'dex', table: 'trades', text: 'dex.trades' },
    ]);
  });

  it('distinguishes names with a different schema or catalog', async () => {
    expect(await tables('SELECT * FROM trades, dex.trades, main.dex.trades, nft.trades')).toEqual([
      'trades',
      'dex.trades',
      'main.dex.trades',
      'nft.trades',
    ]);
  });
});

describe('a realistic analytics query over the sample tables', () => {
  it('finds dex.trades, prices.usd and tokens.transfers and no CTE', async () => {
    const sql = `
      -- Daily DEX volume priced in USD, next to large token transfers
      WITH trades AS (
        SELECT date_trunc('day', t.block_time) AS day, t.blockchain,
               t.token_bought_amount * p.price AS volume_usd
        FROM dex.trades t
        LEFT JOIN prices.usd p
          ON p.blockchain = t.blockchain
         AND p.contract_address = t.token_bought_address
         AND p.minute = date_trunc('minute', t.block_time)
        WHERE t.block_time >= now() - INTERVAL 30 DAY
      ),
      daily AS (
        SELECT day, blockchain, sum(volume_usd) AS volume_usd, 'dex' AS source
        FROM trades
        GROUP BY ALL
      )
      SELECT * FROM daily
      UNION ALL
      SELECT date_trunc('day', block_time) AS day, blockchain, sum(amount_usd), 'transfers'
      FROM tokens.transfers
      WHERE amount_usd > (SELECT quantile_cont(amount_usd, 0.99) FROM tokens.transfers)
      GROUP BY ALL
      QUALIFY row_number() OVER (PARTITION BY blockchain ORDER BY day DESC) <= 30
      ORDER BY day DESC, blockchain`;
    expect(await parser.tablesReadBy(sql)).toEqual([
      { schema: 'dex', table: 'trades', text: 'dex.trades' },
      { schema: 'prices', table: 'usd', text: 'prices.usd' },
      { schema: 'tokens', table: 'transfers', text: 'tokens.transfers' },
    ]);
  });
});

describe('SQL that cannot be read', () => {
  it('reports a syntax error with its line and column', async () => {
    expect((await rejection('SELECT * FROM dex.trades WHERE')).message).toBe(
      "Cannot read the query's SQL to find its tables: Parser Error: syntax error at end of input (line 1, column 31)",
    );
    expect((await rejection("SELECT 'é', *\nFROM dex.trades\nWHERE x = = 1")).message).toBe(
      'Cannot read the query\'s SQL to find its tables: Parser Error: syntax error at or near "=" (line 3, column 11)',
    );
    // DuckDB counts characters in parser errors (but bytes in query_location); both map to columns.
    expect((await rejection("SELECT '🙂🙂' AS s FORM dex.trades")).message).toMatch(
      /"FORM" \(line 1, column 18\)$/,
    );
    expect((await rejection('SELECT * FORM dex.trades')).message).toMatch(
      /^Cannot read the query's SQL to find its tables: Parser Error: syntax error at or near "dex" \(line 1, column 15\)$/,
    );
  });

  it.each([
    'CREATE TABLE x AS SELECT 1',
    'INSERT INTO dex.trades SELECT * FROM dex.trades',
    'DROP TABLE dex.trades',
    'EXPLAIN SELECT * FROM dex.trades',
    "ATTACH 'x.db'",
    'SET threads = 8',
  ])('refuses a statement that is not a SELECT: %s', async (sql) => {
    expect((await rejection(sql)).message).toMatch(
      /^Cannot read the query's SQL to find its tables: it is not a SELECT query/,
    );
  });

  it('refuses several statements', async () => {
    expect((await rejection('SELECT * FROM a.one; SELECT * FROM a.two')).message).toBe(
      "Cannot read the query's SQL to find its tables: it holds 2 statements; a query must be exactly one SELECT statement",
    );
    expect((await rejection('SELECT 1; DROP TABLE dex.trades')).message).toMatch(/it holds 2 statements/);
  });

  it.each([
    'PIVOT dex.trades ON blockchain USING sum(amount_usd)',
    'PIVOT dex.trades ON blockchain IN (SELECT DISTINCT blockchain FROM labels.chains) USING sum(amount_usd)',
    'SELECT * FROM (PIVOT dex.trades ON blockchain USING sum(amount_usd))',
  ])(
    'refuses a PIVOT whose values are not listed, which DuckDB expands into several statements: %s',
    async (sql) => {
      expect((await rejection(sql)).message).toMatch(/it holds 2 statements.*PIVOT without an explicit IN/);
    },
  );

  it.each([
    ['empty', ''],
    ['blank', '  \n\t '],
  ])('refuses %s SQL', async (_kind, sql) => {
    expect((await rejection(sql)).message).toBe(
      "Cannot read the query's SQL to find its tables: the SQL is empty",
    );
  });

  it('refuses SQL made only of comments or semicolons', async () => {
    expect((await rejection('-- nothing here\n;')).message).toMatch(/it holds no SQL statement/);
  });
});

describe('the parser instance', () => {
  it('serves concurrent calls and can be closed and used again', async () => {
    const own = new DuckDbTableReferenceParser();
    try {
      const sqls = Array.from({ length: 20 }, (_, i) => `SELECT * FROM s${i}.t${i} JOIN shared.t USING (id)`);
      const results: TableReference[][] = await Promise.all(sqls.map((sql) => own.tablesReadBy(sql)));
      results.forEach((refs, i) => {
        expect(refs.map(normalizeTableName)).toEqual([`s${i}.t${i}`, 'shared.t']);
      });
      await own.close();
      expect((await own.tablesReadBy('SELECT * FROM dex.trades')).map(normalizeTableName)).toEqual([
        'dex.trades',
      ]);
      // close() waits for calls already under way.
      const inFlight = own.tablesReadBy('SELECT * FROM prices.usd');
      await own.close();
      expect((await inFlight).map(normalizeTableName)).toEqual(['prices.usd']);
    } finally {
      await own.close();
    }
  });

  it('cannot read files or the network', async () => {
    const own = new DuckDbTableReferenceParser();
    try {
      // The parser never runs the SQL; this only checks that the private instance is locked down.
      const connection = await (
        own as unknown as { open(): Promise<{ connection: { run(sql: string): Promise<unknown> } }> }
      )
        .open()
        .then((sandbox) => sandbox.connection);
      await expect(connection.run("SELECT * FROM read_csv('/etc/passwd')")).rejects.toThrow(/Permission/);
      await expect(connection.run('SET enable_external_access = true')).rejects.toThrow();
    } finally {
      await own.close();
    }
  });
});
