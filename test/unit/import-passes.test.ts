// The passes of `npm run import` over real files, with the insert collected:
// a file changed between the check and the insert (swapped at its path, or
// rewritten in place to the same size and time) inserts nothing; lines too
// long or nested too deep are bad lines reported by number; a FIFO or a
// device is refused at once.
import { spawnSync } from "node:child_process";
import { renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runImportPasses, type ImportPassesOptions } from "../../src/cli/import-passes.js";
import { openImportFile } from "../../src/cli/import-source.js";
import { boundedLines, checkLogLine, type ShippedRow } from "../../src/warehouse/index.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../support/temp-directory.js";

const directory = makeTemporaryDirectory("sqe-import-passes-");
afterAll(() => removeTemporaryDirectory(directory));

function line(n: number, metadata: unknown = [{ project: "p" }]) {
  return JSON.stringify({
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    timestamp: "2026-11-20T21:59:00.123456Z",
    event_message: `line ${n}`,
    metadata,
  });
}

/** Runs the passes over `path` into storage_logs-like rows; collects inserts and messages. */
async function run(path: string, options: Partial<ImportPassesOptions> = {}) {
  const inserted: ShippedRow[][] = [];
  const said: string[] = [];
  const file = openImportFile(path);
  const result = await runImportPasses({
    table: "realtime_logs",
    source: { file, path },
    batchSize: 2,
    maxLineBytes: 1024,
    maxDepth: 32,
    skipInvalid: false,
    say: (text) => said.push(text),
    insert: async (rows) => void inserted.push(rows),
    ...options,
  }).then(
    (r) => r,
    (error: Error) => error,
  );
  return { result, inserted, said };
}

describe("import passes", () => {
  it("inserts every good row of an unchanged file in batches", async () => {
    const path = join(directory, "good.ndjson");
    writeFileSync(path, `${[1, 2, 3].map((n) => line(n)).join("\n")}\n`);
    const { result, inserted } = await run(path);
    expect(result).toEqual({ inserted: 3, bad: 0 });
    expect(inserted.map((batch) => batch.length)).toEqual([2, 1]);
  });

  it("inserts nothing when another file is put at the path between the passes", async () => {
    const path = join(directory, "swapped.ndjson");
    writeFileSync(path, `${line(1)}\n${line(2)}\n`);
    const { result, inserted } = await run(path, {
      afterCheck: () => {
        const other = join(directory, "other.ndjson");
        writeFileSync(other, `${line(7)}\nnot json\n`);
        renameSync(other, path);
      },
    });
    expect((result as Error).message).toBe(
      `${path} changed after it was checked (another file is now at its path); nothing was inserted`,
    );
    expect(inserted).toEqual([]);
  });

  it("inserts nothing when the file is rewritten in place to the same size and time", async () => {
    const path = join(directory, "in-place.ndjson");
    writeFileSync(path, `${line(1)}\n${line(2)}\n`);
    utimesSync(path, 1_700_000_000, 1_700_000_000);
    const { result, inserted } = await run(path, {
      afterCheck: () => {
        const before = statSync(path);
        writeFileSync(path, `${line(1)}\n${line(3)}\n`); // the same length: only a digit differs
        utimesSync(path, 1_700_000_000, 1_700_000_000);
        expect([statSync(path).size, statSync(path).ino]).toEqual([before.size, before.ino]);
      },
    });
    expect((result as Error).message).toBe(
      `${path} changed after it was checked (its content changed); nothing was inserted`,
    );
    expect(inserted).toEqual([]);
  });

  it("inserts nothing when the file grows between the passes", async () => {
    const path = join(directory, "grown.ndjson");
    writeFileSync(path, `${line(1)}\n`);
    const { result, inserted } = await run(path, {
      afterCheck: () => writeFileSync(path, `${line(1)}\n${line(2)}\n`),
    });
    expect((result as Error).message).toMatch(/changed after it was checked \(its size went from \d+ to \d+ bytes\)/);
    expect(inserted).toEqual([]);
  });

  it("reports an overlong line and 100,000-deep ones by number, and inserts the rest with skipInvalid", async () => {
    const path = join(directory, "bounded.ndjson");
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const deepText = JSON.stringify(deep); // metadata given as text, nested 100,000 deep inside
    writeFileSync(
      path,
      [
        line(1),
        line(2, { padding: "x".repeat(400_000) }),
        line(1).replace(/"metadata":.*\}$/, `"metadata":[{"project":"p","a":${deep}}]}`),
        line(4).replace(/"metadata":.*\}$/, `"metadata":${deepText}}`),
        line(5),
      ].join("\n"),
    );
    const bounds = { maxLineBytes: 300_000 };
    const strict = await run(path, bounds);
    expect((strict.result as Error).message).toMatch(/^3 bad lines in .*; nothing was inserted/);
    expect(strict.inserted).toEqual([]);
    expect(strict.said).toEqual([
      expect.stringMatching(/^line 2: longer than 300000 bytes \(\d+\)$/),
      "line 3: nested deeper than 32 levels",
      "line 4: metadata is nested deeper than 32 levels",
    ]);
    const skipping = await run(path, { ...bounds, skipInvalid: true });
    expect(skipping.result).toEqual({ inserted: 2, bad: 3 });
    expect(skipping.inserted.flat().map((row) => row.event_message)).toEqual(["line 1", "line 5"]);
  });
});

describe("import sources", () => {
  it("refuses a FIFO at once, without waiting for a writer, and a device", () => {
    const fifo = join(directory, "fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    expect(() => openImportFile(fifo)).toThrow(
      `${fifo} is not a regular file; give - to read a pipe from standard input`,
    );
    expect(() => openImportFile("/dev/zero")).toThrow("/dev/zero is not a regular file");
  });

  it("splits lines at \\n, drops a \\r before it, and never keeps a line past the bound", async () => {
    const chunks = [Buffer.from("ab\r\ncd"), Buffer.from("ef\n"), Buffer.alloc(5000, 120), Buffer.from("\nlast")];
    const lines = [];
    for await (const l of boundedLines(
      (async function* () {
        yield* chunks;
      })(),
      100,
    ))
      lines.push(l);
    expect(lines).toEqual([
      { number: 1, text: "ab" },
      { number: 2, text: "cdef" },
      { number: 3, tooLongBytes: 5000 },
      { number: 4, text: "last" },
    ]);
  });

  it("checks nesting outside strings only", () => {
    const inString = JSON.stringify({ ...JSON.parse(line(1)), event_message: "[".repeat(100) });
    expect(checkLogLine("realtime_logs", inString, { maxDepth: 8 }).ok).toBe(true);
  });
});
