import { DuckDBInstance } from '@duckdb/node-api';
import { Dialect, parse } from '@polyglot-sql/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableDefinition } from '../../functions/core/catalog';
import { BASE_TABLES } from '../../functions/datasets/base-tables';
import {
  DUCKDB_SESSION_SETUP,
  DuneSqlError,
  type ListedTable,
  listedTables,
  translate,
} from '../../functions/dunesql';
import { referenceEntries } from '../../functions/dunesql/function-support';
import { registerDuneFunctions } from '../../functions/local/engine/dune-functions';

/** A small catalog, so every row can be checked (the engines pass BASE_TABLES). */
const PUBLIC_TABLES: TableDefinition[] = [
  {
    fullName: 'ethereum.transactions',
    schema: 'ethereum',
    table: 'transactions',
    category: 'canonical',
    blockchains: ['ethereum'],
    description: "Ethereum's transactions.",
    partitionColumn: 'block_time',
    columns: [
      { name: 'block_time', type: 'timestamp', description: 'When.' },
      { name: 'hash', type: 'varbinary', description: "The transaction's hash.", nullable: false },
      { name: 'value', type: 'uint256', description: "Wei, the sender's 'value'." },
    ],
  },
  {
    fullName: 'uniswap_v3_ethereum.Pair_evt_Swap',
    schema: 'uniswap_v3_ethereum',
    table: 'Pair_evt_Swap',
    category: 'decoded',
    blockchains: ['ethereum'],
    description: 'Swaps.',
    partitionColumn: 'evt_block_time',
    columns: [{ name: 'amount0', type: 'int256', description: '' }],
  },
];
/** The stored relations the account may read: an upload (declared types) and a view (engine types). */
const CATALOG = listedTables(PUBLIC_TABLES, [
  {
    catalog: 'dune',
    schema: 'alice',
    name: 'labels',
    columns: [
      { name: 'address', type: 'varbinary' },
      { name: 'Label', type: 'varchar' },
    ],
  },
  {
    catalog: 'mv',
    schema: 'alice',
    name: 'result_daily_volume',
    columns: [
      { name: 'day', type: 'TIMESTAMP' },
      { name: 'volume', type: 'UHUGEINT' },
    ],
  },
]);

let instance: DuckDBInstance;
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
});
afterAll(() => instance.closeSync());

/** Translates DuneSQL for DuckDB with the catalog and runs it on a fresh session. */
async function rows(sql: string, catalog: readonly ListedTable[] = CATALOG) {
  const translation = await translate(sql, 'duckdb', { catalog });
  const connection = await instance.connect();
  try {
    await registerDuneFunctions(connection);
    for (const statement of DUCKDB_SESSION_SETUP) await connection.run(statement);
    const reader = await connection.runAndReadAll(translation.sql);
    return { columns: reader.columnNames(), rows: reader.getRowsJson() };
  } finally {
    connection.closeSync();
  }
}

