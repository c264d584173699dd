// The key file is read only when it is a regular file of a sane size: a
// link to a device or a huge file is refused, and on a reload the keys in
// force stay, instead of the whole thing being read into memory.
import { renameSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { keyDigest, openKeyFile } from "../../src/auth/index.js";
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
