// The refresh of a table's cached results after an import: one at a time per
// table, with the imports that arrive meanwhile joining the one queued after
// it; and the import's answer waits for it only so long, the refresh going on.
import type { Logger } from "../../observability/index.js";

/** How long an import's answer waits for its refresh when the caller does not say. */
export const defaultImportRefreshWaitMs = 2000;

export interface ImportRefreshes {
  /** Refreshes `table`'s results after the rows just inserted; resolves when done or after the wait, whichever is first. */
  after(table: string): Promise<void>;
}

interface TableState {
  running?: Promise<void>;
  queued?: Promise<void>;
}

export function createImportRefreshes(
  refresh: (table: string) => Promise<void>,
  options: { waitMs?: number; logger: Logger },
): ImportRefreshes {
  const waitMs = options.waitMs ?? defaultImportRefreshWaitMs;
  const states = new Map<string, TableState>();

  function run(table: string, state: TableState): Promise<void> {
    const running: Promise<void> = refresh(table)
      .catch((error: unknown) => options.logger.warn("refresh after import failed", { table, error }))
      .finally(() => {
        if (state.running === running) state.running = undefined;
      });
    state.running = running;
    return running;
  }

  /** A refresh that starts after every row inserted so far: the running one may have read the table before them. */
  function request(table: string): Promise<void> {
    let state = states.get(table);
    if (state === undefined) states.set(table, (state = {}));
    if (state.queued !== undefined) return state.queued;
    if (state.running === undefined) return run(table, state);
    const queued = state.running.then(() => {
      state.queued = undefined;
      return run(table, state);
    });
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
