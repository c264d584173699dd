// What the warehouse can do, by kind: the one place where the service's
// behaviour depends on running on a ClickHouse server or on the embedded
// engine (chDB). Every such decision reads a field of this value, never the kind.

/** `server`: a ClickHouse server over HTTP; `embedded`: chDB in this process. */
export type WarehouseKind = "server" | "embedded";

export interface WarehouseCapabilities {
  /**
   * A query nobody waits for any more can be stopped (KILL QUERY by its id).
   * A server can; the embedded engine cannot interrupt a query and runs it to
   * its end. So the executor kills abandoned queries only where they stop,
   * and a cached result callers share is computed to the service's deadline
   * where an abandoned query stops, but to its callers' latest deadline
   * where it runs on (endpoints/endpoint-service.ts, `sharedDeadline`).
   */
  stopsAbandonedQueries: boolean;
  /**
   * The warehouse runs one saved query at a time: chDB queues queries with
   * parameters itself, so more admission turns would only move the queue
   * into chDB, past the fair order and the bounds. WAREHOUSE_CONCURRENCY
   * defaults to 1 there, and more is refused.
   */
  runsOneQueryAtATime: boolean;
  /**
   * The data lives in a directory of this service's own (the embedded
   * engine's), not on a server whose operators own its data and access. Only
   * then is an API key generated and stored beside the data when no
   * credentials are configured, and the demo data loaded into empty tables
   * (DEMO_DATA).
   */
  ownsItsData: boolean;
}

const server: WarehouseCapabilities = {
  stopsAbandonedQueries: true,
  runsOneQueryAtATime: false,
  ownsItsData: false,
};

const embedded: WarehouseCapabilities = {
  stopsAbandonedQueries: false,
  runsOneQueryAtATime: true,
  ownsItsData: true,
};

/** What a warehouse of `kind` can do. */
export function warehouseCapabilities(kind: WarehouseKind): WarehouseCapabilities {
  return kind === "server" ? server : embedded;
}
