import { access, readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import MiniSearch from 'minisearch';
import { referenceEntries } from '../dunesql/function-support';
import { entryText, FUNCTION_REFERENCE_INTRO, FUNCTIONS_URI } from './function-reference';
import { EFFICIENT_QUERIES_MARKDOWN, EFFICIENT_QUERIES_URI } from './resources';

export interface DocSection {
  id: string;
  title: string;
  /** Repository-relative file path and heading anchor, or a resource URI. */
  path: string;
  text: string;
}

export interface DocHit {
  title: string;
  path: string;
  snippet: string;
  score: number;
}

/**
 * Where README.md and docs/ are: the repository root as seen from this module (functions/mcp/),
 * or, in a Lambda bundle, the bundle's own directory (the stack copies them beside index.mjs).
 */
const ROOT_CANDIDATES = [new URL('../../', import.meta.url), new URL('./', import.meta.url)].map((url) =>
  fileURLToPath(url),
);

async function docsRoot(): Promise<string> {
  for (const candidate of ROOT_CANDIDATES) {
    if (
      await access(join(candidate, 'README.md')).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return ROOT_CANDIDATES[0]!;
}

let cached: Promise<MiniSearch<DocSection> & { sections: Map<string, DocSection> }> | undefined;

export function searchDocs(query: string, limit: number, root?: string): Promise<DocHit[]> {
  cached ??= (root ? Promise.resolve(root) : docsRoot()).then(buildIndex);
  return cached.then((index) =>
    index
      .search(query, { prefix: (t) => t.length >= 3, fuzzy: (t) => (t.length >= 5 ? 0.2 : false) })
      .slice(0, limit)
      .map((hit) => {
        const section = index.sections.get(hit.id)!;
        return {
          title: section.title,
          path: section.path,
          snippet: snippetOf(section.text, hit.terms),
          score: Math.round(hit.score * 100) / 100,
        };
      }),
  );
}

async function buildIndex(root: string) {
  const sections: DocSection[] = splitSections(EFFICIENT_QUERIES_MARKDOWN, EFFICIENT_QUERIES_URI);
  const files = ['README.md', ...(await markdownFiles(join(root, 'docs'))).map((f) => relative(root, f))];
  for (const file of files) {
    const text = await readFile(join(root, file), 'utf8').catch(() => undefined);
    if (text !== undefined) sections.push(...splitSections(text, file));
  }
  sections.push(...functionSections());
  const index = new MiniSearch<DocSection>({
    fields: ['title', 'text'],
    storeFields: [],
    processTerm: (term) => term.toLowerCase(),
    searchOptions: { boost: { title: 3 } },
  }) as MiniSearch<DocSection> & { sections: Map<string, DocSection> };
  index.addAll(sections);
  index.sections = new Map(sections.map((s) => [s.id, s]));
  return index;
}

/** The reference's introduction, then one entry per function, so `to_hex` finds its signature. */
function functionSections(): DocSection[] {
  const intro = splitSections(FUNCTION_REFERENCE_INTRO, FUNCTIONS_URI);
  return [
    ...intro,
    ...referenceEntries().map((entry, i) => {
      // Signature and support first: snippets show the text around the first matched term.
      const { signatures, about, support } = entryText(entry);
      return {
        id: `${FUNCTIONS_URI}#entry-${i}`,
        title: `${entry.name} (${entry.origin === 'dune' ? 'Dune function' : 'function'})`,
        path: `${FUNCTIONS_URI}#${entry.name.replaceAll(' ', '-')}`,
        text: `${signatures} ${support} ${about} (${entry.category})`,
      };
    }),
  ];
}

async function markdownFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await markdownFiles(full)));
    else if (entry.name.endsWith('.md')) found.push(full);
  }
  return found.sort();
}

/** One section per heading (outside code fences); the title carries the parent heading for context. */
export function splitSections(markdown: string, path: string): DocSection[] {
  const sections: DocSection[] = [];
  let title = path;
  let parent = '';
  let lines: string[] = [];
  let inFence = false;
  const flush = () => {
    const text = lines.join('\n').trim();
    if (text)
      sections.push({ id: `${path}#${sections.length}`, title, path: `${path}#${slug(title)}`, text });
    lines = [];
  };
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const heading = inFence ? null : /^(#{1,4})\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      const level = heading[1]!.length;
      const text = heading[2]!.trim();
      if (level <= 2) parent = text;
      title = level <= 2 || !parent ? text : `${parent} › ${text}`;
      continue;
    }
    lines.push(line);
  }
  flush();
  return sections;
}

function slug(title: string): string {
  const last = title.split(' › ').pop() ?? title;
  return last
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/\s+/g, '-');
}

function snippetOf(text: string, terms: string[]): string {
  const flat = text.replace(/\s+/g, ' ');
  const lower = flat.toLowerCase();
  const at = terms.map((t) => lower.indexOf(t.toLowerCase())).filter((i) => i >= 0);
  const start = at.length ? Math.max(0, Math.min(...at) - 80) : 0;
  const snippet = flat.slice(start, start + 240).trim();
  return `${start > 0 ? '…' : ''}${snippet}${start + 240 < flat.length ? '…' : ''}`;
}
