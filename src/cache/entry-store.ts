// The cache's entries: node-cache holds them and ends each at its policy's
// lifetime plus the stale-if-error window (per-entry TTL, on access and every
// `checkperiod`); this file tells live entries from stale ones and adds the
// byte count, the least-recently-used order and each tenant's share that the
// bounds need, kept in step with node-cache through its "del" event. Stale
// entries go first when the bounds are reached.
// Each entry keeps its place in both orders, so that a hit moves it to the
// end of each without a lookup (collections/linked-list.ts says why).
import NodeCache from "node-cache";
import { type Link, LinkedList, unlisted } from "../collections/index.js";
import type { CacheEvent, CachePolicy, Compute } from "./cache-types.js";
import { createTenantShares } from "./tenant-shares.js";

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
  /**
   * The tenant (a credential id) whose call first stored the key: reads and
   * later computations by others leave it there. Its refreshes take that
   * tenant's turns (warming.ts) and it counts in that tenant's share. "" when unknown.
   */
  tenant: string;
  lastAskedAt: number;
  /** Whether a caller was served this value after it was computed: only then is it refreshed. */
  askedSinceComputed: boolean;
  refreshDueAt: number;
  refreshing: boolean;
  /** Refreshes failed in a row since it was computed: the next try waits longer each time (warming.ts). */
  failures: number;
  /** Its place in the store's order of use, least recently used first. */
  used: Link<[string, Entry<V>]>;
  /** Its place in its tenant's order of use (tenant-shares.ts). */
  share: Link<string>;
}

export type NewEntry<V> = Omit<Entry<V>, "askedSinceComputed" | "refreshing" | "failures" | "used" | "share">;

/** Whether `entry` is still within its lifetime at `now`: it is served as a HIT only then. */
export const isLive = (entry: Entry<unknown>, now: number): boolean => now - entry.computedAt < entry.policy.ttlMs;

export interface EntryStoreOptions {
  maxEntries: number;
  maxBytes: number;
  /** Counted for each entry besides its value and key. */
  entryOverheadBytes: number;
  /** How long an entry is kept past its lifetime, to answer outages (stale-if-error); 0 keeps none. */
  staleIfErrorMs: number;
  /**
   * What one tenant may hold of a full cache: past the bounds, a tenant
   * holding more than this gives up its own entries first, then any tenant
   * holding more than this does, then the least recently used go.
   */
  share: { entries: number; bytes: number };
  onEvent: (event: CacheEvent, label: string) => void;
  onSize: (entries: number, bytes: number) => void;
}

export interface EntryStore<V> {
  /** The live entry of `key`; undefined once its lifetime has ended. */
  get(key: string): Entry<V> | undefined;
  /** The entry of `key`, live or stale (past its lifetime, within the stale-if-error window). */
  find(key: string): Entry<V> | undefined;
  /**
   * Replaces the entry of `key`, then evicts others past the bounds, stale
   * ones first. A replaced entry's tenant stays the key's tenant.
   */
  put(key: string, entry: NewEntry<V>): void;
  /** Marks `key`, whose `entry` find or get just returned, the most recently used, in its own tenant's share. */
  touch(key: string, entry: Entry<V>): void;
  /** Counts `more` bytes for `key` while it holds `value`, evicting others past the bounds. */
  grow(key: string, value: V, more: number): void;
  delete(key: string): void;
  /** The keys and their entries, least recently used first (some may have just reached the end of their lifetime). */
  entries(): IterableIterator<[string, Entry<V>]>;
  readonly size: { entries: number; bytes: number };
  /** Stops node-cache's expiry timer. */
  close(): void;
}

