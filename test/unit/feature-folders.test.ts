import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const FUNCTIONS = resolve(import.meta.dirname, '../../functions');

/** Use-case folders (functions/README.md); core, http, aws, local and the root files are below or beside them. */
const FEATURE_FOLDERS = [
  'accounts',
  'dashboards',
  'datasets',
  'executions',
  'home',
  'matviews',
  'mcp',
  'oauth',
  'pipelines',
  'queries',
  'runner',
  'visualizations',
];

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** folder → folders it imports (type imports included: they couple the folders all the same). */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  const folderOf = (path: string) => relative(FUNCTIONS, path).split('/')[0]!;
  for (const file of sourceFiles(FUNCTIONS)) {
    const from = folderOf(file);
    if (!FEATURE_FOLDERS.includes(from)) continue;
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const to = folderOf(resolve(dirname(file), match[1] ?? match[2]!));
      if (to === from || !FEATURE_FOLDERS.includes(to)) continue;
      const edges = graph.get(from) ?? new Map<string, string>();
      edges.set(to, `${relative(FUNCTIONS, file)} imports ${match[1] ?? match[2]}`);
      graph.set(from, edges);
    }
  }
  return graph;
}

/** Every cycle found by a depth-first search, each as the import lines that close it. */
function cycles(graph: Map<string, Map<string, string>>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const visit = (folder: string, path: string[]) => {
    if (path.includes(folder)) {
      const loop = [...path.slice(path.indexOf(folder)), folder];
      found.push(loop.slice(1).map((to, i) => graph.get(loop[i]!)!.get(to)!));
      return;
    }
    if (done.has(folder)) return;
    for (const next of graph.get(folder)?.keys() ?? []) visit(next, [...path, folder]);
    done.add(folder);
  };
  for (const folder of FEATURE_FOLDERS) visit(folder, []);
  return found;
}

describe('feature folders', () => {
  it('import each other in one direction only (no cycle between folders)', () => {
    expect(cycles(folderGraph())).toEqual([]);
  });

  it('put the runner on top: nothing imports it but the hosts', () => {
    const graph = folderGraph();
    const importers = [...graph].filter(([, edges]) => edges.has('runner')).map(([folder]) => folder);
    expect(importers).toEqual([]);
    // The check itself sees real edges: the runner drives executions and pipelines.
    expect([...(graph.get('runner')?.keys() ?? [])]).toEqual(
      expect.arrayContaining(['executions', 'pipelines']),
    );
  });

  it('detects a cycle when there is one', () => {
    const graph = new Map([
      ['executions', new Map([['pipelines', 'a imports b']])],
      ['pipelines', new Map([['executions', 'b imports a']])],
    ]);
    expect(cycles(graph)).toEqual([['a imports b', 'b imports a']]);
  });
});
