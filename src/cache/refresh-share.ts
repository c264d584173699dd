// Warming's share of the warehouse's time, held by every refresh the cache
// runs on its own: warming's, and those after imports (refresh-where.ts).
// After a refresh of d ms the next starts no sooner than d * (1 / share - 1)
// ms after it ended, in real time whatever the clock says.

export interface RefreshShare {
  /** Resolves when a refresh may start. */
  turn(): Promise<void>;
  /** A refresh ran from `startedAt` to `endedAt` (performance.now()). */
  spent(startedAt: number, endedAt: number): void;
}

/** The share of `share` (0 < share ≤ 1) of the time; 1 never waits. */
export function createRefreshShare(share: number): RefreshShare {
  /** performance.now() before which no refresh starts. */
  let nextAt = 0;
  return {
    async turn() {
      for (let wait = nextAt - performance.now(); wait > 0; wait = nextAt - performance.now()) {
        await new Promise((resolve) => setTimeout(resolve, wait).unref());
      }
    },
    spent(startedAt, endedAt) {
      nextAt = Math.max(nextAt, endedAt + (endedAt - startedAt) * (1 / share - 1));
    },
  };
}
