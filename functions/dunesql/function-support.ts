import { ATHENA_RULES, ATHENA_TYPES } from './athena-target';
import { DUCKDB_RULES, DUCKDB_TYPES } from './duckdb-target';
import { type CatalogEntry, DUNESQL_CATALOG } from './function-catalog';

/**
 * Where each documented DuneSQL function and operator runs: the static catalog
 * (function-catalog.ts) joined with the translator's own rule tables, so it follows the translator
 * (a function it rewrites is marked so from its rule table) and is the same in a Lambda as on the
 * local host. Read by the MCP functions resource (functions/mcp/function-reference.ts) and by
 * `SHOW FUNCTIONS` (show-functions.ts); the claims are checked against the local engine by
 * test/dunesql/function-reference.test.ts.
 */
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
