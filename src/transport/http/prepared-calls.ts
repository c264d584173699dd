// GET calls by request target. Turning a query string into a request message
// and binding its parameters depends on the target alone, so a target asked
// before skips both: a cached answer to a repeated GET is a Map lookup away.
import type { PreparedCall } from "../../endpoints/index.js";

export interface PreparedCalls {
  /** The call remembered for `target` (path and query string), if any. */
  find(target: string): PreparedCall | undefined;
  /** Remembers a call whose parameters were valid. */
  remember(target: string, call: PreparedCall): void;
}

/** Remembers up to `maxEntries` targets; past that, the first remembered is forgotten first. */
export function createPreparedCalls(maxEntries = 10_000): PreparedCalls {
  const calls = new Map<string, PreparedCall>();
  return {
    find: (target) => calls.get(target),
    remember(target, call) {
      if (calls.size >= maxEntries && !calls.has(target)) calls.delete(calls.keys().next().value!);
      calls.set(target, call);
    },
  };
}