async function failure(sql: string, target: 'duckdb' | 'athena' = 'duckdb'): Promise<DuneSqlError> {
  const error = await translate(sql, target, { catalog: CATALOG }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(DuneSqlError);
  return error as DuneSqlError;
}

describe('information_schema', () => {
  it('lists the catalog in DuneSQL type names, lower-case names and descriptions as comments', async () => {
    const result = await rows(
      'select * from information_schema.columns order by table_name, ordinal_position',
    );
    expect(result.columns).toEqual([
      'table_catalog',
      'table_schema',
      'table_name',
      'column_name',
      'ordinal_position',
      'column_default',
      'is_nullable',
      'data_type',
      'comment',
      'extra_info',
    ]);
    expect(result.rows).toEqual([
      [
        'delta_prod',
        'uniswap_v3_ethereum',
        'pair_evt_swap',
        'amount0',
        '1',
        null,
        'YES',
        'int256',
        null,
        null,
      ],
      [
        'delta_prod',
        'ethereum',
        'transactions',
        'block_time',
        '1',
        null,
        'YES',
        'timestamp(3)',
        'When.',
        null,
      ],
      [
        'delta_prod',
        'ethereum',
        'transactions',
        'hash',
        '2',
        null,
        'NO',
        'varbinary',
        "The transaction's hash.",
        null,
      ],
      [
        'delta_prod',
        'ethereum',
        'transactions',
        'value',
        '3',
        null,
        'YES',
        'uint256',
        "Wei, the sender's 'value'.",
        null,
      ],
    ]);
  });

  it('has schemata (with information_schema itself) and tables, in any case, with a catalog or not', async () => {
    expect((await rows('select * from INFORMATION_SCHEMA.Schemata')).rows).toEqual([
      ['delta_prod', 'ethereum'],
      ['delta_prod', 'information_schema'],
      ['delta_prod', 'uniswap_v3_ethereum'],
    ]);
    expect(
      (
        await rows(
          'select t.table_schema, table_name, table_type from delta_prod.information_schema.tables t order by 1',
        )
      ).rows,
    ).toEqual([
      ['ethereum', 'transactions', 'BASE TABLE'],
      ['uniswap_v3_ethereum', 'pair_evt_swap', 'BASE TABLE'],
    ]);
  });

  it('joins and aggregates like any table, each reference under its own alias', async () => {
    const result = await rows(
      `select t.table_name, count(c.column_name) as n from information_schema.tables as t
       join information_schema.columns c on c.table_schema = t.table_schema and c.table_name = t.table_name
       group by 1 order by 1`,
    );
    expect(result.rows).toEqual([
      ['pair_evt_swap', '1'],
      ['transactions', '3'],
    ]);
  });

  it('is empty without a catalog', async () => {
    expect((await rows('select count(*) from information_schema.columns', [])).rows).toEqual([['0']]);
    expect((await rows('show schemas', [])).rows).toEqual([['information_schema']]);
  });

  it('reads the real catalog on Athena as a query over literal rows, well inside its SQL size limit', async () => {
    const translation = await translate(
      "select data_type from information_schema.columns where table_name = 'transactions'",
      'athena',
      { catalog: listedTables(BASE_TABLES) },
    );
    expect(translation.sql).not.toMatch(/information_schema/i);
    expect(parse(translation.sql, Dialect.Trino).success).toBe(true);
    // StartQueryExecution takes at most 262,144 bytes of SQL (docs/aws.md).
    expect(Buffer.byteLength(translation.sql)).toBeLessThan(100_000);
  });

  it("lists each catalog's own: uploaded tables under dune, materialized views under mv", async () => {
    expect((await rows('select * from dune.information_schema.columns')).rows).toEqual([
      ['dune', 'alice', 'labels', 'address', '1', null, 'YES', 'varbinary', null, null],
      ['dune', 'alice', 'labels', 'label', '2', null, 'YES', 'varchar', null, null],
    ]);
    expect((await rows('select table_name, table_type from mv.information_schema.tables')).rows).toEqual([
      ['result_daily_volume', 'VIEW'],
    ]);
    expect((await rows('select column_name, data_type from "MV".information_schema.columns')).rows).toEqual([
      ['day', 'timestamp(3)'],
      ['volume', 'uint256'],
    ]);
    // The public catalog's lists neither.
    expect(
      (await rows("select count(*) from information_schema.tables where table_schema = 'alice'")).rows,
    ).toEqual([['0']]);
  });

  it.each([
    ['select * from information_schema.views', 'information_schema.views is not available', 34],
    [
      'select * from hive.information_schema.tables',
      'Catalog hive does not exist: the catalogs are delta_prod, mv, dune',
      15,
    ],
  ])('refuses %s, saying what it has', async (sql, message, column) => {
    for (const target of ['duckdb', 'athena'] as const) {
      const error = await failure(sql, target);
      expect(error.kind).toBe('unsupported');
      expect(error.message).toContain(message);
      expect(error.position).toEqual({ line: 1, column });
    }
  });
});

describe('the public catalog', () => {
  it('names the public tables too, on both hosts: delta_prod.ethereum.transactions is ethereum.transactions', async () => {
    for (const target of ['duckdb', 'athena'] as const) {
      const translation = await translate('select hash from Delta_Prod.ethereum.transactions t', target, {
        catalog: CATALOG,
      });
      expect(translation.sql).toMatch(/FROM ethereum\.transactions (AS )?t$/);
    }
  });
});

describe('SHOW and DESCRIBE', () => {
  it('SHOW CATALOGS lists the public, uploaded-table and materialized-view catalogs', async () => {
    expect(await rows('show catalogs')).toEqual({
      columns: ['Catalog'],
      rows: [['delta_prod'], ['dune'], ['mv']],
    });
    expect((await rows("show catalogs like 'd%'")).rows).toEqual([['delta_prod'], ['dune']]);
  });

  it('list only the rows of the schema or table they name, so their SQL stays small', async () => {
    const translation = await translate('describe ethereum.transactions', 'athena', {
      catalog: listedTables(BASE_TABLES),
    });
    expect(translation.sql).not.toContain("'dex'");
    expect(Buffer.byteLength(translation.sql)).toBeLessThan(5_000);
  });

  it('SHOW SCHEMAS lists the schemas, LIKE filters them', async () => {
    expect(await rows('show schemas')).toEqual({
      columns: ['Schema'],
      rows: [['ethereum'], ['information_schema'], ['uniswap_v3_ethereum']],
    });
    expect((await rows("SHOW SCHEMAS FROM delta_prod LIKE 'uni%';")).rows).toEqual([['uniswap_v3_ethereum']]);
  });

  it('SHOW TABLES lists a schema`s tables, FROM or IN, quoted or not', async () => {
    expect(await rows('show tables from ethereum')).toEqual({ columns: ['Table'], rows: [['transactions']] });
    expect((await rows('show tables in "Uniswap_V3_Ethereum" like \'pair%\'')).rows).toEqual([
      ['pair_evt_swap'],
    ]);
    expect((await rows('show tables from delta_prod.ethereum')).rows).toEqual([['transactions']]);
  });

  it('reads a LIKE pattern and quoted names as values, never as SQL', async () => {
    expect((await rows("show tables from ethereum like ''' or true --'")).rows).toEqual([]);
    expect((await failure('show columns from "ethereum"."x\' or true --"')).message).toContain(
      "Table ethereum.x' or true -- does not exist",
    );
  });

  it('SHOW COLUMNS and DESCRIBE list Column, Type, Extra, Comment in column order', async () => {
    const expected = {
      columns: ['Column', 'Type', 'Extra', 'Comment'],
      rows: [
        ['block_time', 'timestamp(3)', '', 'When.'],
        ['hash', 'varbinary', '', "The transaction's hash."],
        ['value', 'uint256', '', "Wei, the sender's 'value'."],
      ],
    };
    expect(await rows('SHOW COLUMNS FROM ethereum.transactions')).toEqual(expected);
    expect(await rows('-- what is in it?\ndescribe delta_prod.ethereum.transactions')).toEqual(expected);
    expect(await rows('desc ethereum . "transactions"')).toEqual(expected);
    expect((await rows("show columns in ethereum.transactions like '%a%'")).rows).toEqual([
      ['hash', 'varbinary', '', "The transaction's hash."],
      ['value', 'uint256', '', "Wei, the sender's 'value'."],
    ]);
  });

  it.each([
    ['show tables', 'SHOW TABLES needs a schema'],
    ['show tables from solana', 'Schema solana does not exist'],
    ['show columns from ethereum.blocks', 'Table ethereum.blocks does not exist'],
    ['describe transactions', 'DESCRIBE needs the table'],
    ['show schemas from hive', 'Catalog hive does not exist'],
    ['show tables from mv.bob', 'Schema mv.bob does not exist (SHOW SCHEMAS FROM mv lists them)'],
    [
      'describe dune.alice.tags',
      'Table dune.alice.tags does not exist: no uploaded table of that name is readable',
    ],
  ])('%s fails saying what to write', async (sql, message) => {
    for (const target of ['duckdb', 'athena'] as const) {
      expect((await failure(sql, target)).message).toContain(message);
    }
  });

  it.each(['show create table ethereum.transactions', 'show session', 'describe output q'])(
    '%s is still not a query',
    async (sql) => {
      expect((await failure(sql)).kind).toBe('not_a_query');
    },
  );

  it('list uploaded tables and materialized views from their catalogs', async () => {
    expect((await rows('show schemas from dune')).rows).toEqual([['alice'], ['information_schema']]);
    expect((await rows('show tables from mv.alice')).rows).toEqual([['result_daily_volume']]);
    expect((await rows('describe dune.alice.labels')).rows).toEqual([
      ['address', 'varbinary', '', ''],
      ['label', 'varchar', '', ''],
    ]);
  });

  it('translates the same on Athena', async () => {
    const translation = await translate('show columns from ethereum.transactions', 'athena', {
      catalog: CATALOG,
    });
    expect(translation.sql).toMatch(/^SELECT column_name AS "Column", data_type AS "Type"/);
    expect(parse(translation.sql, Dialect.Trino).success).toBe(true);
  });
});

describe('SHOW FUNCTIONS', () => {
  const functionRow = (listing: { columns: string[]; rows: unknown[][] }, name: string) =>
    listing.rows.filter((row) => row[0] === name);

  it('lists the functions with Trino`s columns: Dune`s and Trino`s, aggregates, windows, determinism', async () => {
    const listing = await rows('show functions');
    expect(listing.columns).toEqual([
      'Function',
      'Return Type',
      'Argument Types',
      'Function Type',
      'Deterministic',
      'Description',
    ]);
    expect(functionRow(listing, 'varbinary_to_uint256')).toEqual([
      ['varbinary_to_uint256', 'uint256', 'varbinary', 'scalar', true, expect.stringMatching(/./)],
    ]);
    expect(functionRow(listing, 'approx_percentile')[0]?.[3]).toBe('aggregate');
    expect(functionRow(listing, 'row_number')[0]?.slice(0, 5)).toEqual([
      'row_number',
      'bigint',
      '',
      'window',
      true,
    ]);
    expect(functionRow(listing, 'rand')[0]?.[4]).toBe(false);
    expect(functionRow(listing, 'now')[0]?.[4]).toBe(true);
    // Documented twice (aggregates, arrays): listed once, as the aggregate.
    expect(functionRow(listing, 'array_agg').map((row) => row[3])).toEqual(['aggregate']);
    // Operators and keyword forms are not functions.
    expect(listing.rows.some((row) => /[^a-z0-9_]/.test(String(row[0])))).toBe(false);
    const names = listing.rows.map((row) => String(row[0]));
    expect(names).toEqual([...names].sort());
  });

  it('LIKE filters the names as Trino`s LIKE does (case-sensitive, ESCAPE)', async () => {
    const escaped = await rows("SHOW FUNCTIONS LIKE 'varbinary\\_to\\_%' ESCAPE '\\';");
    expect(escaped.rows.length).toBeGreaterThan(3);
    expect(escaped.rows.every((row) => String(row[0]).startsWith('varbinary_to_'))).toBe(true);
    expect((await rows("show functions like 'VARBINARY%'")).rows).toEqual([]);
    expect((await rows("show functions like 'no_such_function'")).rows).toEqual([]);
    expect((await rows("show functions like '%'")).rows.length).toBe(
      (await rows('show functions')).rows.length,
    );
  });

  it('lists on each engine what runs there', async () => {
    const entries = referenceEntries();
    for (const target of ['duckdb', 'athena'] as const) {
      const sql = (await translate("show functions like '%'", target)).sql;
      const missing = entries.find((e) => !(target === 'duckdb' ? e.local : e.athena).available);
      const present = entries.find(
        (e) => (target === 'duckdb' ? e.local : e.athena).available && /^[a-z_]+\(/.test(e.signatures[0]!),
      );
      expect(missing && present).toBeTruthy();
      expect(sql).not.toContain(`'${missing!.name}'`);
      expect(sql).toContain(`'${present!.name}'`);
    }
  });

  it.each([
    ['show functions from system.builtin', 'no user-defined functions, so no FROM schema'],
    ["show functions like 'a%' escape '!!'", 'Escape string must be a single character'],
  ])('%s fails saying what to write', async (sql, message) => {
    for (const target of ['duckdb', 'athena'] as const) {
      expect((await failure(sql, target)).message).toContain(message);
    }
  });
});
