// The refresh of a table's cached results after an import: one at a time per
// table and at most one start per interval, with the imports that arrive
// meanwhile joining the one queued after it, so that however many imports
// arrive each cached key is refreshed once an interval; and the import's
// answer waits for it only so long, the refresh going on.
import type { Logger } from "../../observability/index.js";

/** How long an import's answer waits for its refresh when the caller does not say. */
export const defaultImportRefreshWaitMs = 2000;

/** The least time between the starts of two refreshes of one table when the caller does not say. */
export const defaultImportRefreshIntervalMs = 1000;

export interface ImportRefreshes {
  /** Refreshes `table`'s results after the rows just inserted; resolves when done or after the wait, whichever is first. */
  after(table: string): Promise<void>;
}

interface TableState {
  running?: Promise<void>;
  queued?: Promise<void>;
  /** When the last refresh started (the `now` option's time). */
  startedAt: number;
}

export interface ImportRefreshOptions {
  /** How long an import's answer waits for its refresh. Default 2,000 ms. */
  waitMs?: number;
  /** The least time between the starts of two refreshes of one table. Default 1,000 ms. */
  intervalMs?: number;
  /** Monotonic milliseconds. Default performance.now. */
  now?: () => number;
  logger: Logger;
}

export function createImportRefreshes(
  refresh: (table: string) => Promise<void>,
  options: ImportRefreshOptions,
): ImportRefreshes {
  const waitMs = options.waitMs ?? defaultImportRefreshWaitMs;
  const intervalMs = options.intervalMs ?? defaultImportRefreshIntervalMs;
  const now = options.now ?? (() => performance.now());
  const states = new Map<string, TableState>();

  function run(table: string, state: TableState): Promise<void> {
    state.startedAt = now();
    const running: Promise<void> = refresh(table)
      .catch((error: unknown) => options.logger.warn("refresh after import failed", { table, error }))
      .finally(() => {
        if (state.running === running) state.running = undefined;
      });
    state.running = running;
    return running;
  }

  /**
   * A refresh that starts after every row inserted so far (the running one
   * may have read the table before them): now, or once the running one has
   * ended and the interval since its start has passed.
   */
  function request(table: string): Promise<void> {
    let state = states.get(table);
    if (state === undefined) states.set(table, (state = { startedAt: Number.NEGATIVE_INFINITY }));
    if (state.queued !== undefined) return state.queued;
    if (state.running === undefined && now() - state.startedAt >= intervalMs) return run(table, state);
    const queued = (async () => {
      await state.running;
      for (let left = state.startedAt + intervalMs - now(); left > 0; left = state.startedAt + intervalMs - now()) {
        await new Promise((resolve) => setTimeout(resolve, left).unref());
      }
      state.queued = undefined;
      return run(table, state);
    })();
    state.queued = queued;
    return queued;
  }

  return {
    async after(table) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
      try {
        await Promise.race([request(table), waited]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
