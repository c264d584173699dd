// Each caller's share of the cache: the entries and bytes held for each
// tenant (the one that last asked for them), in the order it used them, and
// which tenants hold more than their share, so that a full cache takes what
// it must drop from them first (entry-store.ts).

/** What one tenant holds: its keys, least recently used first, and their bytes. */
interface Holding {
  keys: Map<string, true>;
  bytes: number;
}

export interface TenantShares {
  /** Counts `key`, of `bytes`, for `tenant`, as its most recently used. */
  add(tenant: string, key: string, bytes: number): void;
  /** Stops counting `key`, of `bytes`, for `tenant`. */
  remove(tenant: string, key: string, bytes: number): void;
  /** Counts `more` bytes for `tenant`, whose key grew. */
  grow(tenant: string, more: number): void;
  /** Marks `key` the most recently used of `tenant`'s. */
  touch(tenant: string, key: string): void;
  /** Whether `tenant` holds more entries or bytes than its share. */
  overShare(tenant: string): boolean;
  /** The tenants holding more than their share. */
  overShareTenants(): IterableIterator<string>;
  /** `tenant`'s keys, least recently used first. */
  keys(tenant: string): IterableIterator<string>;
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

  return {
    add(tenant, key, bytes) {
      let holding = holdings.get(tenant);
      if (holding === undefined) holdings.set(tenant, (holding = { keys: new Map(), bytes: 0 }));
      holding.keys.set(key, true);
      holding.bytes += bytes;
      update(tenant, holding);
    },
    remove(tenant, key, bytes) {
      const holding = holdings.get(tenant);
      if (holding === undefined || !holding.keys.delete(key)) return;
      holding.bytes -= bytes;
      update(tenant, holding);
    },
    grow(tenant, more) {
      const holding = holdings.get(tenant);
      if (holding === undefined) return;
      holding.bytes += more;
      update(tenant, holding);
    },
    touch(tenant, key) {
      const keys = holdings.get(tenant)?.keys;
      if (keys?.delete(key)) keys.set(key, true);
    },
    overShare: (tenant) => over.has(tenant),
    overShareTenants: () => over.values(),
    keys: (tenant) => holdings.get(tenant)?.keys.keys() ?? new Map<string, true>().keys(),
  };
}
