// Refused uploads over HTTP/1.1, through the real server with curl: a key
// without the import scope posting a large body is answered 403 every time,
// with `Expect: 100-continue` (and no 100 Continue before it) or without
// (the unread body drained, not reset); an admitted import gets 100 Continue.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDigest } from "../../../src/auth/index.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { NOW } from "../../support/scenario.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const readOnlyKey = "read-only-key-0123456789";
let directory: string;
let largeBody: string;
let warehouse: Warehouse;
let server: TestServer;

beforeAll(async () => {
  directory = makeTemporaryDirectory("sqe-expect-continue-");
  const keysPath = join(directory, "keys.json");
  writeFileSync(keysPath, JSON.stringify({ keys: [{ id: "reader", sha256: keyDigest(readOnlyKey) }] }));
  largeBody = join(directory, "large.ndjson");
  writeFileSync(largeBody, `${"x".repeat(1023)}\n`.repeat(8 * 1024));
  warehouse = await openTestWarehouse();
  server = await startTestServer(warehouse, NOW, { keyFile: { path: keysPath, pollMs: 0 } });
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
  removeTemporaryDirectory(directory);
});

/** curl's status lines (interim ones included) for a POST of `file` with `key`. */
async function statusLines(file: string, key: string, expect: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    "curl",
    ["-s", "-o", "/dev/null", "-D", "-", "-X", "POST", "-H", `x-api-key: ${key}`, "-H", `Expect:${expect}`]
      .concat(["-H", "content-type: application/x-ndjson", "--data-binary", `@${file}`])
      .concat([`${server.url}/api/import/edge_logs`]),
    { maxBuffer: 1 << 20 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
  return stdout.split("\r\n").filter((line) => line.startsWith("HTTP/"));
}

describe("refused uploads over HTTP/1.1", () => {
  it("answer 403 to a large body without the scope, with Expect: 100-continue and no 100 before it", async () => {
    for (let i = 0; i < 10; i++)
      expect(await statusLines(largeBody, readOnlyKey, " 100-continue")).toEqual(["HTTP/1.1 403 Forbidden"]);
  });

  it("answer 403 to a large body without the scope and without Expect, never a reset", async () => {
    for (let i = 0; i < 10; i++)
      expect(await statusLines(largeBody, readOnlyKey, "")).toEqual(["HTTP/1.1 403 Forbidden"]);
  });

  it("send 100 Continue to an admitted import", async () => {
    const file = join(directory, "one.ndjson");
    writeFileSync(
      file,
      `${JSON.stringify({
        id: "3f8a2c4e-1b7d-4e9a-9c2f-6d5e4b3a2c1d",
        timestamp: "2026-11-20T12:00:00.000001Z",
        event_message: "signed in",
        project: "abcdefghijklmnopqrst",
        metadata: [{ level: "info" }],
      })}\n`,
    );
    expect(await statusLines(file, TEST_API_KEY, " 100-continue")).toEqual([
      "HTTP/1.1 100 Continue",
      "HTTP/1.1 200 OK",
    ]);
  });
});
