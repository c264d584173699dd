// Whether another process holds the embedded engine's data directory. The
// engine keeps a `status` file there (`PID: <n>` first) while a process has
// the directory open and removes it on close; asking before opening spares
// the engine's own error text, which it writes straight to standard error.

import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Thrown instead of opening a data directory that another live process holds. */
export class DataDirectoryHeldError extends Error {
  override readonly name = "DataDirectoryHeldError";
  constructor(
    readonly path: string,
    readonly pid: number,
  ) {
    super(`another process (pid ${pid}) holds the data directory ${path}`);
  }
}

/** The pid of another live process holding `path`, or undefined when none does (or it was left by one that died). */
function dataDirectoryHolder(path: string): number | undefined {
  let status: string;
  try {
    status = readFileSync(join(path, "status"), "utf8");
  } catch {
    return undefined;
  }
  const pid = Number(/^PID:\s*(\d+)/m.exec(status)?.[1]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  return isAlive(pid) ? pid : undefined;
}

/** Throws DataDirectoryHeldError when another live process holds `path`. */
export function assertDataDirectoryFree(path: string): void {
  const pid = dataDirectoryHolder(path);
  if (pid !== undefined) throw new DataDirectoryHeldError(path, pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
