import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitTopLevel } from '../../functions/core/sql-types';

/**
 * The DuneSQL compatibility corpus: one query per `corpus/*.sql` file, its expectations in header
 * comments (`-- key: value`):
 *
 * - `rows: 3` or `rows: 12..24` (or `rows: 1..`): bounds on the row count of a completed run;
 * - `columns: day timestamp(3), blockchain varchar`: result column names and their DuneSQL types
 *   (what the results API reports in `column_names` / `column_types`);
 * - `result: [[3, -3]]`: the exact rows (JSON as the results API renders them), for the cases where
 *   Trino and DuckDB answer differently without an error;
 * - `error: Syntax error: .*`: the run must fail, with a message matching the pattern;
 * - `athena-error: keccak\(\) is not available on Athena`: the query runs locally, and its
 *   translation for Athena is refused with a message matching the pattern;
 * - `see: <url>`: where Trino's (or Dune's) answer is documented.
 */
export interface CorpusQuery {
  name: string;
  sql: string;
  rows?: { min: number; max: number };
  columns?: { name: string; type: string }[];
  result?: unknown[][];
  error?: RegExp;
  athenaError?: RegExp;
}

export const CORPUS_DIR = join(import.meta.dirname, 'corpus');

export function loadCorpus(dir = CORPUS_DIR): CorpusQuery[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => parseCorpusFile(file.replace(/\.sql$/, ''), readFileSync(join(dir, file), 'utf8')));
}

export function parseCorpusFile(name: string, sql: string): CorpusQuery {
  const query: CorpusQuery = { name, sql };
  for (const match of sql.matchAll(/^--\s*(rows|columns|result|error|athena-error):\s*(.*?)\s*$/gm)) {
    const [, key, value] = match as unknown as [string, string, string];
    switch (key) {
      case 'rows':
        query.rows = rowBounds(name, value);
        break;
      case 'columns':
        query.columns = splitTopLevel(value)
          .filter(Boolean)
          .map((column) => {
            const [, columnName, type] = /^(\S+)\s+(.+)$/.exec(column) ?? [];
            if (!columnName || !type) throw new Error(`${name}: bad column "${column}"`);
            return { name: columnName, type };
          });
        break;
      case 'result':
        query.result = JSON.parse(value);
        break;
      case 'error':
        query.error = new RegExp(value, 'i');
        break;
      case 'athena-error':
        query.athenaError = new RegExp(value, 'i');
        break;
    }
  }
  if (!query.error && (!query.rows || !query.columns)) {
    throw new Error(`${name}: a corpus query states its rows and columns (or the error it must fail with)`);
  }
  return query;
}

function rowBounds(name: string, value: string): { min: number; max: number } {
  const match = /^(\d+)(?:\.\.(\d*))?$/.exec(value);
  if (!match) throw new Error(`${name}: bad rows "${value}"`);
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : match[2] === '' ? Number.POSITIVE_INFINITY : Number(match[2]);
  return { min, max };
}
