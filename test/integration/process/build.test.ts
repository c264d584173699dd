// The build that `npm start` and the other commands run first
// (scripts/build.mjs), in a copy of the project: it answers --help and
// refuses an unknown option without building, bundles when dist/ is missing
// or what it was made from changed (whatever the files' times say), skips an
// up-to-date dist/, keeps the last good bundles when esbuild fails, hands what follows
// --then SCRIPT to that script, and the bundles it makes are the real
// commands: an import and the service, called over HTTP, from dist/ alone.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceProcess } from "../../support/service-process.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const root = join(import.meta.dirname, "../../..");
const project = "buildtestprojectabcd";
const key = "build-test-key-0123456789";
let copy: string;

beforeAll(() => {
  copy = makeTemporaryDirectory("sqe-build-");
  // src/gen/ comes along with the hash of what it was made from, so buf is not run again.
  for (const path of [
    "package.json",
    "tsconfig.json",
    "buf.yaml",
    "buf.gen.yaml",
    "scripts",
    "src",
    "sql",
    "proto",
    "web",
  ]) {
    cpSync(join(root, path), join(copy, path), { recursive: true });
  }
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));
});
afterAll(() => removeTemporaryDirectory(copy));

function build(...args: string[]) {
  return spawnSync(process.execPath, ["scripts/build.mjs", ...args], {
    cwd: copy,
    env: { ...process.env, CHDB_PATH: join(copy, "data") },
    encoding: "utf8",
    timeout: 60_000,
  });
}

/** Changes `path`'s contents (a comment at its end) and sets its time to `time`. */
function edit(path: string, time = new Date()) {
  const file = join(copy, path);
  writeFileSync(file, `${readFileSync(file, "utf8")}\n// edited by the build test\n`);
  utimesSync(file, time, time);
}

/** Sets `path`'s time to now without changing it, as a checkout or a copy does. */
function touch(path: string) {
  const now = new Date();
  utimesSync(join(copy, path), now, now);
}

