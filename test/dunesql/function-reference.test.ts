import { Dialect, validate } from '@polyglot-sql/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DUCKDB_SESSION_SETUP, translate } from '../../functions/dunesql';
import { ATHENA_RULES } from '../../functions/dunesql/athena-target';
import { DUCKDB_RULES } from '../../functions/dunesql/duckdb-target';
import {
  functionOfRule,
  type ReferenceEntry,
  referenceEntries,
} from '../../functions/dunesql/function-support';
import { openSandbox, type Sandbox } from '../../functions/local/engine/sandbox';
import { functionReferenceMarkdown } from '../../functions/mcp/function-reference';

/**
 * The function reference may not claim what the engines do not do: every example runs through the
 * translator on a DuckDB sandbox configured like the engine's (no extensions loaded, the session
 * setup of translated DuneSQL), and must give Trino's answer where the reference says it runs
 * locally, and fail where it says it does not. For Athena, the translated Trino must parse and no
 * longer call the Dune extension.
 */

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await openSandbox({
    limits: { threads: 1, memoryLimit: '512MB' },
    prepare: [...DUCKDB_SESSION_SETUP],
    duneFunctions: true,
  });
});
afterAll(() => sandbox?.close());

const isStatement = (sql: string) => /^\s*(select|with)\b/i.test(sql);
const statementOf = (example: string) => (isStatement(example) ? example : `select ${example}`);

/** A statement whose one value says whether the example equals its documented Trino result. */
function comparison(entry: ReferenceEntry): string {
  const { example, result } = entry as Required<ReferenceEntry>;
  return isStatement(example)
    ? `select (c) is not distinct from (${result}) from (${example}) as q (c)`
    : `select (${example}) is not distinct from (${result})`;
}

async function runLocally(sql: string): Promise<unknown> {
  const translation = await translate(sql, 'duckdb');
  const reader = await sandbox.connection.runAndReadAll(translation.sql);
  return reader.getRowsJson()[0]?.[0];
}

const withExamples = referenceEntries().filter((e) => e.example !== undefined);
const label = (e: ReferenceEntry) => `${e.category} › ${e.name}: ${e.example}`;

describe('the DuneSQL function reference matches the local engine', () => {
  it.each(withExamples.filter((e) => e.local.available).map((e) => [label(e), e] as const))(
    'runs locally: %s',
    async (_, entry) => {
      await runLocally(statementOf(entry.example!));
      if (entry.result === undefined) return;
      if (entry.localDiffers) {
        // A comparison that cannot even bind (an array against text) differs too.
        const equal = await runLocally(comparison(entry)).catch(() => 'not comparable');
        expect(equal, `${entry.name} is documented as answering differently locally`).not.toBe(true);
      } else {
        const equal = await runLocally(comparison(entry));
        expect(equal, `${entry.name} should give Trino's answer ${entry.result}`).toBe(true);
      }
    },
  );

  it.each(withExamples.filter((e) => !e.local.available).map((e) => [label(e), e] as const))(
    'is refused locally, as documented: %s',
    async (_, entry) => {
      const outcome = await runLocally(statementOf(entry.example!)).then(
        () => 'ran',
        () => 'failed',
      );
      expect(outcome, `${entry.name} runs locally now: document it as supported`).toBe('failed');
    },
  );
});

describe('the DuneSQL function reference matches the Athena translation', () => {
  const dune = withExamples.filter((e) => e.origin === 'dune');
  it.each(dune.filter((e) => e.athena.available).map((e) => [label(e), e] as const))(
    'is rewritten to plain Trino: %s',
    async (_, entry) => {
      const { sql } = await translate(statementOf(entry.example!), 'athena');
      expect(sql.toLowerCase()).not.toMatch(new RegExp(`\\b${entry.name}\\b`));
      expect(validate(sql, Dialect.Trino).valid, sql).toBe(true);
    },
  );
  it.each(dune.filter((e) => !e.athena.available).map((e) => [label(e), e] as const))(
    'is not rewritten for Athena, as documented: %s',
    async (_, entry) => {
      const sql = await translate(statementOf(entry.example!), 'athena').then(
        (t) => t.sql.toLowerCase(),
        () => undefined,
      );
      if (sql !== undefined) expect(sql).toMatch(new RegExp(`\\b${entry.name}\\s*\\(`));
    },
  );
});

describe('the DuneSQL function reference covers the translator', () => {
  it('documents every function the translator rewrites, for either engine', () => {
    // An entry documents its name and the other spellings its signatures list (dow, all_match, ...).
    const documented = new Set(
      referenceEntries().flatMap((e) => [
        e.name,
        ...e.signatures.map((s) => /^[a-z_0-9]+/i.exec(s)?.[0]?.toLowerCase() ?? ''),
      ]),
    );
    // Rules keyed by syntax node rather than by function name.
    const syntaxRules = new Set([
      'window_function',
      'alias',
      'literal',
      'add',
      'sub',
      'div',
      'parse_json',
      'at_time_zone',
    ]);
    const rewritten = [...Object.keys(DUCKDB_RULES), ...Object.keys(ATHENA_RULES)]
      .filter((n) => !syntaxRules.has(n))
      .map(functionOfRule);
    const missing = [...new Set(rewritten)].filter((name) => !documented.has(name));
    expect(missing, 'add these to functions/dunesql/function-catalog.ts').toEqual([]);
  });

  it('marks rewritten functions and Dune extensions, and is plain markdown grouped by category', () => {
    const markdown = functionReferenceMarkdown();
    expect(markdown).toMatch(/^# DuneSQL functions and operators\n/);
    expect(markdown).toContain('## Varbinary functions (Dune)');
    expect(markdown).toContain('## Date and time functions and operators');
    const line = (name: string) => markdown.split('\n').find((l) => l.startsWith(`- \`${name}(`));
    expect(line('varbinary_to_uint256')).toMatch(/local ✓ via the translator.*Athena ✓ rewritten to Trino/);
    expect(line('bytearray_to_uint256')).toMatch(/older name of `varbinary_to_uint256`/);
    expect(line('arbitrary')).toMatch(/local ✓; Athena ✓\.$/);
    expect(line('approx_distinct')).toMatch(/local ✓ via the translator \(counted exactly: /);
    expect(line('keccak')).toMatch(/local ✓; Athena ✗ \(no Keccak-256 in Athena/);
  });
});
