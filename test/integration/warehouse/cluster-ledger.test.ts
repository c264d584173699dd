// The migration claim on the embedded engine: the record and claim tables
// made as MergeTree tables that deduplicate inserts by token the way the
// replicated ones do on a cluster (non_replicated_deduplication_window), so
// the claim's logic runs on a real engine here. The replicated tables
// themselves need a cluster (cluster.test.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/observability/index.js";
import { createClusterLedger, openWarehouse, type Warehouse } from "../../../src/warehouse/index.js";

const layout = { cluster: "unused", database: "default" };
let directory: string;
let warehouse: Warehouse;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "sqe-cluster-ledger-"));
  warehouse = await openWarehouse({ kind: "embedded", path: directory, database: "default" });
  for (const [table, columns] of [
    ["schema_migrations", "name String, checksum String, applied_at DateTime64(3, 'UTC')"],
    ["schema_migration_claims", "name String, owner String, claimed_at DateTime64(3, 'UTC')"],
  ]) {
    await warehouse.client.command({
      query: `CREATE TABLE ${table} (${columns}) ENGINE = MergeTree ORDER BY name SETTINGS non_replicated_deduplication_window = 100`,
    });
  }
});
afterAll(async () => {
  await warehouse?.close();
  rmSync(directory, { recursive: true, force: true });
});

function ledger(owner: string, claimWaitMs = 60_000) {
  return createClusterLedger(warehouse.client, {
    ...layout,
    owner,
    claimWaitMs,
    claimPollMs: 10,
    clock: () => 0,
    logger: silentLogger,
  });
}

async function rows(query: string): Promise<unknown[]> {
  return (await warehouse.client.query({ query, format: "JSONEachRow" })).json();
}

describe("cluster migration claim", () => {
  it("lets one of two processes claiming at once apply a migration; the other waits for its record", async () => {
    const [a, b] = [ledger("a"), ledger("b")];
    const claims = [a.claim("0001_x.sql"), b.claim("0001_x.sql")];
    // Exactly one claim row, the first inserted: a's.
    expect(await claims[0]).toBe(true);
    expect(await rows("SELECT owner FROM schema_migration_claims WHERE name = '0001_x.sql'")).toEqual([{ owner: "a" }]);
    let bDone = false;
    void claims[1]!.then(() => (bDone = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(bDone).toBe(false); // still waiting for a's record
    await a.record("0001_x.sql", "sum");
    expect(await claims[1]).toBe(false);
  });

  it("records a migration once when two processes record it", async () => {
    await ledger("a").record("0002_x.sql", "sum");
    await ledger("b").record("0002_x.sql", "sum");
    expect(await rows("SELECT count() AS n FROM schema_migrations WHERE name = '0002_x.sql'")).toEqual([{ n: 1 }]);
  });

  it("takes over a claim whose owner never records it once the wait is over", async () => {
    expect(await ledger("gone").claim("0003_x.sql")).toBe(true);
    expect(await ledger("next", 50).claim("0003_x.sql")).toBe(true);
  });
});
