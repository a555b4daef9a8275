/**
 * The README is executable: every fenced ```bash block runs, in order, in one bash session against a
 * fresh local host (empty store, sample warehouse), with `BASE` and `KEY` set as `npm start` would
 * print them. Blocks fenced ```sh are shown, not run (installing, deploying, configuring clients).
 *
 * Every request goes through a recording proxy, so a non-2xx answer fails the test even when the
 * example hides it (`curl -s -o file`), unless its block declares it with a `# → <status>` comment
 * (and a declared status must really occur, so the comments stay true).
 * A command that fails (set -e, pipefail) fails the test too, naming the block and its README line.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../support/test-host';

const README = join(import.meta.dirname, '../../README.md');
/** The script writes the index of the block it is running here; the proxy reads it per request. */
const CURRENT_BLOCK_FILE = join(tmpdir(), `readme-block-${process.pid}`);

interface ReadmeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** Non-2xx statuses the block says to expect (`# → 404`). */
  expectedStatuses: Set<number>;
}

function bashBlocks(markdown: string): ReadmeBlock[] {
  const blocks: ReadmeBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)(`{3,})(\S*)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const closing = lines.findIndex((text, j) => j > i && text.trim() === fence[2]);
    if (closing < 0) throw new Error(`README line ${i + 1}: unclosed code block`);
    if (fence[3] === 'bash') {
      const code = lines.slice(i + 1, closing).join('\n');
      const expectedStatuses = new Set([...code.matchAll(/→\s*(\d{3})\b/g)].map((m) => Number(m[1])));
      blocks.push({ line: i + 1, code, expectedStatuses });
    }
    i = closing;
  }
  return blocks;
}

interface Recorded {
  block: number;
  method: string;
  path: string;
  status: number;
}

/** Forwards to the host and remembers each answer's status with the block that asked. */
async function recordingProxy(
  target: string,
  recorded: Recorded[],
): Promise<{ url: string; server: Server }> {
  const upstream = new URL(target);
  const server = createServer((incoming, outgoing) => {
    // Requests from any client the examples run (curl, the MCP Inspector, the SDK) are attributed.
    const block = Number(readFileSync(CURRENT_BLOCK_FILE, 'utf8'));
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer) => {
        recorded.push({
          block,
          method: incoming.method ?? '',
          path: incoming.url ?? '',
          status: answer.statusCode ?? 0,
        });
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', (error) => {
      outgoing.writeHead(502);
      outgoing.end(String(error));
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function script(blocks: ReadmeBlock[], base: string, key: string): string {
  const prelude = ['set -euo pipefail', `BASE=${base}`, `KEY=${key}`];
  const body = blocks.flatMap((block, index) => [
    `echo ${index} > ${CURRENT_BLOCK_FILE}`,
    `echo "::readme block ${index} (README line ${block.line})" >&2`,
    block.code,
  ]);
  return [...prelude, ...body, 'echo "::readme done" >&2'].join('\n');
}

describe('README examples, run top to bottom on a fresh local host', () => {
  let host: TestHost;
  let proxy: Server;
  const recorded: Recorded[] = [];
  const blocks = bashBlocks(readFileSync(README, 'utf8'));

  beforeAll(async () => {
    writeFileSync(CURRENT_BLOCK_FILE, '-1');
    host = await startTestHost();
    const started = await recordingProxy(host.baseUrl, recorded);
    proxy = started.server;
    (host as TestHost & { proxyUrl: string }).proxyUrl = started.url;
  });
  afterAll(async () => {
    proxy?.close();
    rmSync(CURRENT_BLOCK_FILE, { force: true });
    await host?.stop();
  });

  it('has runnable examples', () => {
    expect(blocks.length).toBeGreaterThan(5);
  });

  it('runs every bash block in order, and every request answers 2xx unless the block expects otherwise', async () => {
    const base = (host as TestHost & { proxyUrl: string }).proxyUrl;
    const started = Date.now();
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve) => {
        const child = spawn('bash', ['-c', script(blocks, base, host.apiKey)], {
          // The repository root, as for a reader of the README (npm run admin, npx need it).
          cwd: join(import.meta.dirname, '../..'),
          env: { ...process.env, DATA_DIR: host.dataDir, npm_config_loglevel: 'silent' },
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk) => (out += chunk));
        child.stderr.on('data', (chunk) => (err += chunk));
        child.on('close', (status) => resolve({ code: status ?? -1, stdout: out, stderr: err }));
      },
    );
    const lastBlock = [...stderr.matchAll(/::readme block (\d+) \(README line (\d+)\)/g)].at(-1);
    const where = lastBlock ? `block ${lastBlock[1]} at README line ${lastBlock[2]}` : 'the prelude';
    expect(
      code,
      `README example failed in ${where}:\n${stderr.slice(-3000)}\n--- stdout ---\n${stdout.slice(-2000)}`,
    ).toBe(0);
    expect(stderr).toContain('::readme done');

    const unexpected = recorded.filter(
      (r) => (r.status < 200 || r.status > 299) && !blocks[r.block]?.expectedStatuses.has(r.status),
    );
    const describeRequest = (r: Recorded) =>
      `${r.method} ${r.path} → ${r.status} (README line ${blocks[r.block]?.line ?? '?'})`;
    expect(unexpected.map(describeRequest)).toEqual([]);
    // Each declared status must actually happen, so the comments stay true.
    for (const [index, block] of blocks.entries()) {
      for (const status of block.expectedStatuses) {
        expect(
          recorded.some((r) => r.block === index && r.status === status),
          `README line ${block.line} says a request answers ${status}; none did`,
        ).toBe(true);
      }
    }
    console.log(
      `README examples: ${blocks.length} bash blocks, ${recorded.length} requests, ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 300_000);
});

describe('bash block extraction', () => {
  it('takes only ```bash blocks, with their line and declared statuses', () => {
    const md = [
      '# T',
      '```sh',
      'npm start',
      '```',
      'text',
      '```bash',
      'curl x  # → 404',
      '```',
      '```json',
      '{}',
      '```',
    ].join('\n');
    const blocks = bashBlocks(md);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ line: 6, code: 'curl x  # → 404' });
    expect([...blocks[0]!.expectedStatuses]).toEqual([404]);
  });
});
