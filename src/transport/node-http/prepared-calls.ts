// Prepared calls by request: turning a request into a request message and
// binding its parameters depends on the request alone (its target for GET,
// its procedure and message bytes for RPC), so a request asked before skips
// both: a cached answer to a repeated call is two Map lookups away. A call is
// kept under a group (an RPC procedure and message form) and a key (the
// message bytes as they came), so that the key is one flat string, which
// hashes and compares faster than one joined from the procedure and the bytes.
import { LinkedList } from "../../collections/index.js";
import type { PreparedCall } from "../../endpoints/index.js";

export interface PreparedCalls {
  /** The call remembered for `key` (a request target, or a message) in `group` (default ""), if any. */
  find(key: string, group?: string): PreparedCall | undefined;
  /** Remembers a call whose parameters were valid. */
  remember(key: string, call: PreparedCall, group?: string): void;
}

/**
 * Remembers up to `maxEntries` calls whose keys hold `maxChars` characters
 * in all (default 8 Mi: RPC keys hold message bytes, up to the body bound
 * each), all groups together; past either, the first remembered is
 * forgotten first.
 */
export function createPreparedCalls(maxEntries = 10_000, maxChars = 8 * 1024 * 1024): PreparedCalls {
  const groups = new Map<string, Map<string, PreparedCall>>();
  /** The groups and keys, first remembered first. */
  const order = new LinkedList<[group: string, key: string]>();
  let chars = 0;

  function forgetFirst(): void {
    const [group, key] = order.shift()!;
    chars -= key.length;
    const calls = groups.get(group)!;
    calls.delete(key);
    if (calls.size === 0) groups.delete(group);
  }

  return {
    find: (key, group = "") => groups.get(group)?.get(key),
    remember(key, call, group = "") {
      let calls = groups.get(group);
      if (calls?.has(key)) {
        calls.set(key, call);
        return;
      }
      if (key.length > maxChars) return;
      chars += key.length;
      if (calls === undefined) groups.set(group, (calls = new Map()));
      calls.set(key, call);
      order.push([group, key]);
      while (order.size > maxEntries || chars > maxChars) forgetFirst();
    },
  };
}
