// The refresh after imports: one per table at a time and one start per
// interval, imports arriving meanwhile sharing the one queued after it, and
// an import's wait bounded.
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/observability/index.js";
import { createImportRefreshes } from "../../src/transport/http/import-refresh.js";

/** A refresh whose runs end when `release` is called, counted by table. */
function heldRefresh() {
  const runs: string[] = [];
  const releases: (() => void)[] = [];
  const refresh = (table: string) => {
    runs.push(table);
    return new Promise<void>((resolve) => releases.push(resolve));
  };
  const release = () => releases.shift()?.();
  return { runs, refresh, release };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("import refreshes", () => {
  it("run one at a time per table, the imports arriving meanwhile sharing one queued run", async () => {
    const held = heldRefresh();
    const refreshes = createImportRefreshes(held.refresh, { waitMs: 60_000, intervalMs: 0, logger: silentLogger });
    const first = refreshes.after("edge_logs");
    const second = refreshes.after("edge_logs");
    const third = refreshes.after("edge_logs");
    const other = refreshes.after("auth_logs");
    await tick();
    expect(held.runs).toEqual(["edge_logs", "auth_logs"]);
    held.release();
    await first;
    await tick();
    expect(held.runs).toEqual(["edge_logs", "auth_logs", "edge_logs"]);
    held.release();
    held.release();
    await Promise.all([second, third, other]);
    expect(held.runs).toHaveLength(3);
  });

  it("answer after the wait while the refresh goes on", async () => {
    const held = heldRefresh();
    const refreshes = createImportRefreshes(held.refresh, { waitMs: 20, logger: silentLogger });
    const started = performance.now();
    await refreshes.after("edge_logs");
    expect(performance.now() - started).toBeLessThan(1000);
    expect(held.runs).toEqual(["edge_logs"]);
    held.release();
  });

  it("start a table's refreshes an interval apart, however many imports arrive meanwhile", async () => {
    const held = heldRefresh();
    let now = 0;
    const refreshes = createImportRefreshes(held.refresh, {
      waitMs: 0,
      intervalMs: 40,
      now: () => now,
      logger: silentLogger,
    });
    await refreshes.after("edge_logs");
    held.release();
    await tick();
    // Twenty imports within the interval after the first refresh started: none starts another yet.
    for (let i = 0; i < 20; i++) await refreshes.after("edge_logs");
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(held.runs).toEqual(["edge_logs"]);
    // The interval over, the twenty share one refresh.
    now = 40;
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(held.runs).toEqual(["edge_logs", "edge_logs"]);
    held.release();
  });
});
