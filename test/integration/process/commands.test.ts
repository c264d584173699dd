// Every command a user runs answers --help without doing anything, and
// refuses an unknown option, or an option value it cannot take, with its
// usage and exit code 2.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const root = join(import.meta.dirname, "../../..");
const commands = [
  ["start", "src/main.ts"],
  ["migrate", "src/cli/migrate.ts"],
  ["seed", "src/cli/seed.ts"],
  ["import", "src/cli/import.ts"],
  ["bench", "bench/run.ts"],
  ["soak", "bench/soak.ts"],
  ["docs", "scripts/docs.ts"],
] as const;

let parent: string | undefined;
afterEach(() => {
  if (parent !== undefined) removeTemporaryDirectory(parent);
  parent = undefined;
});

/** Runs `script` with `args` against a data directory that does not exist yet. */
function run(script: string, args: string[]) {
  parent = makeTemporaryDirectory("sqe-cli-");
  const dataDir = join(parent, "data");
  const result = spawnSync(process.execPath, ["--import", "tsx", script, ...args], {
    cwd: root,
    env: { ...process.env, CHDB_PATH: dataDir, PORT: "0", API_KEYS: "commands-test-key-0123456789" },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { ...result, dataDirMade: existsSync(dataDir) };
}

describe("command lines", () => {
  it.each(commands)("%s --help prints its usage and exits 0 without starting anything", (_name, script) => {
    const result = run(script, ["--help"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^usage: /);
    expect(result.stdout).toMatch(/-h, --help/);
    expect(result.stderr).not.toMatch(/"level"/);
    expect(result.dataDirMade).toBe(false);
  });

  it.each(commands)("%s refuses an unknown option with its usage and exit code 2", (_name, script) => {
    const result = run(script, ["--no-such-option"]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^error: Unknown option '--no-such-option'\n\nusage: /);
    expect(result.dataDirMade).toBe(false);
  });

  it.each([
    ["seed", ["--scale", "0"], "src/cli/seed.ts", '--scale must be a positive number, got "0"'],
    ["seed", ["--scale", "many"], "src/cli/seed.ts", '--scale must be a positive number, got "many"'],
    [
      "token",
      ["--sub", "a", "--ttl", "forever"],
      "src/cli/token.ts",
      '--ttl must be a duration such as 90s, 15m, 1h or 7d, got "forever"',
    ],
    [
      "token",
      ["--ttl", "1h", "--rps", "0"],
      "src/cli/token.ts",
      '--sub is required; --rps must be a positive number, got "0"',
    ],
    [
      "token",
      ["--sub", "a", "--rps", "1e-300"],
      "src/cli/token.ts",
      '--rps must be at least 0.0000116 (one call a day), got "1e-300"',
    ],
    ["token", ["--sub", "a", "--rps", "1e400"], "src/cli/token.ts", '--rps must be a number, got "1e400"'],
    [
      "token",
      ["--sub", "a", "--max-bytes-to-read", "0"],
      "src/cli/token.ts",
      '--max-bytes-to-read must be a whole number of at least 1, got "0"',
    ],
  ])("%s refuses the option values %j with its usage and exit code 2", (name, args, script, problems) => {
    const result = run(script, args);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 2, stdout: "" });
    expect(result.stderr.startsWith(`error: ${problems}\n\nusage: npm run ${name} `)).toBe(true);
    expect(result.dataDirMade).toBe(false);
  });
});
