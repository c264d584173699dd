// Prepared calls by request, so a request asked before skips parsing and binding: kept by group (procedure and form)
// and key (the request's bytes), one flat string that hashes faster than a joined one.
import { LinkedList } from "../../collections/index.js";
import type { PreparedCall } from "../../endpoints/index.js";

export interface PreparedCalls {
  /** The call remembered for `key` (a request target, or a message) in `group` (default ""), if any. */
  find(key: string, group?: string): PreparedCall | undefined;
  /** Remembers a call whose parameters were valid. */
  remember(key: string, call: PreparedCall, group?: string): void;
}

/** Remembers up to `maxEntries` calls whose keys (RPC message bytes) hold `maxChars` in all; the first goes first. */
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
