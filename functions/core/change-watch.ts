import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Lets a reader wait for a record (an execution, a pipeline run) to change instead of re-reading
 * it blindly: a status read held until the run ends answers as soon as it ends.
 */
export interface ChangeWatch<State extends string> {
  /**
   * Resolves when the record may have left `seen` (read it again to know), or after `millis` at
   * most. Where no writer announces its changes (AWS), it resolves when a re-read is due.
   */
  changed(id: string, seen: State, millis: number): Promise<void>;
}

/**
 * How often a waiting reader reads a record again where other processes write it (AWS: the
 * runner's Lambda records a run's end; a strongly consistent GetItem costs one read unit).
 */
export const REREAD_MS = 250;

/** The watch of a process that hears of no change: it says to read again every REREAD_MS. */
export const REREAD_EVERY: ChangeWatch<string> = {
  changed: (_id, _seen, millis) => sleep(Math.min(millis, REREAD_MS)),
};

/**
 * The record (`read`) once `isFinished` holds for its state, or as it stands when `waitMillis` have passed
 * or `signal` aborted. Between reads it waits for the record to change, at most
 * `lookEveryMillis`; `onLook` hears each read of an unfinished one.
 */
export async function awaitFinished<Item, State extends string>(
  watch: ChangeWatch<State>,
  id: string,
  waitMillis: number,
  how: {
    read: () => Promise<Item>;
    stateOf: (item: Item) => State;
    isFinished: (state: State) => boolean;
    signal?: AbortSignal;
    lookEveryMillis?: number;
    onLook?: (item: Item, waitedMillis: number) => Promise<void>;
  },
): Promise<Item> {
  const started = performance.now();
  let item = await how.read();
  for (;;) {
    const left = waitMillis - (performance.now() - started);
    if (how.isFinished(how.stateOf(item)) || left <= 0 || how.signal?.aborted) return item;
    await how.onLook?.(item, performance.now() - started);
    await watch.changed(id, how.stateOf(item), Math.min(left, how.lookEveryMillis ?? left));
    item = await how.read();
  }
}