describe("the build before every command", () => {
  // First, while dist/ is missing: neither builds anything.
  it("answers --help with its usage and exit code 0, building nothing", () => {
    const help = build("--help");
    expect({ status: help.status, stderr: help.stderr }).toEqual({ status: 0, stderr: "" });
    expect(help.stdout).toMatch(/^usage: node scripts\/build\.mjs /);
    expect(help.stdout).toMatch(/--generate-only/);
    expect(help.stdout).toMatch(/-h, --help/);
    expect(existsSync(join(copy, "dist"))).toBe(false);
  });

  it.each([["--bogus"], ["--generate-only", "--bogus"], ["--then"]])(
    "refuses %j with its usage on stderr and exit code 2, building nothing",
    (...args) => {
      const refused = build(...args);
      expect({ status: refused.status, stdout: refused.stdout }).toEqual({ status: 2, stdout: "" });
      expect(refused.stderr).toMatch(
        /^error: (Unknown option '--bogus'|Option '--then <script>' argument missing)\n\nusage: node scripts\/build\.mjs /,
      );
      expect(existsSync(join(copy, "dist"))).toBe(false);
    },
  );

  it("bundles a missing dist/, then skips it while nothing changed", () => {
    const first = build();
    expect(first.status).toBe(0);
    expect(first.stderr).toMatch(
      /^build: bundling src\/ into dist\/ with esbuild\nbuild: 5 bundles from \d+ files in [\d.]+ s\n$/,
    );
    const second = build();
    expect(second.status).toBe(0);
    expect(second.stderr).toBe("");
  });

  it.each([
    ["a source changes", () => edit("src/service/lifecycle.ts")],
    [
      "a source changes and keeps an older time (cp -p, a restored archive)",
      () => edit("src/config/read-config.ts", new Date(Date.now() - 86_400_000)),
    ],
    ["tsconfig.json changes", () => edit("tsconfig.json")],
    ["the bundling script changes", () => edit("scripts/build/bundle.mjs")],
    ["a bundle is gone", () => rmSync(join(copy, "dist/cli/seed.js"))],
  ])("bundles again when %s, and only once", (_what, change) => {
    change();
    const after = build();
    expect(after.status).toBe(0);
    expect(after.stderr).toContain("build: bundling");
    expect(build().stderr).toBe("");
  });

  it("does not bundle again for a file touched without a change", () => {
    touch("src/main.ts");
    touch("tsconfig.json");
    expect(build().stderr).toBe("");
    expect(build().stderr).toBe("");
  });

  it("leaves the last good bundles in place when esbuild fails", () => {
    const file = join(copy, "src/cli/token.ts");
    const good = readFileSync(file, "utf8");
    const before = readFileSync(join(copy, "dist/main.js"), "utf8");
    try {
      writeFileSync(file, `${good}\nconst broken = ;\n`);
      const failed = build();
      expect(failed.status).toBe(1);
      expect(failed.stderr).toContain("src/cli/token.ts");
      expect(failed.stderr).toMatch(/build: failed \(esbuild's errors above\); dist\/ is left as it was\n$/);
      expect(readFileSync(join(copy, "dist/main.js"), "utf8")).toBe(before);
      // The last good service still runs from dist/; a command through the build stops at the same error.
      const direct = spawnSync(process.execPath, ["dist/main.js", "--help"], { cwd: copy, encoding: "utf8" });
      expect(direct.stdout).toMatch(/^usage: node dist\/main\.js /);
      expect(build("--then", "dist/main.js", "--help").status).toBe(1);
    } finally {
      writeFileSync(file, good);
    }
    // The source as the last good bundles were made from it: nothing to do.
    expect(build()).toMatchObject({ status: 0, stderr: "" });
  });

  it.each([
    [["--then", "dist/mian.js"], "error: --then dist/mian.js: no such command in dist/"],
    [["--then", "src/main.ts"], "error: --then runs a built command (dist/main.js, dist/cli/*.js), not src/main.ts"],
    [
      ["--generate-only", "--then", "dist/main.js"],
      "error: --generate-only makes no bundles, so there is nothing for --then to run",
    ],
  ])("refuses %j with exit code 2", (args, message) => {
    const refused = build(...args);
    expect({ status: refused.status, stdout: refused.stdout }).toEqual({ status: 2, stdout: "" });
    expect(refused.stderr.startsWith(message)).toBe(true);
  });

  it("takes --then=SCRIPT as --then SCRIPT", () => {
    const help = build("--then=dist/main.js", "--help");
    expect({ status: help.status, stderr: help.stderr }).toEqual({ status: 0, stderr: "" });
    expect(help.stdout).toMatch(/^usage: node dist\/main\.js /);
  });

  it("reads the options before --then as its own and hands every argument after --then SCRIPT to that script untouched", () => {
    const own = build("--bogus", "--then", "dist/cli/seed.js", "--help");
    expect({ status: own.status, stdout: own.stdout }).toEqual({ status: 2, stdout: "" });
    expect(own.stderr).toMatch(/^error: Unknown option '--bogus'\n\nusage: node scripts\/build\.mjs /);
    const help = build("--then", "dist/main.js", "--help");
    expect({ status: help.status, stderr: help.stderr }).toEqual({ status: 0, stderr: "" });
    expect(help.stdout).toMatch(/^usage: node dist\/main\.js /);
    const seed = build("--then", "dist/cli/seed.js", "--scale", "0", "--bogus");
    expect({ status: seed.status, stdout: seed.stdout }).toEqual({ status: 2, stdout: "" });
    expect(seed.stderr).toMatch(/^error: Unknown option '--bogus'\n\nusage: npm run seed /);
  });

  it("counts the files of the bundled packages among its inputs, and not the packages left outside", () => {
    const inputs = Object.keys(
      (JSON.parse(readFileSync(join(copy, "dist/.inputs.json"), "utf8")) as { files: Record<string, unknown> }).files,
    );
    expect(inputs).toContain("src/main.ts");
    expect(inputs.some((path) => path.includes("node_modules/@connectrpc/connect/"))).toBe(true);
    expect(inputs.some((path) => /node_modules\/(chdb|jose|@clickhouse\/client)\//.test(path))).toBe(false);
  });

  it("--then runs a bundle in the same process: an import, then the service answering from what it imported", async () => {
    const now = Date.now();
    const rows = [
      { n: 1, path: "/rest/v1/todos", minutesAgo: 5 },
      { n: 2, path: "/rest/v1/notes", minutesAgo: 6 },
      { n: 3, path: "/storage/v1/object/a.png", minutesAgo: 7 },
    ].map(({ n, path, minutesAgo }) =>
      JSON.stringify({
        id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
        timestamp: new Date(now - minutesAgo * 60_000).toISOString(),
        event_message: `GET | 200 | ${path}`,
        project,
        metadata: [
          {
            request: [{ method: "GET", path, url: `https://${project}.supabase.co${path}` }],
            response: [{ status_code: 200 }],
          },
        ],
      }),
    );
    writeFileSync(join(copy, "edge.ndjson"), `${rows.join("\n")}\n`);
    const imported = build("--then", "dist/cli/import.js", "--table", "edge_logs", "edge.ndjson");
    expect(imported.stderr).not.toContain("build: bundling");
    expect({ status: imported.status, stdout: imported.stdout }).toEqual({
      status: 0,
      stdout: "imported 3 rows into edge_logs\n",
    });

    const service = startServiceProcess(
      { CHDB_PATH: join(copy, "data"), PORT: "0", API_KEYS: key, DEMO_DATA: "0" },
      { args: ["scripts/build.mjs", "--then", "dist/main.js"], cwd: copy },
    );
    try {
      const url = await service.listening();
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      // Newest first, as logs.all orders them: 1 (5 minutes ago), 2, 3.
      const response = await fetch(`${url}/api/endpoints/logs.all?project=${project}`, {
        headers: { "x-api-key": key },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { result: { id: string; event_message: string }[] };
      expect(body.result.map((row) => [row.id.slice(-1), row.event_message])).toEqual([
        ["1", "GET | 200 | /rest/v1/todos"],
        ["2", "GET | 200 | /rest/v1/notes"],
        ["3", "GET | 200 | /storage/v1/object/a.png"],
      ]);
    } finally {
      await service.stop();
    }
    expect(await service.exited).toBe(0);
  });
});
