import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Dashboards: text and visualization widgets on a grid, viewable in a browser through a share link. */
export const GRID_COLUMNS = 6;
export const TEXT_WIDGET_HEIGHT = 2;
export const VISUALIZATION_WIDGET_HEIGHT = 8;

export interface WidgetPosition {
  row: number;
  col: number;
  sizeX: number;
  sizeY: number;
}

export interface VisualizationWidget {
  widgetId: number;
  visualizationId: number;
  position: WidgetPosition;
}

export interface TextWidget {
  widgetId: number;
  text: string;
  position: WidgetPosition;
}

export interface Dashboard {
  dashboardId: number;
  accountId: string;
  ownerHandle: string;
  name: string;
  slug: string;
  tags: string[];
  isArchived: boolean;
  columnsPerRow: number;
  visualizationWidgets: VisualizationWidget[];
  textWidgets: TextWidget[];
  /** SHA-256 of the share token that `?key=` of the dashboard page must present. */
  shareTokenHash: string;
  createdAt: string;
  updatedAt: string;
}

export type DashboardChanges = Partial<
  Pick<
    Dashboard,
    | 'name'
    | 'slug'
    | 'tags'
    | 'isArchived'
    | 'columnsPerRow'
    | 'visualizationWidgets'
    | 'textWidgets'
    | 'shareTokenHash'
  >
>;

/** What a caller sends to create a dashboard; widgets without a position are laid out in order. */
export interface NewDashboard {
  name: string;
  tags: string[];
  visualizationIds: number[];
  textWidgets: { text: string; position?: WidgetPosition }[];
  columnsPerRow: number;
}

/**
 * A dashboard's changes: the fields present change. Any widget list replaces every widget (of both
 * kinds); `columnsPerRow` alone lays the current widgets out again.
 */
export interface DashboardEdit {
  name?: string;
  slug?: string;
  tags?: string[];
  visualizationIds?: number[];
  visualizationWidgets?: { visualizationId: number; position?: WidgetPosition }[];
  textWidgets?: { text: string; position?: WidgetPosition }[];
  columnsPerRow?: number;
  /** Issues a new share link; the old one stops working. */
  rotateShareToken?: boolean;
}

export interface DashboardStore {
  nextDashboardId(): Promise<number>;
  create(dashboard: Dashboard): Promise<void>;
  get(dashboardId: number): Promise<Dashboard | undefined>;
  update(dashboardId: number, changes: DashboardChanges, updatedAt: string): Promise<Dashboard>;
}

/**
 * Auto layout: text widgets full width on top, one per row band, then visualizations in a grid of
 * `columnsPerRow` per row. A position given by the caller is kept as is.
 */
export function layoutWidgets(
  texts: { text: string; position?: WidgetPosition }[],
  visualizations: { visualizationId: number; position?: WidgetPosition }[],
  columnsPerRow: number,
): { textWidgets: TextWidget[]; visualizationWidgets: VisualizationWidget[] } {
  let widgetId = 1;
  const textWidgets = texts.map((text, i) => ({
    widgetId: widgetId++,
    text: text.text,
    position: text.position ?? {
      row: i * TEXT_WIDGET_HEIGHT,
      col: 0,
      sizeX: GRID_COLUMNS,
      sizeY: TEXT_WIDGET_HEIGHT,
    },
  }));
  const top = texts.length * TEXT_WIDGET_HEIGHT;
  const width = GRID_COLUMNS / columnsPerRow;
  const visualizationWidgets = visualizations.map((widget, i) => ({
    widgetId: widgetId++,
    visualizationId: widget.visualizationId,
    position: widget.position ?? {
      row: top + Math.floor(i / columnsPerRow) * VISUALIZATION_WIDGET_HEIGHT,
      col: (i % columnsPerRow) * width,
      sizeX: width,
      sizeY: VISUALIZATION_WIDGET_HEIGHT,
    },
  }));
  return { textWidgets, visualizationWidgets };
}

export function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || 'dashboard'
  );
}

/** A share token: 24 random bytes, base64url. Only its hash is stored. */
export function generateShareToken(): { token: string; hash: string } {
  const token = randomBytes(24).toString('base64url');
  return { token, hash: hashShareToken(token) };
}

export function hashShareToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function shareTokenMatches(token: string | undefined, storedHash: string): boolean {
  if (!token) return false;
  const presented = Buffer.from(hashShareToken(token), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
