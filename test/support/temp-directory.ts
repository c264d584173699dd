// Temporary directories of a test file, removed after each test that made them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Makes `<tmpdir>/<prefix>XXXXXX`; the caller removes it (removeTemporaryDirectory). */
export function makeTemporaryDirectory(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Removes `path` and everything in it; nothing if it is already gone. */
export function removeTemporaryDirectory(path: string): void {
  rmSync(path, { recursive: true, force: true });
}
