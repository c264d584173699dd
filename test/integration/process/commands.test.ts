// Every command a user runs answers --help without doing anything, and
// refuses an unknown option, or an option value it cannot take, with its
// usage and exit code 2. The service's commands run from their bundles, as
// npm start and npm run <command> run them; the others from source under tsx.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bundleOf, projectRoot as root } from "../../support/built-commands.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

/** Node's arguments that run each command. */
const commands = [
  ["start", [bundleOf("main")]],
  ["migrate", [bundleOf("cli/migrate")]],
  ["seed", [bundleOf("cli/seed")]],
  ["import", [bundleOf("cli/import")]],
  ["bench", ["--import", "tsx", "bench/run.ts"]],
  ["soak", ["--import", "tsx", "bench/soak.ts"]],
  ["docs", ["--import", "tsx", "scripts/docs.ts"]],
] as const;
const seed = [bundleOf("cli/seed")];
const token = [bundleOf("cli/token")];

let parent: string | undefined;
afterEach(() => {
  if (parent !== undefined) removeTemporaryDirectory(parent);
  parent = undefined;
});

/** Runs `command` (Node's arguments) with `args` against a data directory that does not exist yet. */
function run(command: readonly string[], args: string[]) {
  parent = makeTemporaryDirectory("sqe-cli-");
  const dataDir = join(parent, "data");
  const result = spawnSync(process.execPath, [...command, ...args], {
    cwd: root,
    env: { ...process.env, CHDB_PATH: dataDir, PORT: "0", API_KEYS: "commands-test-key-0123456789" },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { ...result, dataDirMade: existsSync(dataDir) };
}

describe("command lines", () => {
  it.each(commands)("%s --help prints its usage and exits 0 without starting anything", (_name, command) => {
    const result = run(command, ["--help"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^usage: /);
    expect(result.stdout).toMatch(/-h, --help/);
    expect(result.stderr).not.toMatch(/"level"/);
    expect(result.dataDirMade).toBe(false);
  });

  it.each(commands)("%s refuses an unknown option with its usage and exit code 2", (_name, command) => {
    const result = run(command, ["--no-such-option"]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^error: Unknown option '--no-such-option'\n\nusage: /);
    expect(result.dataDirMade).toBe(false);
  });

  it.each([
    ["seed", ["--scale", "0"], seed, '--scale must be a positive number, got "0"'],
    ["seed", ["--scale", "many"], seed, '--scale must be a positive number, got "many"'],
    [
      "token",
      ["--sub", "a", "--ttl", "forever"],
      token,
      '--ttl must be a duration such as 90s, 15m, 1h or 7d, got "forever"',
    ],
    ["token", ["--ttl", "1h", "--rps", "0"], token, '--sub is required; --rps must be a positive number, got "0"'],
    [
      "token",
      ["--sub", "a", "--rps", "1e-300"],
      token,
      '--rps must be at least 0.0000116 (one call a day), got "1e-300"',
    ],
    ["token", ["--sub", "a", "--rps", "1e400"], token, '--rps must be a number, got "1e400"'],
    [
      "token",
      ["--sub", "a", "--max-bytes-to-read", "0"],
      token,
      '--max-bytes-to-read must be a whole number of at least 1, got "0"',
    ],
  ])("%s refuses the option values %j with its usage and exit code 2", (name, args, command, problems) => {
    const result = run(command, args);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 2, stdout: "" });
    expect(result.stderr.startsWith(`error: ${problems}\n\nusage: npm run ${name} `)).toBe(true);
    expect(result.dataDirMade).toBe(false);
  });
});
