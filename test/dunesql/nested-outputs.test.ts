import { Dialect, parse } from '@polyglot-sql/sdk';
import { describe, expect, it } from 'vitest';
import { athenaTableSchemas } from '../../functions/aws/catalog/glue-tables';
import { decodeValue } from '../../functions/aws/results/athena-values';
import { valueKind } from '../../functions/core/sql-types';
import { BASE_TABLES } from '../../functions/datasets/base-tables';
import { translate } from '../../functions/dunesql';
import { textColumnAs } from '../../functions/dunesql/athena-target';
import { nestedAsJsonText, parseTrinoType, typeText } from '../../functions/dunesql/nested-json';

const TABLES = athenaTableSchemas(BASE_TABLES);
const athena = (sql: string) => translate(sql, 'athena', { tables: TABLES });
const INPUTS =
  'array(row(index integer, spent_tx_id varbinary, spent_output_number bigint, value decimal(18,8), address varchar, type varchar))';
const OUTPUTS = 'array(row(index integer, value decimal(18,8), address varchar, type varchar))';

/** Positions and types of the columns returned as JSON. */
async function nested(sql: string) {
  const translation = await athena(sql);
  // Whatever is rewritten still parses as Trino.
  expect(parse(translation.sql, Dialect.Trino).success).toBe(true);
  return translation.nestedColumns.map(({ position, type }) => `${position}: ${type}`);
}

