// Single flight: concurrent misses of one key share one computation. Each
// caller may stop waiting on its own; the computation is aborted only when
// no caller waits for it any more.

interface Flight<T> {
  promise: Promise<T>;
  waiters: number;
  abort: AbortController;
}

export interface SingleFlight<T> {
  /**
   * The outcome of `key`'s running computation, or of one `start`ed now.
   * When `signal` (not aborted yet) aborts, this caller stops waiting with the
   * signal's reason.
   */
  join(key: string, start: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** The running computation of `key`, if any, for a caller that must wait for it to end. */
  running(key: string): Promise<T> | undefined;
}

export function createSingleFlight<T>(): SingleFlight<T> {
  const flights = new Map<string, Flight<T>>();

  function flight(key: string, start: (signal: AbortSignal) => Promise<T>): Flight<T> {
    const running = flights.get(key);
    if (running !== undefined) return running;
    const abort = new AbortController();
    const current: Flight<T> = {
      abort,
      waiters: 0,
      promise: start(abort.signal).finally(() => flights.delete(key)),
    };
    flights.set(key, current);
    // Its callers may all have left by the time it fails: nobody is left to be told, which is no error of the process.
    current.promise.catch(() => {});
    return current;
  }

  async function waitFor(current: Flight<T>, signal: AbortSignal | undefined): Promise<T> {
    current.waiters += 1;
    if (signal === undefined) return current.promise.finally(() => (current.waiters -= 1));
    let leave!: () => void;
    const left = new Promise<never>((_, reject) => {
      leave = () => reject(signal.reason);
      signal.addEventListener("abort", leave, { once: true });
    });
    try {
      return await Promise.race([current.promise, left]);
    } finally {
      signal.removeEventListener("abort", leave);
      current.waiters -= 1;
      if (current.waiters === 0 && signal.aborted) current.abort.abort(signal.reason);
    }
  }

  return {
    join: (key, start, signal) => waitFor(flight(key, start), signal),
    running: (key) => flights.get(key)?.promise,
  };
}
