// The executor's fail-fast gate: while the warehouse is known to be
// unreachable (for a cooldown after it was found so) or its schema is not in
// place, queries are answered UNAVAILABLE without reaching it. The executor
// and the estimator share one, so that an estimate passes the same gate as
// the query it estimates.

/** How long the gate stays closed after the warehouse was found unreachable, unless told otherwise. */
export const defaultUnreachableCooldownMs = 1000;

export interface FailFastGateOptions {
  /** After the warehouse was found unreachable, stay closed this long; 0 never closes for that. */
  cooldownMs: number;
  /** Whether the warehouse's schema is in place; while false the gate is closed. */
  schemaReady: () => boolean;
}

export interface FailFastGate {
  /** Whether a query may try the warehouse now. */
  isOpen(): boolean;
  /** Notes that the warehouse was just found unreachable. */
  unreachable(): void;
}

export function createFailFastGate(options: FailFastGateOptions): FailFastGate {
  const { cooldownMs, schemaReady } = options;
  // Real time, not the injected clock: the cooldown is about the warehouse, not about `now` in SQL.
  let unreachableUntil = 0;
  return {
    isOpen: () => Date.now() >= unreachableUntil && schemaReady(),
    unreachable() {
      if (cooldownMs > 0) unreachableUntil = Date.now() + cooldownMs;
    },
  };
}
