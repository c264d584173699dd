// The key file is read only when it is a regular file of a sane size: a
// link to a device or a huge file is refused, and on a reload the keys in
// force stay, instead of the whole thing being read into memory.
import { renameSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { keyDigest, openKeyFile } from "../../src/auth/index.js";
import { createLogger } from "../../src/observability/index.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../support/temp-directory.js";

const directory = makeTemporaryDirectory("sqe-keyfile-");
afterAll(() => removeTemporaryDirectory(directory));
const known = { knownEndpoints: new Set(["logs.all"]), knownParameters: new Set(["project"]) };
const goodKeys = JSON.stringify({ keys: [{ id: "a", sha256: keyDigest("key-a-0123456789abcdef") }] });

describe("reading the key file", () => {
  it("refuses a link to a device and a file over 16 MiB at start, naming why", () => {
    const device = join(directory, "device.json");
    symlinkSync("/dev/zero", device);
    expect(() => openKeyFile({ path: device, ...known, pollMs: 0 })).toThrow(
      `API_KEYS_FILE ${device} is not a regular file`,
    );
    const huge = join(directory, "huge.json");
    writeFileSync(huge, "");
    truncateSync(huge, 16 * 1024 * 1024 + 1); // sparse: nothing is written
    expect(() => openKeyFile({ path: huge, ...known, pollMs: 0 })).toThrow(
      `API_KEYS_FILE ${huge} is 16777217 bytes; a key file may have at most 16777216`,
    );
  });

  it("keeps the keys in force when the file becomes a link to a device", () => {
    const path = join(directory, "keys.json");
    writeFileSync(path, goodKeys);
    const keyFile = openKeyFile({ path, ...known, pollMs: 0 });
    expect(keyFile.lookup(keyDigest("key-a-0123456789abcdef"))?.id).toBe("a");
    // Replaced by a link to a device, as an operator's mistake would.
    const swapped = join(directory, "swapped.json");
    symlinkSync("/dev/zero", swapped);
    renameSync(swapped, path);
    expect(keyFile.reload()).toBe(false);
    expect(keyFile.lookup(keyDigest("key-a-0123456789abcdef"))?.id).toBe("a");
    keyFile.close();
  });
});

describe("watching the key file", () => {
  afterEach(() => vi.useRealTimers());

  it("notices a key revoked by a rewrite in place that keeps the size and the modification time", () => {
    vi.useFakeTimers();
    const path = join(directory, "in-place.json");
    // Two entries of the same length: "b" swapped for "c" keeps the size.
    const entries = (second: string) =>
      JSON.stringify({
        keys: [
          { id: "a", sha256: keyDigest("key-a-0123456789abcdef") },
          { id: second, sha256: keyDigest(`key-${second}-0123456789abcdef`) },
        ],
      });
    writeFileSync(path, entries("b"));
    // A whole second, which every file system stores exactly.
    utimesSync(path, 1_700_000_000, 1_700_000_000);
    const keyFile = openKeyFile({ path, ...known, pollMs: 2000 });
    expect(keyFile.lookup(keyDigest("key-b-0123456789abcdef"))?.id).toBe("b");
    const before = statSync(path);
    writeFileSync(path, entries("c"));
    utimesSync(path, 1_700_000_000, 1_700_000_000);
    const after = statSync(path);
    expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino]);
    vi.advanceTimersByTime(2000);
    expect(keyFile.lookup(keyDigest("key-b-0123456789abcdef"))).toBeUndefined();
    expect(keyFile.lookup(keyDigest("key-c-0123456789abcdef"))?.id).toBe("c");
    keyFile.close();
  });

  it("says a problem found by polling once, not on every poll, and keeps the keys in force", () => {
    vi.useFakeTimers();
    const path = join(directory, "broken-later.json");
    writeFileSync(path, goodKeys);
    const lines: string[] = [];
    const keyFile = openKeyFile({
      path,
      ...known,
      pollMs: 1000,
      logger: createLogger({ write: (line) => lines.push(line) }),
    });
    writeFileSync(path, "{ not json");
    vi.advanceTimersByTime(5000);
    expect(lines.filter((line) => line.includes("API key file not read"))).toHaveLength(1);
    expect(keyFile.lookup(keyDigest("key-a-0123456789abcdef"))?.id).toBe("a");
    keyFile.close();
  });
});
