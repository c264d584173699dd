// Prepared calls by request: turning a request into a request message and
// binding its parameters depends on the request alone (its target for GET,
// its procedure and message bytes for RPC), so a request asked before skips
// both: a cached answer to a repeated call is a Map lookup away.
import type { PreparedCall } from "../../endpoints/index.js";

export interface PreparedCalls {
  /** The call remembered for `key` (a request target, or a procedure and message), if any. */
  find(key: string): PreparedCall | undefined;
  /** Remembers a call whose parameters were valid. */
  remember(key: string, call: PreparedCall): void;
}

/**
 * Remembers up to `maxEntries` calls whose keys hold `maxChars` characters
 * in all (default 8 Mi: RPC keys hold message bytes, up to the body bound
 * each); past either, the first remembered is forgotten first.
 */
export function createPreparedCalls(maxEntries = 10_000, maxChars = 8 * 1024 * 1024): PreparedCalls {
  const calls = new Map<string, PreparedCall>();
  let chars = 0;
  return {
    find: (key) => calls.get(key),
    remember(key, call) {
      if (!calls.has(key)) {
        if (key.length > maxChars) return;
        chars += key.length;
        for (const oldest of calls.keys()) {
          if (calls.size < maxEntries && chars <= maxChars) break;
          calls.delete(oldest);
          chars -= oldest.length;
        }
      }
      calls.set(key, call);
    },
  };
}
