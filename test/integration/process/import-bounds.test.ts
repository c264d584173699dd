// `npm run import` as a process against what used to hang or crash it: a
// FIFO (it waited for a writer for ever, holding the data directory), a
// device, and lines too long or nested too deep (a raw RangeError, or a stack
// overflow that ended the import without naming the line).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bundleOf } from "../../support/built-commands.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const root = join(import.meta.dirname, "../../..");
const dir = makeTemporaryDirectory("sqe-import-bounds-");
afterAll(() => removeTemporaryDirectory(dir));

function runImport(args: string[]) {
  return spawnSync(process.execPath, [bundleOf("cli/import"), ...args], {
    cwd: root,
    env: { ...process.env, CHDB_PATH: join(dir, "data") },
    encoding: "utf8",
    timeout: 60_000,
  });
}

function line(n: number, metadata = `[{"project":"p"}]`) {
  return `{"id":"00000000-0000-4000-8000-${String(n).padStart(12, "0")}","timestamp":"2026-11-20T21:59:00Z","event_message":"m","metadata":${metadata}}`;
}

describe("npm run import against hostile input", () => {
  it("refuses a FIFO and a device at once, exit 1, one line each", () => {
    const fifo = join(dir, "fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    for (const path of [fifo, "/dev/zero"]) {
      const run = runImport(["--table", "realtime_logs", path]);
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(`error: ${path} is not a regular file; give - to read a pipe from standard input\n`);
    }
  });

  it("reports an overlong line and a 100,000-deep metadata by number, and --skip-invalid imports the rest", () => {
    const path = join(dir, "hostile.ndjson");
    const deep = `[{"project":"p","a":${"[".repeat(100_000)}${"]".repeat(100_000)}}]`;
    writeFileSync(
      path,
      [line(1), line(2, `[{"project":"p","pad":"${"x".repeat(300_000)}"}]`), line(3, deep), line(4)].join("\n"),
    );
    const run = runImport(["--table", "realtime_logs", "--skip-invalid", "--max-line-bytes", "250000", path]);
    expect(run.stderr).toContain("import: line 2: longer than 250000 bytes (");
    expect(run.stderr).toContain("import: line 3: nested deeper than 32 levels\n");
    expect(run.stdout).toBe("imported 2 rows into realtime_logs (2 bad lines skipped)\n");
    expect(run.status).toBe(0);
  });
});