describe('output columns holding arrays, maps and rows on Athena', () => {
  it('finds them in table columns, stars, CTEs, subqueries and CASTs', async () => {
    const columns = BASE_TABLES.find((t) => t.fullName === 'bitcoin.transactions')!.columns.map(
      (c) => c.name,
    );
    expect(await nested('SELECT * FROM bitcoin.transactions')).toEqual([
      `${columns.indexOf('inputs')}: ${INPUTS}`,
      `${columns.indexOf('outputs')}: array(row(index integer, value decimal(18,8), address varchar, type varchar))`,
    ]);
    expect(await nested('SELECT t.id, t.inputs AS ins FROM bitcoin.transactions AS t')).toEqual([
      `1: ${INPUTS}`,
    ]);
    expect(
      await nested(
        'WITH c AS (SELECT inputs FROM bitcoin.transactions) SELECT q.* FROM (SELECT * FROM c) AS q',
      ),
    ).toEqual([`0: ${INPUTS}`]);
    expect(await nested(`SELECT CAST(ARRAY['0x01'] AS array(varchar)) AS a, 1 AS b`)).toEqual([
      '0: array(varchar)',
    ]);
  });

  it('types what array and map functions build, converting what JSON cannot hold', async () => {
    const translation = await athena(
      `SELECT array_agg(hash) AS hashes, map_agg(cast(height AS varchar), time) AS times,
              histogram(hash) AS counts, split('a,b', ',') AS parts, ARRAY[date, date] AS days,
              map_keys(histogram(hash)) AS keys, max(transaction_count) AS n
       FROM bitcoin.blocks`,
    );
    expect(translation.nestedColumns).toEqual([
      { position: 0, type: 'array(varbinary)' },
      { position: 1, type: 'map(varchar, timestamp)' },
      { position: 2, type: 'map(varbinary, bigint)' },
      { position: 3, type: 'array(varchar)' },
      { position: 4, type: 'array(date)' },
      { position: 5, type: 'array(varbinary)' },
    ]);
    // varbinary as 0x hex, timestamps as the local host prints them, varbinary keys as hex too.
    expect(translation.sql).toContain(
      `TRANSFORM(ARRAY_AGG(hash), json_v1 -> '0x' || LOWER(TO_HEX(json_v1)))`,
    );
    expect(translation.sql).toContain(
      `TRANSFORM_VALUES(MAP_AGG(CAST(height AS VARCHAR), time), (json_k1, json_v1) -> FORMAT_DATETIME(json_v1, 'yyyy-MM-dd HH:mm:ss.SSS') || ' UTC')`,
    );
    expect(translation.sql).toContain(
      `TRANSFORM_KEYS(HISTOGRAM(hash), (json_k1, json_v1) -> '0x' || LOWER(TO_HEX(json_k1)))`,
    );
    expect(translation.sql).toMatch(/AS "n" FROM|MAX\(transaction_count\) AS n FROM/);
  });

  it('converts a set operation’s outputs in a SELECT over it, its ORDER BY repeated outside', async () => {
    const translation = await athena(
      `WITH c AS (SELECT id, outputs FROM bitcoin.transactions)
       SELECT id, outputs FROM c UNION SELECT id, outputs FROM c ORDER BY id DESC LIMIT 3`,
    );
    expect(translation.nestedColumns.map((n) => n.position)).toEqual([1]);
    // The LIMIT needs the ORDER BY inside to pick its rows; outside it orders them again.
    expect(translation.sql).toBe(
      'WITH c AS (SELECT id, outputs FROM bitcoin.transactions) SELECT q.c0 AS id, JSON_FORMAT(CAST(q.c1 AS JSON)) AS outputs FROM (SELECT id, outputs FROM c UNION SELECT id, outputs FROM c ORDER BY id DESC LIMIT 3) AS q(c0, c1) ORDER BY q.c0 DESC',
    );
    expect(
      await nested(
        'SELECT id, inputs FROM bitcoin.transactions EXCEPT SELECT id, inputs FROM bitcoin.transactions ORDER BY 1',
      ),
    ).toEqual([`1: ${INPUTS}`]);
  });

  it('orders by a nested output’s values, not its JSON text, in a SELECT over the query', async () => {
    const translation = await athena('SELECT id, inputs FROM bitcoin.transactions ORDER BY inputs DESC, 1');
    expect(translation.nestedColumns.map((n) => n.position)).toEqual([1]);
    expect(translation.sql).toMatch(
      /^SELECT q\.c0 AS id, JSON_FORMAT\(.*\) AS inputs FROM \(SELECT id, inputs FROM bitcoin\.transactions\) AS q\(c0, c1\) ORDER BY q\.c1 DESC, q\.c0$/,
    );
  });

  it('types the elements of arrays built from expressions as Trino does', async () => {
    const translation = await athena(
      `SELECT array_agg(fee * 2) AS a, array_agg(fee + input_value) AS b, array_agg(size / 2) AS c,
              array_agg(block_time + interval '1' day) AS d, array_agg(fee > 0) AS e, array_agg(0.5 * 2) AS f,
              array_agg(lower(to_hex(id)) || 'x') AS g, array_agg(-size) AS h, array_agg(size * 1e0) AS i,
              array_agg(cardinality(inputs)) AS j, array_agg(size * fee / 3) AS k
       FROM bitcoin.transactions`,
    );
    expect(translation.nestedColumns.map((n) => n.type)).toEqual([
      'array(decimal(28,8))',
      'array(decimal(19,8))',
      'array(bigint)',
      'array(timestamp)',
      'array(boolean)',
      'array(decimal(11,1))',
      'array(varchar)',
      'array(bigint)',
      'array(double)',
      'array(bigint)',
      'array(decimal(37,8))',
    ]);
  });

  it('types flatten, concat, repeat, array_max, map_filter and approx_percentile over arrays', async () => {
    expect(
      await nested(
        `SELECT flatten(ARRAY[inputs, inputs]) AS a, concat(outputs, outputs) AS b, repeat(hash, 2) AS c,
                array_max(ARRAY[inputs]) AS d, map_filter(histogram(hash), (k, v) -> v > 1) AS e,
                approx_percentile(virtual_size, ARRAY[0.5, 0.9]) AS f, approx_percentile(virtual_size, 0.5) AS scalar
         FROM bitcoin.transactions CROSS JOIN bitcoin.blocks`,
      ),
    ).toEqual([
      `0: ${INPUTS}`,
      '1: array(row(index integer, value decimal(18,8), address varchar, type varchar))',
      '2: array(varbinary)',
      `3: ${INPUTS}`,
      '4: map(varbinary, bigint)',
      '5: array(bigint)',
    ]);
  });

  it('types CASE, IF and COALESCE by branches that agree, NULL and ARRAY[] saying nothing', async () => {
    expect(
      await nested(
        `SELECT coalesce(inputs, ARRAY[]) AS a, if(is_coinbase, NULL, outputs) AS b,
                CASE WHEN is_coinbase THEN inputs ELSE outputs END AS differ, try(inputs) AS t
         FROM bitcoin.transactions`,
      ),
    ).toEqual([
      `0: ${INPUTS}`,
      '1: array(row(index integer, value decimal(18,8), address varchar, type varchar))',
      `3: ${INPUTS}`,
    ]);
  });

  it('types lambdas by their bodies, their parameters bound to the elements', async () => {
    expect(
      await nested(
        `SELECT transform(inputs, i -> i.spent_tx_id) AS spent, transform(outputs, o -> CAST(o.value AS double)) AS v,
                zip_with(inputs, outputs, (i, o) -> o.address) AS a, transform(inputs, i -> i.value * 2) AS doubled,
                sequence(1, 3) AS s
         FROM bitcoin.transactions`,
      ),
    ).toEqual([
      '0: array(varbinary)',
      '1: array(double)',
      '2: array(varchar)',
      '3: array(decimal(28,8))',
      '4: array(bigint)',
    ]);
  });

  it('leaves alone what it cannot type for sure', async () => {
    // UNNEST of an array of rows yields one column per field: one alias cannot place them.
    expect(await nested('SELECT x FROM bitcoin.transactions CROSS JOIN UNNEST(inputs) AS u(x)')).toEqual([]);
    // A set operation one of whose branches is unknown.
    expect(await nested('SELECT ARRAY[1] UNION ALL SELECT my_udf(2)')).toEqual([]);
    // A call it has no rule for, and `*` over a USING join (its join column once).
    expect(await nested('SELECT my_udf(inputs) AS x FROM bitcoin.transactions')).toEqual([]);
    expect(
      await nested('SELECT * FROM bitcoin.transactions t JOIN bitcoin.transactions u USING (id)'),
    ).toEqual([]);
  });

  it('types unnamed rows, UNNEST columns and the calls that build nested values', async () => {
    expect(
      await nested(
        `SELECT zip(ARRAY[1], ARRAY['a']) AS z, ROW(1, id) AS r, ROW(2.5) AS t,
                map_entries(map(ARRAY['a'], ARRAY[block_height])) AS e,
                reduce(inputs, 0, (s, i) -> s + 1, s -> s) AS n,
                reduce(outputs, ARRAY[id], (s, o) -> s, s -> s) AS ids,
                max(block_height, 3) AS top, max_by(id, block_height, 2) AS top_ids,
                combinations(ARRAY[1, 2, 3], 2) AS pairs, split_to_map('a=1', ',', '=') AS kv,
                multimap_agg(block_height, id) AS by_height, lag(outputs) OVER (ORDER BY block_time) AS previous
         FROM bitcoin.transactions GROUP BY id, block_height, block_time, inputs, outputs`,
      ),
    ).toEqual([
      '0: array(row(integer, varchar))',
      '1: row(integer, varbinary)',
      '2: row(decimal(2,1))',
      '3: array(row(varchar, bigint))',
      '5: array(varbinary)',
      '6: array(bigint)',
      '7: array(varbinary)',
      '8: array(array(integer))',
      '9: map(varchar, varchar)',
      '10: map(bigint, array(varbinary))',
      `11: ${OUTPUTS}`,
    ]);
    // UNNEST's columns: an array's elements, a map's keys and values, an array of rows' fields.
    expect(
      await nested(
        `SELECT o, k, v, n FROM bitcoin.transactions
         CROSS JOIN UNNEST(ARRAY[outputs], map(ARRAY['a'], ARRAY[inputs])) WITH ORDINALITY AS u(o, k, v, n)`,
      ),
    ).toEqual([`0: ${OUTPUTS}`, `2: ${INPUTS}`]);
    expect(
      await nested(
        `SELECT u.x FROM bitcoin.transactions, UNNEST(transform(inputs, i -> ROW(i.spent_tx_id, ARRAY[i.value]))) AS u(id, x)`,
      ),
    ).toEqual(['0: array(decimal(18,8))']);
  });

  it('types the columns of CTEs and subqueries by what computes them', async () => {
    expect(
      await nested(
        `WITH c AS (SELECT id, zip(ARRAY[1], ARRAY['a']) AS z, array_agg(id) OVER () AS ids FROM bitcoin.transactions),
              d (x, y) AS (SELECT z, ARRAY[ids] FROM c)
         SELECT d.y, s.m, x, c.* FROM d
         JOIN (SELECT id, transform(inputs, i -> i.value) AS m FROM bitcoin.transactions) AS s ON true
         JOIN c ON true`,
      ),
    ).toEqual([
      '0: array(array(varbinary))',
      '1: array(decimal(18,8))',
      '2: array(row(integer, varchar))',
      '4: array(row(integer, varchar))',
      '5: array(varbinary)',
    ]);
    // A name two FROM items could have is left to Trino (ambiguous, or the other item's).
    expect(await nested('SELECT z FROM (SELECT ARRAY[1] AS z) AS a, (SELECT ARRAY[2] AS z) AS b')).toEqual(
      [],
    );
  });

  it('sorts by expressions over nested outputs on their values, in a SELECT over the query', async () => {
    // A SELECT: the ORDER BY expression becomes an extra column of the query (`inputs` is the output).
    const ordered = await athena(
      'SELECT transform(inputs, i -> i.value) AS inputs, outputs FROM bitcoin.transactions ORDER BY cardinality(inputs) DESC, block_time LIMIT 5',
    );
    expect(ordered.nestedColumns.map((n) => `${n.position}: ${n.type}`)).toEqual([
      '0: array(decimal(18,8))',
      `1: ${OUTPUTS}`,
    ]);
    expect(ordered.sql).toMatch(
      /^SELECT JSON_FORMAT\(CAST\(q\.c0 AS JSON\)\) AS inputs, .* FROM \(SELECT TRANSFORM\(inputs, i -> i\.value\) AS inputs, outputs, CARDINALITY\(TRANSFORM\(inputs, i -> i\.value\)\), block_time FROM bitcoin\.transactions ORDER BY CARDINALITY\(inputs\) DESC, block_time LIMIT 5\) AS q\(c0, c1, c2, c3\) ORDER BY q\.c2 DESC, q\.c3$/,
    );
    // A set operation ordered by an expression of its columns, and unnamed outputs.
    const union = await athena(
      'SELECT id, inputs FROM bitcoin.transactions UNION SELECT id, inputs FROM bitcoin.transactions ORDER BY length(id)',
    );
    expect(union.nestedColumns.map((n) => n.position)).toEqual([1]);
    expect(union.sql).toMatch(/ AS q\(c0, c1\) ORDER BY LENGTH\(q\.c0\)$/);
    // Branches, CASE branches and ARRAY elements meet in their common super type, as in Trino.
    expect(
      await nested(
        `SELECT ARRAY[1, 2.5] AS a, IF(true, ARRAY[1], ARRAY[block_height]) AS b FROM bitcoin.transactions
         UNION ALL SELECT ARRAY[3.25], ARRAY[CAST(1 AS tinyint)] FROM bitcoin.transactions`,
      ),
    ).toEqual(['0: array(decimal(12,2))', '1: array(bigint)']);
    const unnamed = await athena('SELECT ARRAY[1], 2 UNION ALL SELECT ARRAY[2], 3');
    expect(unnamed.nestedColumns).toEqual([{ position: 0, type: 'array(integer)' }]);
    expect(unnamed.sql).toMatch(/^SELECT JSON_FORMAT\(CAST\(q\.c0 AS JSON\)\) AS _col0, q\.c1 AS _col1 FROM/);
    // `*` over a join, column names repeated: placed by position.
    const joined = await athena(
      'SELECT * FROM bitcoin.transactions t JOIN bitcoin.transactions u ON t.id = u.id',
    );
    expect(joined.nestedColumns).toHaveLength(4);
    // The stars are written out in the catalog's order: Athena's own `*` would list the partition
    // column (block_date) last, and q's columns are named by position.
    expect(joined.sql).toContain('FROM (SELECT "t"."block_time", "t"."block_date", "t"."block_height"');
    expect(joined.sql).not.toMatch(/SELECT \*/);
    const unionOfStars = await athena(
      'SELECT * FROM bitcoin.transactions UNION ALL SELECT * FROM bitcoin.transactions AS u',
    );
    expect(unionOfStars.nestedColumns).toHaveLength(2);
    expect(unionOfStars.sql).toContain('UNION ALL SELECT "u"."block_time", "u"."block_date"');
    // Aggregates in ORDER BY stay in the query that groups.
    const grouped = await athena(
      'SELECT block_date, array_agg(id) AS ids FROM bitcoin.transactions GROUP BY 1 ORDER BY cardinality(ids) DESC, count(*)',
    );
    expect(grouped.sql).toContain(
      'CARDINALITY(ARRAY_AGG(id)), COUNT(*) FROM bitcoin.transactions GROUP BY 1) AS q(c0, c1, c2, c3) ORDER BY q.c2 DESC, q.c3',
    );
  });

  it('changes nothing for DuckDB, nor without the table schemas, nor for SQL that holds no nested value', async () => {
    const scalar = 'SELECT "from", sum(gas_used) FROM ethereum.transactions GROUP BY 1';
    expect(await athena(scalar)).toMatchObject({ sql: scalar, nestedColumns: [] });
    const sql = 'SELECT inputs FROM bitcoin.transactions';
    expect((await translate(sql, 'duckdb')).nestedColumns).toEqual([]);
    const plain = await translate(sql, 'athena');
    expect(plain.nestedColumns).toEqual([]);
    expect(plain.sql).toBe(sql);
  });
});

