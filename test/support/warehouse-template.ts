// A migrated data directory made once before the integration tests, which
// each test warehouse starts as a copy of (embedded-warehouse.ts) instead of
// applying every migration again.
import { spawnSync } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { makeTemporaryDirectory } from "./temp-directory.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The migrated template data directory (warehouse-template.ts); unset outside the integration tests. */
    warehouseTemplate?: string;
  }
}

/** Makes the template in a new temporary directory and returns its path; throws with the output if it fails. */
export function makeWarehouseTemplate(): string {
  const path = join(makeTemporaryDirectory("sqe-template-"), "data");
  const made = spawnSync(
    process.execPath,
    ["--import", "tsx", join(import.meta.dirname, "migrate-template.ts"), path],
    {
      encoding: "utf8",
      timeout: 120_000,
    },
  );
  if (made.status !== 0)
    throw new Error(
      `the warehouse template was not made (exit ${made.status}): ${made.stderr}${made.error?.message ?? ""}`,
    );
  return path;
}

/**
 * Copies the template into `path` (an empty directory). Its tables' entries
 * are relative symbolic links into its store, kept as they are.
 */
export function copyWarehouseTemplate(template: string, path: string): void {
  cpSync(template, path, { recursive: true, verbatimSymlinks: true });
}
