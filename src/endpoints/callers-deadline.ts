// The shared computation of a cached result where an abandoned query runs on
// (the embedded engine): it runs to the latest deadline of the callers of its
// starter's tenant waiting when it gets its turn, and once it runs it is
// finished and its result kept even if they all leave, since the work a
// caller leaves behind is what it asked for.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Computed } from "../cache/index.js";
import { deadlineError } from "../errors/index.js";
import { deadlineSignal, type ExecuteOptions } from "../executor/index.js";
import type { CachedCall, CallContext, EndpointResult, JoinComputation } from "./call-types.js";
import type { ComputedResponse } from "./computed-response.js";

export interface CallersDeadlineOptions {
  /** The longest a caller may wait, whatever it asks. */
  sharedTimeoutMs: number;
  join: JoinComputation;
  /** Computes the result to cache, with the executor's options. */
  computeCached: (call: CachedCall, options: ExecuteOptions) => Promise<Computed<ComputedResponse>>;
}

export interface CallersDeadline {
  /** A miss: waits for the key's computation until the caller's deadline, or until it goes away. */
  wait(call: CachedCall, context: CallContext): Promise<EndpointResult>;
}

export function createCallersDeadline(options: CallersDeadlineOptions): CallersDeadline {
  const { sharedTimeoutMs, join, computeCached } = options;
  /** The callers waiting for each cache key: whose (tenant), and until when (performance.now() time). */
  const waitingCallers = new Map<string, Set<{ tenant: string; deadline: number }>>();

  /**
   * This caller waits until its own deadline (or until it goes away) for the
   * key's computation, started by it or by another, which runs to the latest
   * deadline of the callers of its starter's tenant waiting when it gets its
   * turn: the turn, and the engine time, are that tenant's, so another key
   * joining cannot stretch them. One that joined a computation already
   * running and ran out of the time it was given asks again with what is
   * left of its own.
   */
  async function wait(call: CachedCall, context: CallContext): Promise<EndpointResult> {
    const key = call.cacheEntry.key;
    const tenant = context.tenant ?? "";
    const waiter = {
      tenant,
      deadline: performance.now() + Math.min(context.timeoutMs ?? sharedTimeoutMs, sharedTimeoutMs),
    };
    const leave = deadlineSignal(waiter.deadline - performance.now(), context.signal, deadlineError);
    let waiters = waitingCallers.get(key);
    if (waiters === undefined) waitingCallers.set(key, (waiters = new Set()));
    waiters.add(waiter);
    const engineTimeoutMs = () => {
      let latest = 0;
      for (const other of waitingCallers.get(key) ?? [])
        if (other.tenant === tenant && other.deadline > latest) latest = other.deadline;
      return latest - performance.now();
    };
    try {
      for (;;) {
        let started = false;
        const compute = (signal: AbortSignal) => {
          started = true;
          const options = {
            timeoutMs: sharedTimeoutMs,
            engineTimeoutMs,
            finishOnceStarted: true,
            requestId: context.requestId,
            tenant: context.tenant,
            signal,
          };
          return computeCached(call, options);
        };
        try {
          return await join(call, context, compute, leave.signal);
        } catch (error) {
          const ranOutOfItsTime = !started && error instanceof ConnectError && error.code === Code.DeadlineExceeded;
          if (!ranOutOfItsTime || leave.signal.aborted) throw error;
        }
      }
    } finally {
      leave.dispose();
      waiters.delete(waiter);
      if (waiters.size === 0) waitingCallers.delete(key);
    }
  }

  return { wait };
}
