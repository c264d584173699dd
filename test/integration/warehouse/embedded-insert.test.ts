// Inserts on the real embedded engine through chDB's raw insert: rows are
// stored, an insert sent again with its deduplication token is dropped, a
// token given as a setting stays with its statement instead of staying on the
// session, and a row the engine refuses stores nothing of the insert.
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertLogRows, type Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";

let warehouse: Warehouse;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
});
afterAll(async () => warehouse?.close());

let serial = 0;
/** `count` realtime_logs rows of `project`, spread over three days (three partitions). */
function rows(project: string, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(++serial).padStart(12, "0")}`,
    timestamp: `2026-11-${18 + (i % 3)} 12:00:00.000000`,
    event_message: `event ${i} of ${project}`,
    metadata: JSON.stringify([{ project }]),
  }));
}

async function scalar(query: string, params: Record<string, unknown> = {}): Promise<string> {
  const result = await warehouse.client.query({ query, query_params: params, format: "JSONEachRow" });
  return String(Object.values(((await result.json()) as Record<string, unknown>[])[0]!)[0]);
}

const stored = (project: string) =>
  scalar("SELECT count() FROM realtime_logs WHERE project = {project:String}", { project }).then(Number);

describe("inserts on the embedded engine", () => {
  it("stores 30,000 rows of a stream in one insert, and drops the same insert sent again with its token", async () => {
    const batch = rows("raw", 30_000);
    const token = randomUUID();
    await insertLogRows(warehouse.client, { table: "realtime_logs", values: Readable.from(batch), token });
    expect(await stored("raw")).toBe(30_000);
    await insertLogRows(warehouse.client, { table: "realtime_logs", values: Readable.from(batch), token });
    expect(await stored("raw")).toBe(30_000);
    await insertLogRows(warehouse.client, { table: "realtime_logs", values: batch });
    expect(await stored("raw")).toBe(60_000);
  });

  it("keeps a token given as a setting to its own insert", async () => {
    const batch = rows("setting", 5);
    await warehouse.client.insert({
      table: "realtime_logs",
      values: batch,
      format: "JSONEachRow",
      clickhouse_settings: { insert_deduplication_token: "given-as-setting" },
    });
    expect(await stored("setting")).toBe(5);
    // Sent as a SET, the token stayed on the session for every later statement.
    expect(await scalar("SELECT getSetting('insert_deduplication_token')")).toBe("");
  });

  it("stores nothing of a 16 MiB insert whose last rows the engine refuses", async () => {
    // 16 MiB of rows: the refused one comes long after the first block the engine parses.
    const batch: Record<string, unknown>[] = rows("refused", 120_000).map((row) => ({
      ...row,
      event_message: row.event_message.padEnd(60, "."),
    }));
    batch[119_000] = { ...batch[119_000], timestamp: "not a time" };
    expect(batch.reduce((sum, row) => sum + JSON.stringify(row).length + 1, 0)).toBeGreaterThan(16 * 1024 * 1024);
    const error = await insertLogRows(warehouse.client, { table: "realtime_logs", values: batch }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(await stored("refused")).toBe(0);
  });
});
