// Readiness asked of the warehouse at most once a while, however many ask:
// /readyz and the gRPC health service need no key, so their callers must not
// be able to turn each request into a warehouse query.

/**
 * `ready` shared: one question in flight at a time, its answer reused for
 * `reuseMs` after it came. Default 1000 ms.
 */
export function sharedReadiness(ready: () => Promise<boolean>, reuseMs = 1000): () => Promise<boolean> {
  let asking: Promise<boolean> | undefined;
  let answer = false;
  let answeredAt = Number.NEGATIVE_INFINITY;
  return () => {
    if (performance.now() - answeredAt < reuseMs) return Promise.resolve(answer);
    return (asking ??= ready()
      .catch(() => false)
      .then((isReady) => {
        answer = isReady;
        answeredAt = performance.now();
        return isReady;
      })
      .finally(() => (asking = undefined)));
  };
}
