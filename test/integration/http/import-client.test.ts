// `npm run import`'s client of the import route against the real server: the
// NDJSON streamed in chunks and the rows inserted read back, a 400's bad
// lines said by number, a refused key named, and a service that is not there
// told apart from one that refuses.
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postImport, ServiceUnreachableError } from "../../../src/cli/import-client.js";
import { openImportFile } from "../../../src/cli/import-source.js";
import { importThroughService } from "../../../src/cli/import-through-service.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { NOW } from "../../support/scenario.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

let warehouse: Warehouse;
let server: TestServer;
let small: TestServer;
let directory: string;
/** The small server's MAX_IMPORT_BYTES: two lines a post. */
const smallMaxBytes = 400;

beforeAll(async () => {
  directory = makeTemporaryDirectory("sqe-import-client-");
  warehouse = await openTestWarehouse();
  server = await startTestServer(warehouse, NOW);
  small = await startTestServer(warehouse, NOW, { maxImportBytes: smallMaxBytes });
});
afterAll(async () => {
  await server?.close();
  await small?.close();
  await warehouse?.close();
  removeTemporaryDirectory(directory);
});

/** `text` written to a file of the temporary directory, opened as the command opens it. */
function fileOf(name: string, text: string) {
  const path = join(directory, name);
  writeFileSync(path, text);
  return { file: openImportFile(path), path };
}

async function* chunks(...parts: string[]) {
  for (const part of parts) yield Buffer.from(part);
}

const line = (n: number) =>
  JSON.stringify({
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    timestamp: "2026-11-20T12:00:00.000001Z",
    event_message: "signed in",
    project: "abcdefghijklmnopqrst",
    metadata: [{ level: "info" }],
  });

async function ids(table: string): Promise<string[]> {
  const result = await warehouse.client.query({ query: `SELECT id FROM ${table} ORDER BY id`, format: "JSONEachRow" });
  return (await result.json<{ id: string }>()).map((r) => r.id.slice(-2));
}

describe("npm run import through a service", () => {
  it("streams the NDJSON in chunks to POST /api/import/<table> and reads the rows inserted", async () => {
    const [first, second] = [line(1), line(2)];
    const answer = await postImport({
      url: server.url,
      table: "auth_logs",
      key: TEST_API_KEY,
      body: chunks(`${first}\n${second.slice(0, 10)}`, `${second.slice(10)}\n`, `${line(3)}\n`),
    });
    expect(answer).toEqual({ ok: true, inserted: 3 });
    expect(await ids("auth_logs")).toEqual(["01", "02", "03"]);
  });

  it("says each bad line of a 400 by number and fails with the service's message", async () => {
    const said: string[] = [];
    const outcome = await importThroughService({
      url: server.url,
      key: TEST_API_KEY,
      table: "postgres_logs",
      source: { stdin: chunks(`${line(11)}\nnope\n${line(13)}\n{\n`, "x\n") },
      say: (text) => said.push(text),
    }).catch((error: Error) => error.message);
    expect(said).toEqual([
      `sending standard input to the service at ${server.url}`,
      "line 2: not valid JSON",
      "line 4: not valid JSON",
      "line 5: not valid JSON",
    ]);
    expect(outcome).toBe(
      `the service at ${server.url} refused the import (invalid_argument: 3 bad lines; nothing was inserted)`,
    );
    expect(await ids("postgres_logs")).toEqual([]);
  });

  it("names a refused key, with what to do", async () => {
    const outcome = await importThroughService({
      url: server.url,
      key: "wrong-key-0123456789",
      table: "edge_logs",
      source: { stdin: chunks(`${line(21)}\n`) },
      say: () => {},
    }).catch((error: Error) => error.message);
    expect(outcome).toMatch(
      new RegExp(
        `^the service at ${server.url} refused the key \\(unauthenticated: .+\\); set API_KEYS to a key it accepts$`,
      ),
    );
  });

  it("tells a service that is not there apart, having said nothing", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const said: string[] = [];
    const outcome = await importThroughService({
      url: `http://127.0.0.1:${port}`,
      key: undefined,
      table: "edge_logs",
      source: { stdin: chunks(`${line(31)}\n`) },
      say: (text) => said.push(text),
    }).catch((error: Error) => error);
    expect(outcome).toBeInstanceOf(ServiceUnreachableError);
    expect((outcome as Error).message).toBe(`no service answers at http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect(said).toEqual([]);
  });

  it("sends a file past MAX_IMPORT_BYTES in parts of whole lines, saying each", async () => {
    const lines = [41, 42, 43, 44, 45].map(line);
    expect(line(41).length * 2 + 2).toBeLessThan(smallMaxBytes);
    expect(line(41).length * 3 + 3).toBeGreaterThan(smallMaxBytes);
    const said: string[] = [];
    const outcome = await importThroughService({
      url: small.url,
      key: TEST_API_KEY,
      table: "edge_logs",
      source: fileOf("five.ndjson", `${lines.join("\n")}\n\n`),
      say: (text) => said.push(text),
      maxBytes: smallMaxBytes,
    });
    expect(outcome).toEqual({ inserted: 5 });
    expect(await ids("edge_logs")).toEqual(["41", "42", "43", "44", "45"]);
    expect(said.filter((text) => text.startsWith("part "))).toEqual([
      expect.stringMatching(/^part 1: 2 rows imported/),
      expect.stringMatching(/^part 2: 2 rows imported/),
      expect.stringMatching(/^part 3: 1 rows imported/),
    ]);
  });

  it("sends each post of a file with an Idempotency-Key of its bytes: the same file sent again is stored once", async () => {
    const text = `${[61, 62, 63, 64, 65].map(line).join("\n")}\n`;
    const send = (url: string, maxBytes?: number) =>
      importThroughService({
        url,
        key: TEST_API_KEY,
        table: "auth_logs",
        source: fileOf(`again-${Math.random()}.ndjson`, text),
        say: () => {},
        maxBytes,
      });
    expect(await send(small.url, smallMaxBytes)).toEqual({ inserted: 5 });
    const sixties = async () => (await ids("auth_logs")).filter((id) => id.startsWith("6"));
    expect(await send(small.url, smallMaxBytes)).toEqual({ inserted: 5 });
    expect(await sixties()).toEqual(["61", "62", "63", "64", "65"]);
    expect(await send(server.url)).toEqual({ inserted: 5 });
    expect(await send(server.url)).toEqual({ inserted: 5 });
    // One post of the whole file is another body than any of the parts: stored once more, then not again.
    expect(await sixties()).toEqual(["61", "61", "62", "62", "63", "63", "64", "64", "65", "65"]);
  });

  it("checks the whole file first and sends nothing when a line is bad", async () => {
    const said: string[] = [];
    const outcome = await importThroughService({
      url: small.url,
      key: TEST_API_KEY,
      table: "postgres_logs",
      source: fileOf("bad.ndjson", `${[51, 52, 53, 54].map(line).join("\n")}\nnope\n`),
      say: (text) => said.push(text),
      maxBytes: smallMaxBytes,
    }).catch((error: Error) => error.message);
    expect(outcome).toMatch(/has bad lines; nothing was sent$/);
    expect(said).toContain("line 5: not valid JSON");
    expect(await ids("postgres_logs")).toEqual([]);
  });
});
