// Fair, bounded admission of warehouse queries: at most `maxConcurrent` run
// and `maxQueued` wait in the whole process, at most `maxPerKey` of one API
// key run and wait together, and a freed slot goes to the waiting key whose
// last query started longest ago (a key new to the queue first), so one busy
// key cannot keep another waiting behind its whole queue. Past a bound a
// query is refused at once with RESOURCE_EXHAUSTED instead of piling up.
import { Code, ConnectError } from "@connectrpc/connect";
import { abortedCallError, overloadError } from "../errors/index.js";

export interface AdmissionOptions {
  /** Queries running at once. Default 8. */
  maxConcurrent?: number;
  /** Queries waiting for a turn, all keys together. Default 64. */
  maxQueued?: number;
  /** Queries of one key running and waiting together. Default: no bound of its own. */
  maxPerKey?: number;
}

export interface Admission {
  /**
   * Runs `task` when its turn comes, as a query of `key`. A caller whose
   * `signal` aborts while waiting leaves the queue with the signal's reason
   * (when a ConnectError) or CANCELED.
   */
  run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  readonly running: number;
  readonly queued: number;
}

/** Queries running at once, and waiting for a turn, when the options do not say. */
export const defaultAdmission = { maxConcurrent: 8, maxQueued: 64 } as const;

export function createAdmission(options: AdmissionOptions = {}): Admission {
  const maxConcurrent = options.maxConcurrent ?? defaultAdmission.maxConcurrent;
  const maxQueued = options.maxQueued ?? defaultAdmission.maxQueued;
  const maxPerKey = options.maxPerKey ?? Number.POSITIVE_INFINITY;
  let running = 0;
  let queued = 0;
  /** Each key's waiting turns, oldest first. */
  const waiting = new Map<string, (() => void)[]>();
  /** Each key's queries running or waiting. */
  const held = new Map<string, number>();
  /** When each key with queries in flight last started one, as a count of starts. */
  const lastStart = new Map<string, number>();
  let starts = 0;

  /** The waiting key whose last query started longest ago. */
  const nextKey = () => {
    let chosen: string | undefined;
    let chosenStart = Number.POSITIVE_INFINITY;
    for (const key of waiting.keys()) {
      const start = lastStart.get(key) ?? Number.NEGATIVE_INFINITY;
      if (start < chosenStart) [chosen, chosenStart] = [key, start];
    }
    return chosen;
  };

  // A finished query hands its slot straight to the next key's oldest turn,
  // so a newcomer cannot slip in between and push `running` past the bound.
  const release = () => {
    const key = nextKey();
    if (key === undefined) {
      running -= 1;
      return;
    }
    const turns = waiting.get(key)!;
    const turn = turns.shift()!;
    if (turns.length === 0) waiting.delete(key);
    queued -= 1;
    turn();
  };

  /** A refusal; `overload` marks the whole queue full (errors/warehouse-outage.ts), not one key's bound. */
  const refuse = (message: string, overload: boolean) => {
    const error = overload ? overloadError(message) : new ConnectError(message, Code.ResourceExhausted);
    error.metadata.set("retry-after", "1");
    return error;
  };

  function wait(key: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal?.removeEventListener("abort", leave);
        resolve();
      };
      const leave = () => {
        const turns = waiting.get(key);
        const at = turns?.indexOf(turn) ?? -1;
        if (at < 0) return;
        turns!.splice(at, 1);
        if (turns!.length === 0) waiting.delete(key);
        queued -= 1;
        reject(abortedCallError(signal?.reason));
      };
      const turns = waiting.get(key);
      if (turns === undefined) waiting.set(key, [turn]);
      else turns.push(turn);
      queued += 1;
      signal?.addEventListener("abort", leave, { once: true });
    });
  }

  return {
    async run(key, task, signal) {
      if (signal?.aborted) throw abortedCallError(signal.reason);
      const mine = held.get(key) ?? 0;
      if (mine >= maxPerKey)
        throw refuse("too many warehouse queries of this API key in flight, try again shortly", false);
      if (running >= maxConcurrent && queued >= maxQueued)
        throw refuse("too many warehouse queries in flight, try again shortly", true);
      held.set(key, mine + 1);
      try {
        if (running < maxConcurrent) running += 1;
        else await wait(key, signal);
        lastStart.set(key, ++starts);
        try {
          return await task();
        } finally {
          release();
        }
      } finally {
        const left = held.get(key)! - 1;
        if (left > 0) held.set(key, left);
        else {
          held.delete(key);
          lastStart.delete(key);
        }
      }
    },
    get running() {
      return running;
    },
    get queued() {
      return queued;
    },
  };
}
