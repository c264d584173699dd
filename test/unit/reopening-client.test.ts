// The embedded engine's reopening client with a fake engine: calls fail as
// closed while it cannot open, it opens by itself, and the line saying so
// tells a first opening from one after the session broke.
import type { ClickHouseClient } from "@clickhouse/client";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/index.js";
import { createReopeningClient, type ReopeningClient, WarehouseClosedError } from "../../src/warehouse/index.js";

/** A session whose next query fails as chDB's do when the session is gone. */
function fakeSession(): { client: ClickHouseClient; breakIt(): void } {
  let broken = false;
  const client = {
    query: async () => {
      if (broken) throw Object.assign(new Error("session closed"), { code: "CHDB_CLOSED" });
      return { text: async () => "[]" };
    },
    close: async () => {},
  } as unknown as ClickHouseClient;
  return { client, breakIt: () => (broken = true) };
}

let client: ReopeningClient | undefined;
afterEach(async () => client?.close());

describe("reopening client", () => {
  it("says the engine opened after failed tries, and open again after its session broke", async () => {
    const lines: { msg: string; failedTries?: number }[] = [];
    const logger = createLogger({ level: "info", write: (line) => void lines.push(JSON.parse(line)) });
    const sessions: ReturnType<typeof fakeSession>[] = [];
    let failuresLeft = 2;
    client = createReopeningClient({
      logger,
      retryMs: 10,
      open: async () => {
        if (failuresLeft-- > 0) throw new Error("held");
        const session = fakeSession();
        sessions.push(session);
        return session.client;
      },
    });
    const opened = async () => {
      for (let i = 0; i < 200 && !client!.isOpen; i++) await new Promise((r) => setTimeout(r, 5));
      return client!.isOpen;
    };
    expect(await client.query({ query: "SELECT 1" }).catch((e: unknown) => e)).toBeInstanceOf(WarehouseClosedError);
    expect(await opened()).toBe(true);

    sessions[0]!.breakIt();
    failuresLeft = 1;
    await client.query({ query: "SELECT 1" }).catch(() => {});
    expect(client.isOpen).toBe(false);
    expect(await opened()).toBe(true);
    expect(sessions).toHaveLength(2);

    const opens = lines.filter((line) => line.msg.startsWith("embedded warehouse open"));
    expect(opens.map((line) => [line.msg, line.failedTries])).toEqual([
      ["embedded warehouse open", 2],
      ["embedded warehouse open again", 1],
    ]);
  });
});
