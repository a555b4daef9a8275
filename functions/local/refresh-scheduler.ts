import type { MaterializedView } from '../core/materialized-views';
import { nextScheduledRefresh } from '../core/refresh-schedules';
import { logger } from '../http/logger';
import { refreshViewWithUpstream } from '../pipelines/use-cases';
import type { Services } from '../services';

/**
 * The local stand-in for the EventBridge schedules of materialized views: every tick it starts a
 * refresh pipeline for each view whose cron fired since the previous tick (no catch-up for time
 * the host was down). A fire time at or after a schedule's expiry never comes.
 */
export class RefreshScheduler {
  private timer?: NodeJS.Timeout;
  private lastTick: Date;
  private ticking?: Promise<unknown>;

  constructor(
    private readonly services: Services,
    private readonly tickMillis = 30_000,
    now = new Date(),
  ) {
    this.lastTick = now;
  }

  start(): void {
    this.timer = setInterval(() => {
      this.ticking ??= this.tick().finally(() => {
        this.ticking = undefined;
      });
    }, this.tickMillis);
    this.timer.unref();
  }

  /** Starts the refreshes due between the last tick and `now`; returns the views started. */
  async tick(now = new Date()): Promise<string[]> {
    const since = this.lastTick;
    this.lastTick = now;
    const started: string[] = [];
    for (const view of await this.scheduledViews()) {
      const due = nextScheduledRefresh(view.schedule!, since);
      if (!due || due.getTime() > now.getTime()) continue;
      try {
        await refreshViewWithUpstream(this.services, view);
        started.push(view.fullName);
      } catch (error) {
        logger.warn('scheduled refresh could not start', { view: view.fullName, error: error as Error });
      }
    }
    return started;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
  }

  private async scheduledViews(): Promise<MaterializedView[]> {
    const views: MaterializedView[] = [];
    for (const account of await this.services.accounts.listAccounts()) {
      views.push(
        ...(await this.services.materializedViews.listByAccount(account.accountId)).filter((v) => v.schedule),
      );
    }
    return views;
  }
}
