// One signal for a call's wait: aborted at its deadline, with `reason()`, or
// when the caller's own signal aborts, with the caller's reason. Forwarded by
// hand: AbortSignal.any is slow on the miss path.
export interface DeadlineSignal {
  signal: AbortSignal;
  /** Clears the timer and lets go of the caller's signal. */
  dispose(): void;
}

export function deadlineSignal(
  timeoutMs: number,
  caller: AbortSignal | undefined,
  reason: () => Error,
): DeadlineSignal {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(reason()), Math.max(0, timeoutMs));
  const forward = () => abort.abort(caller?.reason);
  if (caller?.aborted) forward();
  else caller?.addEventListener("abort", forward, { once: true });
  return {
    signal: abort.signal,
    dispose() {
      clearTimeout(timer);
      caller?.removeEventListener("abort", forward);
    },
  };
}
