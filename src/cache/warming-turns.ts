// Warming's turns: the due keys of each tenant (the one whose call stored
// them), most recently asked first, taken round-robin by tenant so that one
// tenant's many entries delay another's refresh by one refresh, not by all
// of theirs. Kept as keys fall due and are asked for, never sorted whole.
import type { Entry } from "./entry-store.js";

/** A queued key, and when it was last asked for when queued: a later ask queues it again and leaves this stale. */
interface Item {
  key: string;
  askedAt: number;
}

export interface WarmingTurns {
  /** Whether `key` waits for its turn. */
  has(key: string): boolean;
  /** Queues keys that fell due; tenants new to the rotation join at its end, in the order of `due`. */
  add(due: [string, Entry<unknown>][]): void;
  /** Moves a waiting `key`, just asked for, to the front of its tenant's keys. */
  asked(key: string, entry: Entry<unknown>): void;
  /**
   * The most recently asked key of the tenant whose turn it is, for which
   * `due` holds (the others met on the way leave the queue); that tenant then
   * goes to the end of the rotation. Undefined when nothing is left.
   */
  take<V>(due: (key: string) => Entry<V> | undefined): [string, Entry<V>] | undefined;
  /** Drops the keys for which `live` fails, and stale items. */
  prune(live: (key: string) => boolean): void;
  /** Items held, stale ones included; at most one a key after prune. */
  readonly size: number;
}

export function createWarmingTurns(): WarmingTurns {
  /** Each tenant's items, least recently asked first (taken from the end); the tenant whose turn it is first. */
  const rotation = new Map<string, Item[]>();
  /** Each waiting key, and the askedAt of its live item. */
  const queued = new Map<string, number>();
  let size = 0;

  const queueOf = (tenant: string) => {
    let queue = rotation.get(tenant);
    if (queue === undefined) rotation.set(tenant, (queue = []));
    return queue;
  };

  return {
    has: (key) => queued.has(key),
    add(due) {
      const byTenant = new Map<string, Item[]>();
      for (const [key, entry] of due) {
        const items = byTenant.get(entry.tenant) ?? [];
        if (items.length === 0) byTenant.set(entry.tenant, items);
        items.push({ key, askedAt: entry.lastAskedAt });
        queued.set(key, entry.lastAskedAt);
      }
      for (const [tenant, items] of byTenant) {
        items.sort((a, b) => a.askedAt - b.askedAt);
        const queue = queueOf(tenant);
        // Merged in order, the lists being short beside a backlog; nothing is sorted twice.
        const merged: Item[] = [];
        let i = 0;
        for (const item of items) {
          while (i < queue.length && queue[i]!.askedAt <= item.askedAt) merged.push(queue[i++]!);
          merged.push(item);
        }
        while (i < queue.length) merged.push(queue[i++]!);
        rotation.set(tenant, merged);
        size += items.length;
      }
    },
    asked(key, entry) {
      if (!queued.has(key)) return;
      // Asked now, it is its tenant's most recently asked: the end of the queue.
      queued.set(key, entry.lastAskedAt);
      queueOf(entry.tenant).push({ key, askedAt: entry.lastAskedAt });
      size += 1;
    },
    take(due) {
      for (const [tenant, queue] of rotation) {
        rotation.delete(tenant);
        for (let item = queue.pop(); item !== undefined; item = queue.pop()) {
          size -= 1;
          if (queued.get(item.key) !== item.askedAt) continue; // asked again: queued anew
          queued.delete(item.key);
          const entry = due(item.key);
          if (entry === undefined) continue;
          // Only a tenant that got its turn goes back, at the end (so this loop never meets it again).
          if (queue.length > 0) rotation.set(tenant, queue);
          return [item.key, entry];
        }
      }
      return undefined;
    },
    prune(live) {
      size = 0;
      for (const [tenant, queue] of rotation) {
        const kept = queue.filter((item) => queued.get(item.key) === item.askedAt && live(item.key));
        if (kept.length === 0) rotation.delete(tenant);
        else rotation.set(tenant, kept);
        size += kept.length;
      }
      for (const key of queued.keys()) if (!live(key)) queued.delete(key);
    },
    get size() {
      return size;
    },
  };
}
