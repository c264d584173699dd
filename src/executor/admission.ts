// Bounds the warehouse queries of the process: at most `maxConcurrent` run,
// at most `maxQueued` wait; past that a query is refused at once with
// RESOURCE_EXHAUSTED instead of piling up.
import { Code, ConnectError } from "@connectrpc/connect";

export interface AdmissionOptions {
  /** Queries running at once. Default 8. */
  maxConcurrent?: number;
  /** Queries waiting for a turn. Default 64. */
  maxQueued?: number;
}

export interface Admission {
  /** Runs `task` when its turn comes; a caller that aborts while waiting leaves the queue. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  readonly running: number;
  readonly queued: number;
}

export function createAdmission(options: AdmissionOptions = {}): Admission {
  const maxConcurrent = options.maxConcurrent ?? 8;
  const maxQueued = options.maxQueued ?? 64;
  let running = 0;
  const queue: (() => void)[] = [];

  // A finished query hands its slot straight to the next in the queue, so a
  // newcomer cannot slip in between and push `running` past the bound.
  const release = () => {
    const next = queue.shift();
    if (next !== undefined) next();
    else running -= 1;
  };

  return {
    async run(task, signal) {
      if (running < maxConcurrent) {
        running += 1;
      } else {
        if (queue.length >= maxQueued) {
          const error = new ConnectError("too many warehouse queries in flight, try again shortly", Code.ResourceExhausted);
          error.metadata.set("retry-after", "1");
          throw error;
        }
        await new Promise<void>((resolve, reject) => {
          const turn = () => {
            signal?.removeEventListener("abort", leave);
            resolve();
          };
          const leave = () => {
            const at = queue.indexOf(turn);
            if (at >= 0) queue.splice(at, 1);
            reject(signal?.reason instanceof ConnectError ? signal.reason : new ConnectError("the caller went away", Code.Canceled));
          };
          queue.push(turn);
          signal?.addEventListener("abort", leave, { once: true });
        });
      }
      try {
        return await task();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get queued() {
      return queue.length;
    },
  };
}
