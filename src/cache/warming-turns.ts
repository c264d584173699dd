// Warming's turns: the due entries of each tenant (the one that last asked
// for them), most recently asked first, taken round-robin by tenant so that
// one tenant's many entries never hold back another's refresh by more than
// one refresh a tenant.
import type { Entry } from "./entry-store.js";

export interface WarmingTurns<V> {
  /**
   * Puts `due` in place of what was waiting. Each tenant keeps its place in
   * the rotation; tenants new to it join at its end, in the order of `due`.
   */
  replace(due: [string, Entry<V>][]): void;
  /**
   * The most recently asked entry of the tenant whose turn it is, passing
   * over (and dropping) those for which `due` no longer holds; that tenant
   * then goes to the end of the rotation. Undefined when nothing is left.
   */
  take(due: (key: string, entry: Entry<V>) => boolean): [string, Entry<V>] | undefined;
  /** Entries waiting (some may no longer be due). */
  readonly size: number;
}

export function createWarmingTurns<V>(): WarmingTurns<V> {
  /** Each tenant's entries, least recently asked first (taken from the end); the next tenant first. */
  let rotation = new Map<string, [string, Entry<V>][]>();
  let size = 0;

  return {
    replace(due) {
      const byTenant = new Map<string, [string, Entry<V>][]>();
      for (const item of due) {
        const queue = byTenant.get(item[1].tenant);
        if (queue === undefined) byTenant.set(item[1].tenant, [item]);
        else queue.push(item);
      }
      for (const queue of byTenant.values()) queue.sort((a, b) => a[1].lastAskedAt - b[1].lastAskedAt);
      const next = new Map<string, [string, Entry<V>][]>();
      for (const tenant of rotation.keys()) {
        const queue = byTenant.get(tenant);
        if (queue !== undefined) next.set(tenant, queue);
      }
      for (const [tenant, queue] of byTenant) if (!next.has(tenant)) next.set(tenant, queue);
      rotation = next;
      size = due.length;
    },
    take(due) {
      for (const [tenant, queue] of rotation) {
        rotation.delete(tenant);
        let item: [string, Entry<V>] | undefined;
        do {
          item = queue.pop();
          if (item !== undefined) size -= 1;
        } while (item !== undefined && !due(...item));
        // Only a tenant that got its turn goes back, at the end (so the loop never meets it again).
        if (item !== undefined) {
          if (queue.length > 0) rotation.set(tenant, queue);
          return item;
        }
      }
      return undefined;
    },
    get size() {
      return size;
    },
  };
}
