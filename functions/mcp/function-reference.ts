import { ATHENA_ONLY_FAMILIES, DUNESQL_CATALOG } from '../dunesql/function-catalog';
import { type EngineSupport, type ReferenceEntry, referenceEntries } from '../dunesql/function-support';

/**
 * The `query-engine-functions-and-operators` resource: the DuneSQL functions and operators users
 * can call, and where each runs (functions/dunesql/function-support.ts), as markdown.
 */
export const FUNCTIONS_URI = 'service://docs/query-engine-functions-and-operators';

function supportText(engine: string, support: EngineSupport, translatedAs: string): string {
  if (!support.available) return `${engine} ✗ (${support.note})`;
  const how = support.translated ? ` ${translatedAs}` : '';
  return `${engine} ✓${how}${support.note ? ` (${support.note})` : ''}`;
}

/** The pieces of an entry's text: its signatures, what it does, and where it runs. */
export function entryText(entry: ReferenceEntry): { signatures: string; about: string; support: string } {
  const example = entry.example
    ? ` e.g. \`${entry.example}\`${entry.result === undefined ? '' : ` → \`${entry.result}\``}.`
    : '';
  return {
    signatures: `${entry.signatures.map((s) => `\`${s}\``).join(' · ')}${entry.origin === 'dune' ? ' [Dune]' : ''}`,
    about: `${entry.description}${example}`,
    support: `${supportText('local', entry.local, 'via the translator')}; ${supportText('Athena', entry.athena, 'rewritten to Trino')}.`,
  };
}

/** One entry as a markdown list item: signatures, description, example, where it runs. */
export function entryLine(entry: ReferenceEntry): string {
  const { signatures, about, support } = entryText(entry);
  return `- ${signatures} — ${about} ${support}`;
}

export const FUNCTION_REFERENCE_INTRO = `# DuneSQL functions and operators

Queries here are written in **DuneSQL**: Trino SQL plus Dune's onchain extensions (\`0x…\` varbinary
literals, \`varbinary_*\` functions, \`uint256\`/\`int256\`). The same SQL runs on both engines:

- **local**: the local host translates DuneSQL to DuckDB before running it. "✓ via the translator"
  marks functions it rewrites (Trino semantics kept); "✗" says what to write instead.
- **Athena**: the AWS deployment runs Athena engine 3, which is Trino: Trino's functions run as
  written; Dune's extensions are rewritten to plain Trino ("rewritten to Trino").

Examples show Trino's answer (\`→\`); every example marked ✓ local gives that answer on the local
engine (checked in CI). Reading guide: service://docs/query-engine-writing-efficient-queries.`;

let markdown: string | undefined;

/** The whole reference as markdown (built once per process). */
export function functionReferenceMarkdown(): string {
  if (markdown) return markdown;
  const all = referenceEntries();
  const lines = [FUNCTION_REFERENCE_INTRO, ''];
  lines.push(
    `${all.length} entries; ${all.filter((e) => e.local.available).length} available locally, ${all.filter((e) => e.athena.available).length} on Athena.`,
  );
  for (const category of DUNESQL_CATALOG) {
    lines.push('', `## ${category.title}`, '');
    if (category.intro) lines.push(category.intro, '');
    for (const entry of all.filter((e) => e.category === category.title)) lines.push(entryLine(entry));
  }
  lines.push(
    '',
    '## Trino functions available on Athena only',
    '',
    'These Trino families run on Athena but have no counterpart on the local engine:',
    '',
    ...ATHENA_ONLY_FAMILIES.map((family) => `- ${family}`),
    '',
    'Reference for everything Trino offers: https://trino.io/docs/current/functions.html',
  );
  markdown = `${lines.join('\n')}\n`;
  return markdown;
}
