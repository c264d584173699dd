// Each caller's share of the cache: the entries and bytes held for each
// tenant (the one whose call stored them), in the order it used them, and
// which tenants hold more than their share, so that a full cache takes what
// it must drop from them first (entry-store.ts). An entry keeps its place in
// its tenant's order (a link), so that a hit moves it without a lookup.
import { type Link, LinkedList } from "../collections/index.js";

/** What one tenant holds: its keys, least recently used first, and their bytes. */
interface Holding {
  keys: LinkedList<string>;
  bytes: number;
}

export interface TenantShares {
  /** Counts `key`, of `bytes`, for `tenant`, as its most recently used: its place in `tenant`'s order. */
  add(tenant: string, key: string, bytes: number): Link<string>;
  /** Stops counting the key at `place`, of `bytes`, for `tenant`. */
  remove(tenant: string, place: Link<string>, bytes: number): void;
  /** Counts `more` bytes for `tenant`, whose key grew. */
  grow(tenant: string, more: number): void;
  /** Marks the key at `place` the most recently used of `tenant`'s. */
  touch(tenant: string, place: Link<string>): void;
  /** Whether `tenant` holds more entries or bytes than its share. */
  overShare(tenant: string): boolean;
  /** The tenants holding more than their share. */
  overShareTenants(): IterableIterator<string>;
  /** `tenant`'s keys, least recently used first. */
  keys(tenant: string): Iterable<string>;
}

export function createTenantShares(share: { entries: number; bytes: number }): TenantShares {
  const holdings = new Map<string, Holding>();
  // Kept as counts change, so that finding a tenant past its share never walks every tenant.
  const over = new Set<string>();

  function update(tenant: string, holding: Holding) {
    if (holding.keys.size === 0) {
      holdings.delete(tenant);
      over.delete(tenant);
    } else if (holding.keys.size > share.entries || holding.bytes > share.bytes) {
      over.add(tenant);
    } else {
      over.delete(tenant);
    }
  }

  function* keysOf(holding: Holding | undefined): Generator<string> {
    if (holding !== undefined) for (const link of holding.keys) yield link.item;
  }

  return {
    add(tenant, key, bytes) {
      let holding = holdings.get(tenant);
      if (holding === undefined) holdings.set(tenant, (holding = { keys: new LinkedList(), bytes: 0 }));
      const place = holding.keys.push(key);
      holding.bytes += bytes;
      update(tenant, holding);
      return place;
    },
    remove(tenant, place, bytes) {
      const holding = holdings.get(tenant);
      if (holding === undefined || !holding.keys.remove(place)) return;
      holding.bytes -= bytes;
      update(tenant, holding);
    },
    grow(tenant, more) {
      const holding = holdings.get(tenant);
      if (holding === undefined) return;
      holding.bytes += more;
      update(tenant, holding);
    },
    touch: (tenant, place) => holdings.get(tenant)?.keys.moveToEnd(place),
    overShare: (tenant) => over.has(tenant),
    overShareTenants: () => over.values(),
    keys: (tenant) => keysOf(holdings.get(tenant)),
  };
}
