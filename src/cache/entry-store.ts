// The cache's entries: node-cache holds them and ends each at its policy's
// lifetime (per-entry TTL, on access and every `checkperiod`); this file adds
// the byte count and the least-recently-used order that the bounds need, kept
// in step with node-cache through its "del" event.
import NodeCache from "node-cache";
import type { CacheEvent, CachePolicy, Compute } from "./cache-types.js";

/**
 * The store's clock. node-cache counts lifetimes in Date.now() time, so
 * everything about an entry's time (computed, asked, due) does too; tests
 * move it with fake timers.
 */
export const storeNow = (): number => Date.now();

/** How often node-cache drops the entries whose lifetime has ended, in seconds. */
const expiryCheckSeconds = 60;

/** An entry: the value, what it costs, and what warming needs to keep it fresh. */
export interface Entry<V> {
  value: V;
  /** Bytes counted for it: its value's, its key's and the entry overhead, plus what grew later. */
  bytes: number;
  computedAt: number;
  policy: CachePolicy;
  /** Recomputes the value; kept for the entry's whole life. */
  refresh: Compute<V>;
  /** Whose call computed it (a credential id); "" when unknown. */
  tenant: string;
  lastAskedAt: number;
  /** Whether a caller was served this value after it was computed: only then is it refreshed. */
  askedSinceComputed: boolean;
  refreshDueAt: number;
  refreshing: boolean;
}

export type NewEntry<V> = Omit<Entry<V>, "askedSinceComputed" | "refreshing">;

export interface EntryStoreOptions {
  maxEntries: number;
  maxBytes: number;
  /** Counted for each entry besides its value and key. */
  entryOverheadBytes: number;
  onEvent: (event: CacheEvent, label: string) => void;
  onSize: (entries: number, bytes: number) => void;
}

export interface EntryStore<V> {
  /** The live entry of `key`; undefined once its lifetime has ended. */
  get(key: string): Entry<V> | undefined;
  /** Replaces the entry of `key`, then evicts the least recently used others past the bounds. */
  put(key: string, entry: NewEntry<V>): void;
  /** Marks `key` the most recently used. */
  touch(key: string): void;
  /** Counts `more` bytes for `key` while it holds `value`, evicting others past the bounds. */
  grow(key: string, value: V, more: number): void;
  delete(key: string): void;
  /** The keys, least recently used first. */
  keys(): IterableIterator<string>;
  readonly size: { entries: number; bytes: number };
  /** Stops node-cache's expiry timer. */
  close(): void;
}

export function createEntryStore<V>(options: EntryStoreOptions): EntryStore<V> {
  const { maxEntries, maxBytes, entryOverheadBytes, onEvent, onSize } = options;
  const store = new NodeCache({ stdTTL: 0, checkperiod: expiryCheckSeconds, useClones: false });
  // node-cache keeps no order of use, and the bounds evict the least recently used first.
  const recency = new Map<string, true>();
  let bytes = 0;
  const entries = () => store.getStats().keys;
  const report = () => onSize(entries(), bytes);

  // Every way an entry goes (replaced, evicted, idle, expired) passes here.
  store.on("del", (key: string, entry: Entry<V>) => {
    recency.delete(key);
    bytes -= entry.bytes;
    report();
  });

  /** Drops the least recently used entries but `keep` until both bounds hold. */
  function evictOverBounds(keep: string) {
    for (const oldest of recency.keys()) {
      if (recency.size <= maxEntries && bytes <= maxBytes) break;
      if (oldest === keep) continue; // never evict what a caller is being served
      const entry = store.get<Entry<V>>(oldest); // undefined when its lifetime ended: gone already
      if (entry === undefined) continue;
      store.del(oldest);
      onEvent("eviction", entry.policy.label ?? "");
    }
    report();
  }

  const touch = (key: string) => {
    recency.delete(key);
    recency.set(key, true);
  };

  return {
    get: (key) => store.get<Entry<V>>(key),
    put(key, fields) {
      store.del(key);
      const entry: Entry<V> = {
        ...fields,
        bytes: fields.bytes + key.length + entryOverheadBytes,
        askedSinceComputed: false,
        refreshing: false,
      };
      // node-cache keeps an entry while its end is not before now: half a millisecond
      // short, a result is served for exactly `ttlMs` on a clock of whole milliseconds.
      store.set(key, entry, Math.max(0.5, entry.policy.ttlMs - 0.5) / 1000);
      bytes += entry.bytes;
      touch(key);
      evictOverBounds(key);
    },
    touch,
    grow(key, value, more) {
      const entry = store.get<Entry<V>>(key);
      if (entry === undefined || entry.value !== value) return;
      entry.bytes += more;
      bytes += more;
      evictOverBounds(key);
    },
    delete: (key) => void store.del(key),
    keys: () => recency.keys(),
    get size() {
      return { entries: entries(), bytes };
    },
    close: () => store.close(),
  };
}
