import type { Account } from '../core/accounts';
import type { Dashboard } from '../core/dashboards';
import type { ResultValue } from '../core/engine';
import { ServiceError } from '../core/errors';
import type { Visualization } from '../core/visualizations';
import { latestCompletedExecution } from '../executions/results';
import { escapeHtml } from '../http/html';
import type { Services } from '../services';
import type { TableOptions } from '../visualizations/options';
import { readableVisualization, renderVisualization } from '../visualizations/use-cases';

/** Rows a table widget shows on the page at most. */
const MAX_TABLE_ROWS = 100;
const MAX_CELL_CHARS = 200;

/** Security headers of the page: nothing runs, images come only from data: URIs, no referrer (the link holds a key). */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;background:#f5f7fa;color:#1f2933}
header{padding:20px 28px 8px}h1{margin:0 0 4px;font-size:26px}.meta{color:#616e7c;margin:0;font-size:13px}
main{display:grid;grid-template-columns:repeat(6,minmax(0,1fr));gap:16px;padding:16px 28px 40px}
.widget{background:#fff;border:1px solid #e4e7eb;border-radius:8px;padding:14px 16px;overflow:auto}
.widget.text{background:transparent;border:none;padding:4px 2px}
figure{margin:0}figcaption{font-weight:600;margin-bottom:8px}figure img{width:100%;height:auto;display:block}
table{border-collapse:collapse;font-size:13px;width:100%}th,td{border-bottom:1px solid #e4e7eb;padding:4px 8px;text-align:left;white-space:nowrap}
.error{color:#ab091e}.note{color:#616e7c;font-size:12px}code{background:#eef1f4;padding:0 3px;border-radius:3px}
`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function notFoundPage(): string {
  return page(
    'Dashboard not found',
    '<header><h1>Dashboard not found</h1><p class="meta">This link is wrong, was replaced, or the dashboard was archived.</p></header>',
  );
}

/** Inline markup after escaping: **bold** and `code`. */
function inline(text: string): string {
  return escapeHtml(text)
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/`([^`]+)`/g, '<code>$1</code>');
}

/**
 * A small, safe Markdown subset: `#`–`###` headings, `- ` lists, paragraphs, **bold**, `code`.
 * Everything is escaped first; no raw HTML, links or images pass through.
 */
export function renderText(text: string): string {
  const out: string[] = [];
  let list: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) out.push(`<p>${paragraph.map(inline).join('<br>')}</p>`);
    if (list.length) out.push(`<ul>${list.map((item) => `<li>${inline(item)}</li>`).join('')}</ul>`);
    paragraph = [];
    list = [];
  };
  for (const line of text.split(/\r?\n/)) {
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    const item = /^\s*[-*]\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      const level = heading[1]!.length + 1;
      out.push(`<h${level}>${inline(heading[2]!)}</h${level}>`);
    } else if (item) {
      if (paragraph.length) flush();
      list.push(item[1]!);
    } else if (line.trim() === '') flush();
    else {
      if (list.length) flush();
      paragraph.push(line);
    }
  }
  flush();
  return out.join('');
}

function cell(value: ResultValue | undefined): string {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  return escapeHtml(text.length > MAX_CELL_CHARS ? `${text.slice(0, MAX_CELL_CHARS - 1)}…` : text);
}

async function tableHtml(services: Services, visualization: Visualization, executionId: string) {
  const options = visualization.options as TableOptions;
  const shown = (options.columns ?? []).filter((c) => !c.isHidden);
  const result = await services.results.readPage({
    executionId,
    offset: 0,
    limit: Math.min(options.itemsPerPage ?? 25, MAX_TABLE_ROWS),
    ...(shown.length ? { columns: shown.map((c) => c.name) } : {}),
  });
  const columns = shown.length
    ? shown.map((c) => ({ name: c.name, title: c.title ?? c.name }))
    : result.columns.map((c) => ({ name: c.name, title: c.name }));
  const head = columns.map((c) => `<th>${escapeHtml(c.title)}</th>`).join('');
  const rows = result.rows
    .map((row) => `<tr>${columns.map((c) => `<td>${cell(row[c.name])}</td>`).join('')}</tr>`)
    .join('');
  const note =
    result.totalRowCount > result.rows.length
      ? `<p class="note">First ${result.rows.length} of ${result.totalRowCount} rows.</p>`
      : '';
  return `<table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>${note}`;
}

/** One visualization widget: chart/counter as an SVG data-URI image, table as escaped HTML. */
async function visualizationHtml(services: Services, owner: Account, visualizationId: number) {
  try {
    const { visualization } = await readableVisualization(services, owner, visualizationId);
    const execution = await latestCompletedExecution(services, owner, visualization.queryId);
    const caption = `<figcaption>${escapeHtml(visualization.name)}</figcaption>`;
    if (visualization.type === 'table') {
      return `<figure class="table" data-visualization-id="${visualizationId}">${caption}${await tableHtml(services, visualization, execution.executionId)}</figure>`;
    }
    const { svg } = await renderVisualization(services, visualization, execution);
    const uri = `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
    return `<figure class="chart" data-visualization-id="${visualizationId}" data-type="${visualization.type}">${caption}<img alt="${escapeHtml(visualization.name)}" src="${uri}"></figure>`;
  } catch (error) {
    const message =
      error instanceof ServiceError ? error.message : 'This visualization could not be rendered.';
    return `<p class="error">${escapeHtml(message)}</p>`;
  }
}

/** The whole page: title, then widgets in grid order (row, then column). */
export async function dashboardHtml(
  services: Services,
  dashboard: Dashboard,
  owner: Account,
): Promise<string> {
  const widgets = [
    ...dashboard.textWidgets.map((w) => ({
      position: w.position,
      html: async () => renderText(w.text),
      text: true,
    })),
    ...dashboard.visualizationWidgets.map((w) => ({
      position: w.position,
      html: () => visualizationHtml(services, owner, w.visualizationId),
      text: false,
    })),
  ].sort((a, b) => a.position.row - b.position.row || a.position.col - b.position.col);
  const rendered = await Promise.all(widgets.map((w) => w.html()));
  const sections = widgets
    .map(
      (w, i) =>
        `<section class="widget${w.text ? ' text' : ''}" style="grid-column: ${w.position.col + 1} / span ${Math.min(w.position.sizeX, 6 - w.position.col)}">${rendered[i]}</section>`,
    )
    .join('');
  const header = `<header><h1>${escapeHtml(dashboard.name)}</h1><p class="meta">by ${escapeHtml(dashboard.ownerHandle)} · updated ${escapeHtml(dashboard.updatedAt.slice(0, 16).replace('T', ' '))} UTC</p></header>`;
  return page(dashboard.name, `${header}<main>${sections}</main>`);
}
