// `npm run build` once before the integration tests (global-setup.ts), so
// that the commands the tests run as processes (built-commands.ts) and the
// explorer page (dist/web/) are the bundles users run, made once, not a
// source tree compiled again by every process a test starts.
import { spawnSync } from "node:child_process";
import { projectRoot } from "./built-commands.js";

/** Brings src/gen/ and dist/ up to date (nothing to do when they are); throws with the build's output if it fails. */
export function buildOnce(): void {
  const build = spawnSync(process.execPath, ["scripts/build.mjs"], {
    cwd: projectRoot,
    encoding: "utf8",
    timeout: 170_000,
  });
  if (build.status !== 0)
    throw new Error(`npm run build failed (exit ${build.status}): ${build.stderr}${build.error?.message ?? ""}`);
}
