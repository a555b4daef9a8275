/**
 * The `query-engine-functions-and-operators` resource, generated from the engine's own catalog
 * (DuckDB's `duckdb_functions()`) so it cannot drift from what queries can call.
 */
export const FUNCTIONS_URI = 'service://docs/query-engine-functions-and-operators';

export interface EngineFunction {
  name: string;
  type: string;
  parameters: string[];
  parameterTypes: string[];
  returnType: string | null;
  description: string | null;
  example: string | null;
}

/** Where the engine's function catalog comes from (a port: DuckDB locally, Athena later). */
export interface FunctionCatalogSource {
  engineName: string;
  listFunctions(): Promise<EngineFunction[]>;
}

/**
 * DuckDB with the sandbox's extension settings (nothing auto-loaded), so the list is what user
 * SQL can call. Reached by a dynamic import only: DuckDB is never in a Lambda bundle.
 */
export const duckDbFunctionSource: FunctionCatalogSource = {
  engineName: 'DuckDB',
  async listFunctions() {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(':memory:', {
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      threads: '1',
    });
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll(
        `select function_name, function_type, parameters, parameter_types, return_type, description,
                examples[1] as example
           from duckdb_functions()
          where function_type in ('scalar', 'aggregate', 'macro', 'table', 'table_macro')
            and not starts_with(function_name, '__')
          order by function_type, function_name`,
      );
      return reader.getRowObjectsJson().map((row) => ({
        name: String(row.function_name),
        type: String(row.function_type),
        parameters: (row.parameters as string[] | null) ?? [],
        parameterTypes: (row.parameter_types as string[] | null) ?? [],
        returnType: (row.return_type as string | null) ?? null,
        description: (row.description as string | null) ?? null,
        example: (row.example as string | null) ?? null,
      }));
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  },
};

const SECTIONS: [string, string][] = [
  ['operator', 'Operators'],
  ['scalar', 'Scalar functions'],
  ['aggregate', 'Aggregate functions'],
  ['macro', 'Macros'],
  ['table', 'Table functions'],
  ['table_macro', 'Table macros'],
];
const MAX_SIGNATURES = 2;
const MAX_PARAMETERS = 5;
const MAX_DESCRIPTION = 200;

/** Compact markdown: one entry per name with up to two signatures, its description and an example. */
export function renderFunctionReference(functions: readonly EngineFunction[], engineName: string): string {
  const grouped = new Map<string, Map<string, EngineFunction[]>>();
  for (const fn of functions) {
    const section = fn.type === 'scalar' && !/^[a-z_]/i.test(fn.name) ? 'operator' : fn.type;
    const byName = grouped.get(section) ?? new Map<string, EngineFunction[]>();
    byName.set(fn.name, [...(byName.get(fn.name) ?? []), fn]);
    grouped.set(section, byName);
  }
  const lines = [
    `# Functions and operators (${engineName})`,
    '',
    `Generated from the engine's own catalog (\`duckdb_functions()\`): ${functions.length} signatures.`,
    'Each entry shows at most two signatures (named options of table functions are cut short). Table functions that read files or the network',
    '(`read_csv`, `read_parquet`, `glob`, …) are listed but refused by the SQL sandbox.',
  ];
  for (const [type, title] of SECTIONS) {
    const byName = grouped.get(type);
    if (!byName) continue;
    lines.push('', `## ${title}`, '');
    for (const [name, overloads] of [...byName].sort(([a], [b]) => a.localeCompare(b))) {
      const signatures = [...new Set(overloads.map(signatureOf))];
      const shown = signatures.slice(0, MAX_SIGNATURES).join(' · ');
      const more = signatures.length > MAX_SIGNATURES ? ` (+${signatures.length - MAX_SIGNATURES} more)` : '';
      const documented = overloads.find((fn) => fn.description);
      const description = documented?.description ? ` — ${trimmed(documented.description)}` : '';
      const example = overloads.find((fn) => fn.example)?.example;
      lines.push(
        `- \`${name}\`: \`${shown}\`${more}${description}${example ? ` e.g. \`${example.replace(/`/g, "'")}\`` : ''}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

function trimmed(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_DESCRIPTION ? flat : `${flat.slice(0, MAX_DESCRIPTION - 1)}…`;
}

function signatureOf(fn: EngineFunction): string {
  const args = fn.parameters.slice(0, MAX_PARAMETERS).map((p, i) => {
    const type = fn.parameterTypes[i];
    return type && type !== 'ANY' ? `${p} ${type}` : p;
  });
  if (fn.parameters.length > MAX_PARAMETERS) args.push('…');
  return `${fn.name}(${args.join(', ')})${fn.returnType ? ` → ${fn.returnType}` : ''}`;
}

let cached: Promise<string> | undefined;

/** The reference for the engine this process runs; generated once per process. */
export function functionReferenceMarkdown(source = duckDbFunctionSource): Promise<string> {
  if (process.env.SERVICE_RUNTIME === 'aws') {
    return Promise.resolve(
      '# Functions and operators\n\nThe Athena (Trino) function reference is not generated in this deployment yet; see https://trino.io/docs/current/functions.html.\n',
    );
  }
  cached ??= source
    .listFunctions()
    .then((functions) => renderFunctionReference(functions, source.engineName));
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}
