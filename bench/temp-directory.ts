// A temporary directory that is removed when the bench process exits, however
// it ends: normally, on an error, or on SIGTERM or SIGINT from its parent.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let signalsHandled = false;

/** Makes `<tmpdir>/<prefix>XXXXXX` and removes it (and everything in it) at exit. */
export function temporaryDirectory(prefix: string): string {
  const path = mkdtempSync(join(tmpdir(), prefix));
  process.once("exit", () => rmSync(path, { recursive: true, force: true }));
  if (!signalsHandled) {
    signalsHandled = true;
    // Without a handler a signal ends the process without its exit handlers.
    for (const signal of ["SIGTERM", "SIGINT"] as const)
      process.once(signal, () => process.exit(128 + (signal === "SIGTERM" ? 15 : 2)));
  }
  return path;
}
