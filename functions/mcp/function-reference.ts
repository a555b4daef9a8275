import { ATHENA_RULES, ATHENA_TYPES } from '../dunesql/athena-target';
import { DUCKDB_RULES, DUCKDB_TYPES } from '../dunesql/duckdb-target';
import { ATHENA_ONLY_FAMILIES, type CatalogEntry, DUNESQL_CATALOG } from './dunesql-catalog';

/**
 * The `query-engine-functions-and-operators` resource: the DuneSQL functions and operators users
 * can call, and where each runs. Static data (dunesql-catalog.ts) plus the translator's own rule
 * tables, so it is the same in a Lambda (no DuckDB there) as on the local host, and it follows the
 * translator: a function the translator rewrites is marked so from its rule table; the support
 * claims are checked against the local engine by test/dunesql/function-reference.test.ts.
 */
export const FUNCTIONS_URI = 'service://docs/query-engine-functions-and-operators';

/** How one engine runs an entry. */
export interface EngineSupport {
  available: boolean;
  /** Rewritten by the DuneSQL translator (locally: DuckDB macros or expressions; Athena: plain Trino). */
  translated: boolean;
  note?: string;
}

export interface ReferenceEntry extends CatalogEntry {
  category: string;
  local: EngineSupport;
  athena: EngineSupport;
}

/** Polyglot parses some calls into typed nodes; their rules are keyed by the node type. */
const RULE_KEY: Record<string, string> = { substr: 'substring', strpos: 'str_position' };

/** The function a rule key stands for (the node type of a call, or the function's own name). */
export const functionOfRule = (key: string): string =>
  Object.entries(RULE_KEY).find(([, node]) => node === key)?.[0] ?? key;

const hasRule = (rules: object, name: string) => Object.hasOwn(rules, RULE_KEY[name] ?? name);
const isType = (types: Record<string, string>, name: string) => Object.hasOwn(types, name.toUpperCase());

function localSupport(entry: CatalogEntry): EngineSupport {
  if (entry.notLocal) return { available: false, translated: false, note: entry.notLocal };
  return {
    available: true,
    translated: hasRule(DUCKDB_RULES, entry.name) || isType(DUCKDB_TYPES, entry.name),
    note: entry.localDiffers ?? entry.localNote,
  };
}

function athenaSupport(entry: CatalogEntry): EngineSupport {
  if (entry.notAthena) return { available: false, translated: false, note: entry.notAthena };
  return {
    available: true,
    translated: hasRule(ATHENA_RULES, entry.name) || isType(ATHENA_TYPES, entry.name),
  };
}

/**
 * Dune's `bytearray_*` names, as the translator knows them: each is documented as its
 * `varbinary_*` counterpart.
 */
function bytearrayAliases(varbinary: Map<string, CatalogEntry>): CatalogEntry[] {
  const names = new Set(
    [...Object.keys(DUCKDB_RULES), ...Object.keys(ATHENA_RULES)].filter((n) => n.startsWith('bytearray_')),
  );
  return [...names].sort().flatMap((name) => {
    const base = varbinary.get(name.replace('bytearray_', 'varbinary_'));
    if (!base) return [];
    const rename = (text: string) => text.replaceAll(base.name, name);
    const missing = (rules: object) =>
      Object.hasOwn(rules, name) ? undefined : `this name is not translated here; write ${base.name}.`;
    return [
      {
        ...base,
        name,
        signatures: base.signatures.map(rename),
        description: `Dune's older name of \`${base.name}\`: ${base.description}`,
        example: base.example === undefined ? undefined : rename(base.example),
        notLocal: base.notLocal ?? missing(DUCKDB_RULES),
        notAthena: base.notAthena ?? missing(ATHENA_RULES),
      },
    ];
  });
}

let entries: ReferenceEntry[] | undefined;

/** Every documented function and operator, by category, with where it runs. */
export function referenceEntries(): ReferenceEntry[] {
  if (entries) return entries;
  const byName = new Map(DUNESQL_CATALOG.flatMap((c) => c.entries).map((e) => [e.name, e]));
  entries = DUNESQL_CATALOG.flatMap((category) => {
    const own = category.entries;
    const aliases = own.some((e) => e.name.startsWith('varbinary_')) ? bytearrayAliases(byName) : [];
    return [...own, ...aliases].map((entry) => ({
      ...entry,
      category: category.title,
      local: localSupport(entry),
      athena: athenaSupport(entry),
    }));
  });
  return entries;
}

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
