/**
 * The docs cannot drift from the code: every route of the route table has a row in the README's
 * endpoint tables (and every row is a route), and the MCP tool tables of the README and
 * docs/mcp.md list exactly the registered tools (MCP_TOOLS is what tools/list returns; see
 * test/integration/mcp-server.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes';
import { MCP_TOOLS } from '../support/mcp-tools';

const ROOT = join(import.meta.dirname, '../..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const mcpDoc = readFileSync(join(ROOT, 'docs/mcp.md'), 'utf8');

/** `METHOD /path` of each table row whose first cell is one, e.g. "| `GET /v1/queries` | …". */
function documentedEndpoints(markdown: string): string[] {
  return [...markdown.matchAll(/^\|\s*`(GET|POST|PATCH|PUT|DELETE) (\/[^`\s?]*)`\s*\|/gm)].map(
    (match) => `${match[1]} ${match[2]}`,
  );
}

/** Names in the first column of the tables under a heading, up to the next heading of that level. */
function firstColumnNames(markdown: string, heading: string): string[] {
  const text = `\n${markdown}`;
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`heading "${heading}" not found`);
  const level = heading.split(' ')[0]!;
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^${level} `, 'm'));
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^\|\s*`(\w+)`\s*\|/gm)].map((match) => match[1]!);
}

describe('docs match the code', () => {
  it('the README documents every route of the route table, and only those', () => {
    const documented = documentedEndpoints(readme);
    const actual = routes.map((route) => `${route.method} ${route.path}`);
    const missing = actual.filter((route) => !documented.includes(route));
    const stale = documented.filter((route) => !actual.includes(route));
    expect(
      missing,
      'routes without a README table row (add "| `METHOD /path` | what |" to their section)',
    ).toEqual([]);
    expect(stale, 'README rows for routes that do not exist (fix or remove them)').toEqual([]);
    expect(new Set(documented).size, 'a route documented twice').toBe(documented.length);
  });

  it('the README and docs/mcp.md list exactly the registered MCP tools', () => {
    expect(firstColumnNames(readme, '## MCP server').sort()).toEqual([...MCP_TOOLS]);
    expect(firstColumnNames(mcpDoc, '## Tools').sort()).toEqual([...MCP_TOOLS]);
  });

  it('parses endpoint rows and tool rows as intended', () => {
    const md = '| `GET /v1/a/{id}` | x |\n| `POST /v1/b?x=1` | y |\n| text `GET /no` | z |\n';
    expect(documentedEndpoints(md)).toEqual(['GET /v1/a/{id}']);
    expect(firstColumnNames('## T\n| `tool` | x |\n## U\n| `other` | y |\n', '## T')).toEqual(['tool']);
  });
});
