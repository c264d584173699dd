// One poller of the readiness function shared by every health Watch, asking only while someone listens.
export interface ReadinessPollerOptions {
  /** The readiness function /readyz asks; a rejection counts as not ready. */
  ready: () => Promise<boolean>;
  /** Time between two questions while someone listens. Default 1000 ms. */
  intervalMs?: number;
}

export interface ReadinessPoller {
  /** Calls `listener` with every answer until the returned function is called. */
  subscribe(listener: (ready: boolean) => void): () => void;
  /** How many listeners there are now. */
  readonly listeners: number;
}

export function createReadinessPoller(options: ReadinessPollerOptions): ReadinessPoller {
  const intervalMs = options.intervalMs ?? 1000;
  const listeners = new Set<(ready: boolean) => void>();
  let timer: NodeJS.Timeout | undefined;
  let asking = false;

  const tick = () => {
    if (asking) return; // a slow answer does not pile up questions
    asking = true;
    // Never rejects: a failing `ready` counts as not ready.
    void Promise.resolve()
      .then(options.ready)
      .catch(() => false)
      .then((ready) => {
        asking = false;
        for (const listener of [...listeners]) listener(ready);
      });
  };

  return {
    subscribe(listener) {
      listeners.add(listener);
      if (timer === undefined) {
        timer = setInterval(tick, intervalMs);
        timer.unref();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && timer !== undefined) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
    get listeners() {
      return listeners.size;
    },
  };
}
