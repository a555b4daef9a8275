import { describe, expect, it, vi } from 'vitest';
import { athenaTableSchemas } from '../../functions/aws/catalog/glue-tables';
import { BASE_TABLES } from '../../functions/datasets/base-tables';
import { listedTables, translate } from '../../functions/dunesql';
import { chainOfCtes, unionOfSelects } from './large-statements';

/**
 * What typing a statement asks of polyglot's analysis, counted rather than timed: it grows with
 * the statement, not with the ways through its CTEs, and no question grows with the CTEs behind
 * the one it is about. (A real dashboard query, a chain of CTEs each joining earlier ones, took
 * 40 s to minutes to translate while each reader of a CTE typed that CTE anew.)
 */
const asked = vi.hoisted(() => ({ analyses: 0, longest: 0 }));
vi.mock('@polyglot-sql/sdk', async (importOriginal) => {
  const real = await importOriginal<typeof import('@polyglot-sql/sdk')>();
  return {
    ...real,
    analyzeQuery: (sql: string, options?: Parameters<typeof real.analyzeQuery>[1]) => {
      asked.analyses++;
      asked.longest = Math.max(asked.longest, sql.length);
      return real.analyzeQuery(sql, options);
    },
  };
});

const TABLES = athenaTableSchemas(BASE_TABLES);
const CATALOG = listedTables(BASE_TABLES);

async function workOf(sql: string, target: 'duckdb' | 'athena') {
  asked.analyses = 0;
  asked.longest = 0;
  const translation = await translate(sql, target, { tables: TABLES, catalog: CATALOG });
  return { translation, analyses: asked.analyses, longest: asked.longest };
}

describe('the work of typing a statement', () => {
  it.each(['duckdb', 'athena'] as const)(
    'grows with a chain of CTEs, not with the ways through it (%s)',
    async (target) => {
      const short = await workOf(chainOfCtes(6), target);
      const long = await workOf(chainOfCtes(12), target);
      expect(short.analyses).toBeGreaterThan(0);
      expect(long.analyses).toBeLessThanOrEqual(short.analyses * 2.5);
      expect(long.longest).toBeLessThanOrEqual(short.longest + 20);
      if (target === 'athena') {
        // Typed through all twelve CTEs: the array comes back as JSON, the varbinary as 0x text.
        expect(long.translation.sql).toMatch(/CAST\(ARRAY\[v, v \* 2\] AS JSON\)/i);
        expect(long.translation.sql).toContain("'0x' || LOWER(TO_HEX(tx_hash))");
      }
    },
  );
});

describe('a deeply nested statement', () => {
  it.each(['duckdb', 'athena'] as const)(
    'translates: a UNION ALL of 200 SELECTs, as dashboards stack one query per chain (%s)',
    async (target) => {
      const sql = unionOfSelects(200);
      const translation = await translate(sql, target, { tables: TABLES, catalog: CATALOG });
      expect(translation.sql.match(/UNION ALL/gi)).toHaveLength(199);
    },
  );
});
