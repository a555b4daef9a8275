import { Dialect, parse } from '@polyglot-sql/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_TABLES } from '../../functions/datasets/base-tables';
import { listedTables, translate } from '../../functions/dunesql';
import { prepareSource } from '../../functions/dunesql/source-text';
import { waitUntilFinished } from '../support/executions';
import { bodyOf, type Json, startTestHost, type TestHost } from '../support/test-host';
import { type CorpusQuery, loadCorpus } from './corpus';

/**
 * The DuneSQL compatibility corpus (issue 8 item 5): every query in test/dunesql/corpus runs through
 * the HTTP API of a local host, as a user's would, and must give a plausible answer (rows within its
 * bounds, Trino's column names and DuneSQL types) or, for the silent-difference cases, Trino's exact
 * answer; the expected failures must fail with a message naming the construct. Each query must also
 * parse as Trino, and its Athena translation too, so what runs locally runs on Athena.
 */
const corpus = loadCorpus();
const CONCURRENCY = 4;

interface Outcome {
  state: string;
  error?: string;
  names?: string[];
  types?: string[];
  rowCount?: number;
  rows?: Json[];
}

describe('the DuneSQL compatibility corpus', () => {
  let host: TestHost;
  const outcomes = new Map<string, Outcome>();

  beforeAll(async () => {
    host = await startTestHost(undefined, { execution: { maxConcurrentExecutions: CONCURRENCY } });
    const queue = [...corpus];
    const worker = async () => {
      for (let query = queue.shift(); query; query = queue.shift()) {
        outcomes.set(query.name, await run(host, query));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  }, 300_000);
  afterAll(() => host?.stop());

  it('holds at least 150 dashboard and Spellbook-style queries besides the difference and error cases', () => {
    expect(corpus.filter((query) => /^\d/.test(query.name)).length).toBeGreaterThanOrEqual(150);
    expect(corpus.filter((query) => query.result).length).toBeGreaterThanOrEqual(20);
  });

  it.each(corpus.map((query) => [query.name, query] as const))('%s', (_, query) => {
    const outcome = outcomes.get(query.name);
    expect(outcome, 'the query ran').toBeDefined();
    if (!outcome) return;
    if (query.error) {
      // Refused when submitted (400) or failed when run, with the message either way.
      expect(outcome.state).toMatch(/^(QUERY_STATE_FAILED|HTTP 400)$/);
      expect(outcome.error).toMatch(query.error);
      return;
    }
    expect(outcome.state, outcome.error).toBe('QUERY_STATE_COMPLETED');
    expect(columnsOf(outcome)).toEqual(query.columns?.map((column) => `${column.name} ${column.type}`));
    expect(outcome.rowCount).toBeGreaterThanOrEqual(query.rows?.min ?? 0);
    expect(outcome.rowCount).toBeLessThanOrEqual(query.rows?.max ?? Number.POSITIVE_INFINITY);
    if (query.result) expect(outcome.rows).toEqual(query.result);
  });
});

/** The Athena engine lists its catalog's tables in information_schema and the SHOW statements. */
const AS_THE_ENGINE_DOES = { catalog: listedTables(BASE_TABLES) };

describe('every corpus query is Trino', () => {
  it.each(corpus.map((query) => [query.name, query] as const))(
    '%s parses as Trino, also translated for Athena',
    async (_, query) => {
      // Dune's `0x…` literals are Dune's extension of Trino's parser; read them as Trino's X'…'.
      const parsed = parse(prepareSource(query.sql).text, Dialect.Trino);
      expect(parsed.success, parsed.error ?? undefined).toBe(true);
      if (query.error) return;
      if (query.athenaError) {
        await expect(translate(query.sql, 'athena', AS_THE_ENGINE_DOES)).rejects.toThrow(query.athenaError);
        return;
      }
      const athena = await translate(query.sql, 'athena', AS_THE_ENGINE_DOES);
      const translated = parse(athena.sql, Dialect.Trino);
      expect(translated.success, `${translated.error}\n${athena.sql}`).toBe(true);
    },
  );
});

async function run(host: TestHost, query: CorpusQuery): Promise<Outcome> {
  const response = await host.call('/v1/sql/execute', { json: { sql: query.sql } });
  const submitted = await bodyOf(response);
  if (response.status !== 200) return { state: `HTTP ${response.status}`, error: submitted.error };
  const status = await waitUntilFinished(host, submitted.execution_id, 120_000);
  if (status.state !== 'QUERY_STATE_COMPLETED') return { state: status.state, error: status.error?.message };
  const page = await bodyOf(await host.call(`/v1/execution/${submitted.execution_id}/results?limit=1000`));
  const { metadata, rows } = page.result;
  return {
    state: status.state,
    names: metadata.column_names,
    types: metadata.column_types,
    rowCount: metadata.total_row_count,
    // Results are objects keyed by column; the corpus states rows as arrays in column order.
    rows: rows.map((row: Json) => metadata.column_names.map((name: string) => row[name])),
  };
}

function columnsOf(outcome: Outcome): string[] | undefined {
  return outcome.names?.map((name, i) => `${name} ${outcome.types?.[i]}`);
}
