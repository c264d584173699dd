// Scoped credentials in a service process, as an operator runs them: a key
// file read again when it changes and on SIGHUP (a broken one keeps the keys
// in force, with one log line), and a token made by `npm run token`.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { keyDigest } from "../../../src/auth/index.js";
import { bundleOf } from "../../support/built-commands.js";
import { startServiceProcess } from "../../support/service-process.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const secret = "credentials-process-secret-0123456789";
const keyA = "process-key-a-0123456789";
const keyB = "process-key-b-0123456789";
const directory = makeTemporaryDirectory("sqe-creds-");
const keysPath = join(directory, "keys.json");
afterAll(() => removeTemporaryDirectory(directory));

const writeKeys = (...keys: [string, string][]) =>
  writeFileSync(
    keysPath,
    JSON.stringify({ keys: keys.map(([id, key]) => ({ id, sha256: keyDigest(key), fixed: { project: "p1" } })) }),
  );

async function until(predicate: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("credentials of a service process", () => {
  it("follows the key file as it changes and on SIGHUP, and accepts a token from npm run token", async () => {
    writeKeys(["a", keyA], ["b", keyB]);
    const service = startServiceProcess({
      CHDB_PATH: join(directory, "data"),
      PORT: "0",
      DEMO_DATA: "0",
      API_KEYS_FILE: keysPath,
      API_KEYS_FILE_POLL_SECONDS: "1",
      JWT_SECRET: secret,
      LOG_LEVEL: "info",
    });
    const output = () => service.output();
    try {
      const url = await service.listening();
      expect(output()).toContain(`credentials: scoped keys in ${keysPath}, signed tokens (JWT)`);
      expect(output()).not.toMatch(/API key: /); // no key generated beside the configured credentials
      const status = (credential: string, path = "/api/endpoints/logs.all") =>
        fetch(`${url}${path}`, { headers: { "x-api-key": credential } }).then((r) => r.status);
      expect([await status(keyA), await status(keyB)]).toEqual([200, 200]);
      expect(await status(keyA, "/api/endpoints/logs.all?project=p2")).toBe(403);

      // Changed on disk, no signal: a removed key stops working within the poll.
      writeKeys(["b", keyB]);
      await until(async () => (await status(keyA)) === 401);
      expect(await status(keyB)).toBe(200);

      // A broken file keeps the keys in force and says so once.
      writeFileSync(keysPath, '{"keys": [');
      await until(() => output().includes("API key file not read; the keys in force stay"));
      expect(await status(keyB)).toBe(200);

      // SIGHUP reads it again.
      writeKeys(["a", keyA]);
      service.child.kill("SIGHUP");
      await until(async () => (await status(keyA)) === 200);

      // A token made by the operator's command.
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          bundleOf("cli/token"),
          "--sub",
          "dashboard",
          "--endpoints",
          "logs.all",
          "--fixed",
          "project=p7",
          "--ttl",
          "10m",
        ],
        { env: { ...process.env, JWT_SECRET: secret } },
      );
      const token = stdout.trim();
      expect(token.split(".")).toHaveLength(3);
      expect(await status(token)).toBe(200);
      expect(await status(token, "/api/endpoints/logs.all?project=p1")).toBe(403);
      expect(await status(token, "/api/endpoints/functions.invocation-stats")).toBe(403);
      expect(await status(`${token}x`)).toBe(401);
      // Neither keys nor the token are ever logged; callers are named by key id or token subject.
      for (const secretText of [keyA, keyB, token]) expect(output()).not.toContain(secretText);
      expect(output()).toContain('"caller":"token:dashboard"');
      expect(output()).toContain('"caller":"a"');
    } finally {
      await service.stop();
    }
  });
});
