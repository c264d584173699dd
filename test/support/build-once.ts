// The integration tests' global setup: `npm run build` once before any test
// file, so that the commands the tests run as processes (built-commands.ts)
// and the explorer page (dist/web/) are the bundles users run, made once,
// not a source tree compiled again by every process a test starts.
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const root = join(import.meta.dirname, "../..");

/** Brings src/gen/ and dist/ up to date (nothing to do when they are); throws with the build's output if it fails. */
export function setup(): void {
  const build = spawnSync(process.execPath, [join(root, "scripts/build.mjs")], {
    cwd: root,
    encoding: "utf8",
    timeout: 170_000,
  });
  if (build.status !== 0)
    throw new Error(`npm run build failed (exit ${build.status}): ${build.stderr}${build.error?.message ?? ""}`);
}
