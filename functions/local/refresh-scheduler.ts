import type { MaterializedView } from '../core/materialized-views';
import { nextScheduledRefresh } from '../core/refresh-schedules';
import { backgroundLogger } from '../http/logger';
import { runScheduledRefresh } from '../pipelines/scheduled-refresh';
import type { Services } from '../services';

const logger = backgroundLogger('refresh-scheduler');

/**
 * The local stand-in for the EventBridge schedules of materialized views: every tick it starts a
 * refresh pipeline for each view whose cron fired since the previous tick (no catch-up for time
 * the host was down). A fire time at or after a schedule's expiry never comes. A refresh that
 * cannot start is recorded on the view and as a failed run (functions/pipelines/scheduled-refresh.ts).
 */
export class RefreshScheduler {
  private timer?: NodeJS.Timeout;
  private lastTick: Date;
  private ticking?: Promise<unknown>;
  /** Webhooks of refreshes that could not start, posted while the tick goes on. */
  private readonly deliveries = new Set<Promise<void>>();

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
        const outcome = await runScheduledRefresh(this.services, view, now);
        if (outcome && 'started' in outcome) started.push(view.fullName);
        else if (outcome) {
          logger.warn('scheduled refresh could not start', {
            view: view.fullName,
            pipelineExecutionId: outcome.pipelineExecutionId,
            reason: outcome.failed,
          });
          // A slow receiver does not hold the other views' refreshes.
          const delivery = outcome.delivery.catch((error: unknown) => {
            logger.warn('telling a webhook of a scheduled refresh failed', {
              view: view.fullName,
              error: error as Error,
            });
          });
          this.deliveries.add(delivery);
          void delivery.finally(() => this.deliveries.delete(delivery));
        }
      } catch (error) {
        logger.error('scheduled refresh failed', { view: view.fullName, error: error as Error });
      }
    }
    return started;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await Promise.all(this.deliveries);
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
