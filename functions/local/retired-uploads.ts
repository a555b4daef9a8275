import type { Services } from '../services';
import { dropRetiredUploadGenerations } from '../uploads/use-cases';

/** How often the local host looks for retired upload generations to drop. */
const EVERY_MS = 60_000;

/**
 * The local host's counterpart of the AWS sweep's last step (functions/runner/sweeper.ts): drops
 * the uploaded tables' generations a clear or delete replaced, once no run can still read them.
 * Runs at start and every minute; `stop` waits for a round in progress.
 */
export class RetiredUploadSweep {
  private timer?: NodeJS.Timeout;
  private round: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly services: Services,
    private readonly log?: (line: string) => void,
  ) {}

  start(): void {
    const sweep = () => {
      this.round = this.round
        .then(() => dropRetiredUploadGenerations(this.services))
        .then(
          (dropped) => {
            if (dropped) this.log?.(`Dropped ${dropped} retired upload generation(s).`);
          },
          (error: unknown) => this.log?.(`Dropping retired upload generations failed: ${String(error)}`),
        );
    };
    sweep();
    this.timer = setInterval(sweep, EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.round;
  }
}