describe('nested types and their JSON text', () => {
  it('parses and prints Trino type spellings', () => {
    const type = parseTrinoType(
      'ARRAY(ROW("index" INTEGER, spent_tx_id VARBINARY, "Value" DECIMAL(18, 8)))',
    )!;
    expect(typeText(type)).toBe('array(row(index integer, spent_tx_id varbinary, value decimal(18,8)))');
    // Unnamed fields, as ROW(…), zip and map_entries build them.
    expect(typeText(parseTrinoType('row(integer, array(varchar), timestamp(3) with time zone)')!)).toBe(
      'row(integer, array(varchar), timestamp(3) with time zone)',
    );
    expect(typeText(parseTrinoType('map(varchar, array(timestamp(3) with time zone))')!)).toBe(
      'map(varchar, array(timestamp(3) with time zone))',
    );
  });

  it('casts JSON-ready values straight to JSON and guards NULL rows', () => {
    expect(nestedAsJsonText('c', parseTrinoType('array(bigint)')!)).toBe('json_format(CAST(c AS JSON))');
    expect(nestedAsJsonText('c', parseTrinoType('row(a varbinary)')!)).toBe(
      `json_format(CAST(IF(c IS NULL, NULL, CAST(ROW('0x' || lower(to_hex(c."a"))) AS row(a varchar))) AS JSON))`,
    );
  });

  it('reads a view column back from JSON text, and Athena’s own text as text', () => {
    expect(textColumnAs('c0', 'map(varbinary, date)')).toBe(
      'CAST(transform_keys(transform_values(CAST(json_parse(c0) AS map(varchar, varchar)), (json_k1, json_v1) -> CAST(json_v1 AS date)), (json_k1, json_v1) -> from_hex(substr(json_k1, 3))) AS map(varbinary, date))',
    );
    expect(textColumnAs('c0', 'array')).toBe('c0');
  });

  it('decodes JSON text with exact integers and decimals; Athena’s bare array type stays text', () => {
    expect(valueKind('array(decimal(38,0))')).toBe('nested');
    expect(valueKind('array')).toBe('text');
    expect(decodeValue('[12345678901234567890123,5,1.50000000,2.5E-3,"0xab",null]', 'nested')).toEqual([
      '12345678901234567890123',
      5,
      1.5,
      0.0025,
      '0xab',
      null,
    ]);
    expect(decodeValue('[1, 2]', 'text')).toBe('[1, 2]');
  });
});
