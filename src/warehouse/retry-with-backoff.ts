// Tries a step against the warehouse until it succeeds: after a failed try
// it waits, the wait doubling up to a bound. The schema keeper (migrations)
// and the schema fit (the saved queries' DESCRIBE) both retry this way.

export interface RetryOptions {
  /** First wait after a failed try; doubles up to `maxRetryMs`. Default 1000 ms. */
  retryMs?: number;
  /** Default 5,000 ms (`WAREHOUSE_RETRY_SECONDS`: docs/configuration.md). */
  maxRetryMs?: number;
}

export interface Retrying {
  /** No further try; one under way finishes. */
  stop(): void;
}

/**
 * Runs `step` now, and after each failure again once `failed(error,
 * retryInMs)` has been told and the wait is over, until a try succeeds or
 * `stop()` is called.
 */
/** The longest wait between two tries when the options do not say. */
export const defaultMaxRetryMs = 5_000;

export function retryWithBackoff(
  step: () => Promise<void>,
  failed: (error: unknown, retryInMs: number) => void,
  options: RetryOptions = {},
): Retrying {
  const maxWait = options.maxRetryMs ?? defaultMaxRetryMs;
  let wait = Math.min(options.retryMs ?? 1000, maxWait);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const attempt = async () => {
    if (stopped) return;
    try {
      await step();
    } catch (error) {
      failed(error, wait);
      timer = setTimeout(() => void attempt(), wait);
      timer.unref();
      wait = Math.min(maxWait, wait * 2);
    }
  };
  void attempt();
  return {
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
