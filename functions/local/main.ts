import { parseArgs } from 'node:util';
import { startLocalHost } from './host';

/** `npm start`: the whole service on local stand-ins, until Ctrl-C. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '3000' },
    'data-dir': { type: 'string', default: process.env.DATA_DIR ?? '.data' },
    scale: { type: 'string' },
    seed: { type: 'string' },
  },
  allowPositionals: false,
});

function numberOption(name: string, value: string | undefined, allowZero = false): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0 || (parsed === 0 && !allowZero)) {
    console.error(`--${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got "${value}"`);
    process.exit(2);
  }
  return parsed;
}

const started = Date.now();
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
const host = await startLocalHost({
  dataDir: values['data-dir']!,
  port: numberOption('port', values.port, true),
  scale: numberOption('scale', values.scale),
  seed: numberOption('seed', values.seed),
  log: (message) => console.log(message),
});

console.log(`
Onchain SQL service running locally (started in ${((Date.now() - started) / 1000).toFixed(1)} s)
  Base URL : ${host.baseUrl}
  API key  : ${host.apiKey}
  Sign-in  : ${host.login.email} / ${host.login.password}  (OAuth login page for MCP clients)
  MCP URL  : ${host.baseUrl}/mcp/v1
  Data     : ${values['data-dir']} (sample data scale ${host.warehouse.manifest.scale}, ${dataWindow(host.warehouse.manifest.window)})

Try:
  curl -s -H "x-service-api-key: ${host.apiKey}" ${host.baseUrl}/v1/datasets/search -d '{"query":"swap"}'

Press Ctrl-C to stop.`);

/** `2026-10-24 to 2026-11-22 UTC` (the end is exclusive, so the last day shown is the day before). */
function dataWindow(window: { start: string; end: string }): string {
  const lastDay = new Date(Date.parse(window.end) - 1).toISOString().slice(0, 10);
  return `blocks from ${window.start.slice(0, 10)} to ${lastDay} UTC`;
}

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal} received: shutting down...`);
  const timer = setTimeout(() => {
    console.error('Shutdown took too long; exiting.');
    process.exit(1);
  }, 10_000);
  await host.close();
  clearTimeout(timer);
  console.log('Stopped cleanly.');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
