// What `npm run import` reads: a regular file opened once (every pass reads
// the same open file, so a file swapped at its path is never read), or
// standard input. A device or a FIFO is a refusal, never a hang.
import { createHash } from "node:crypto";
import { closeSync, constants, createReadStream, fstatSync, openSync, type Stats, statSync } from "node:fs";

/** A regular file held open for the passes of an import. */
export interface ImportFile {
  fd: number;
  /** Its state when opened: a pass that finds another refuses the import. */
  stats: Stats;
}

/**
 * Opens `path`, refusing (with a message) anything but a regular file: a FIFO
 * would hang the import, a device never end. Opened without blocking, so a
 * FIFO is refused rather than waited on.
 */
export function openImportFile(path: string): ImportFile {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw new Error(`${path} is not a regular file; give - to read a pipe from standard input`);
  }
  return { fd, stats };
}

/** What changed of `file` (at `path`) since it was opened, or undefined when nothing did. */
export function fileChange(file: ImportFile, path: string): string | undefined {
  const now = fstatSync(file.fd);
  if (now.size !== file.stats.size) return `its size went from ${file.stats.size} to ${now.size} bytes`;
  if (now.mtimeMs !== file.stats.mtimeMs) return "its modification time changed";
  let atPath: Stats | undefined;
  try {
    atPath = statSync(path);
  } catch {
    return "it is no longer at its path";
  }
  if (atPath.ino !== file.stats.ino || atPath.dev !== file.stats.dev) return "another file is now at its path";
  return undefined;
}

/** Reads `file` from its start, without closing it. */
export function readFromStart(file: ImportFile): AsyncIterable<Buffer> {
  return createReadStream("", { fd: file.fd, start: 0, autoClose: false }) as AsyncIterable<Buffer>;
}

/** The SHA-256 of everything `input` yields. */
export async function contentDigest(input: AsyncIterable<Buffer>): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of input) hash.update(chunk);
  return hash.digest("hex");
}