export function createEntryStore<V>(options: EntryStoreOptions): EntryStore<V> {
  const { maxEntries, maxBytes, entryOverheadBytes, staleIfErrorMs, onEvent, onSize } = options;
  const shares = createTenantShares(options.share);
  const store = new NodeCache({ stdTTL: 0, checkperiod: expiryCheckSeconds, useClones: false });
  // node-cache keeps no order of use, and the bounds evict the least recently used first.
  // The entries are kept here too, so that warming's sweep reads them without node-cache's checks.
  const recency = new LinkedList<[string, Entry<V>]>();
  let bytes = 0;
  /** No entry's lifetime ends before this (a lower bound, made exact by dropStale). */
  let staleFrom = Number.POSITIVE_INFINITY;
  const entries = () => store.getStats().keys;
  const report = () => onSize(entries(), bytes);

  // Every way an entry goes (replaced, evicted, idle, expired) passes here.
  store.on("del", (_key: string, entry: Entry<V>) => {
    recency.remove(entry.used);
    shares.remove(entry.tenant, entry.share, entry.bytes);
    bytes -= entry.bytes;
    report();
  });

  const withinBounds = () => recency.size <= maxEntries && bytes <= maxBytes;

  /**
   * Whose keys a full cache drops first, for room that `owner`'s entry
   * needs: `owner`'s own when it holds more than its share (so one caller's
   * misses cost that caller first), then those of any tenant holding more
   * than its share, then anyone's; least recently used first in each.
   */
  function* dropOrder(owner: string): Generator<string> {
    if (shares.overShare(owner)) yield* shares.keys(owner);
    for (const tenant of shares.overShareTenants()) yield* shares.keys(tenant);
    for (const { item } of recency) yield item[0];
  }

  /** The first live entry of the drop order but `keep`; none when the bounds hold again meanwhile. */
  function nextToDrop(keep: string, owner: string): [string, Entry<V>] | undefined {
    for (const key of dropOrder(owner)) {
      if (key === keep) continue; // never evict what a caller is being served
      const entry = store.get<Entry<V>>(key);
      if (entry !== undefined) return [key, entry];
      // Its lifetime had ended: node-cache dropped it just now, which may be room enough.
      if (withinBounds()) return undefined;
    }
    return undefined;
  }

  /**
   * Drops stale entries but `keep`, least recently used first, until both
   * bounds hold: they go before any live one. A walk over every entry, made
   * only when one may have gone stale since the last.
   */
  function dropStale(keep: string) {
    const now = storeNow();
    if (now < staleFrom) return;
    const stale: [string, Entry<V>][] = [];
    let nextEnd = Number.POSITIVE_INFINITY;
    for (const { item } of recency) {
      const end = item[1].computedAt + item[1].policy.ttlMs;
      if (now >= end) {
        if (item[0] !== keep) stale.push(item);
      } else if (end < nextEnd) nextEnd = end;
    }
    staleFrom = nextEnd;
    for (const [key, entry] of stale) {
      if (withinBounds()) {
        staleFrom = now; // stale entries remain
        return;
      }
      store.del(key);
      onEvent("eviction", entry.policy.label ?? "");
    }
  }

  /** Drops entries but `keep` until both bounds hold: stale ones, then in the order of dropOrder. */
  function evictOverBounds(keep: string) {
    if (staleIfErrorMs > 0 && !withinBounds()) dropStale(keep);
    const owner = store.get<Entry<V>>(keep)?.tenant ?? "";
    while (!withinBounds()) {
      const next = nextToDrop(keep, owner);
      if (next === undefined) break;
      store.del(next[0]);
      onEvent("eviction", next[1].policy.label ?? "");
    }
    report();
  }

  // The entry comes from the caller's get: a second node-cache get would check its lifetime again.
  // It stays in its own tenant's share: a reader never takes it into its own, where its misses could evict it.
  const touch = (_key: string, entry: Entry<V>) => {
    recency.moveToEnd(entry.used);
    shares.touch(entry.tenant, entry.share);
  };

  const find = (key: string) => store.get<Entry<V>>(key);

  return {
    get(key) {
      const entry = find(key);
      return entry !== undefined && isLive(entry, storeNow()) ? entry : undefined;
    },
    find,
    put(key, fields) {
      const tenant = find(key)?.tenant ?? fields.tenant;
      store.del(key);
      // Written out rather than spread: V8 gives objects spread from one holding
      // a closure a slow shape, and warming's sweep reads every entry each second.
      const entry: Entry<V> = {
        value: fields.value,
        bytes: fields.bytes + key.length + entryOverheadBytes,
        computedAt: fields.computedAt,
        policy: fields.policy,
        refresh: fields.refresh,
        tenant,
        lastAskedAt: fields.lastAskedAt,
        askedSinceComputed: false,
        refreshDueAt: fields.refreshDueAt,
        refreshing: false,
        failures: 0,
        used: unlisted,
        share: unlisted,
      };
      // node-cache keeps an entry while its end is not before now: half a millisecond
      // short, a result is kept for exactly `ttlMs` (and the window) on a clock of whole milliseconds.
      store.set(key, entry, Math.max(0.5, entry.policy.ttlMs + staleIfErrorMs - 0.5) / 1000);
      staleFrom = Math.min(staleFrom, entry.computedAt + entry.policy.ttlMs);
      bytes += entry.bytes;
      entry.share = shares.add(entry.tenant, key, entry.bytes);
      entry.used = recency.push([key, entry]);
      evictOverBounds(key);
    },
    touch,
    grow(key, value, more) {
      const entry = find(key);
      if (entry === undefined || entry.value !== value) return;
      entry.bytes += more;
      bytes += more;
      shares.grow(entry.tenant, more);
      evictOverBounds(key);
    },
    delete: (key) => void store.del(key),
    *entries() {
      for (const { item } of recency) yield item;
    },
    get size() {
      return { entries: entries(), bytes };
    },
    close: () => store.close(),
  };
}
