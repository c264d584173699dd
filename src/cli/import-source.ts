// What `npm run import` reads: a regular file opened once (every pass reads
// the same open file, so a file swapped at its path is never read), or
// standard input; its lines, each bounded in bytes, so that a device or a
// huge line is a refusal or a bad line, never a hang or a crash.
import { createHash, type Hash } from "node:crypto";
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

/** One line: its text, or how long it is when over the bound (its text is never kept). */
export type SourceLine = { number: number; text: string } | { number: number; tooLongBytes: number };

/**
 * The lines of `input` (split at `\n`, a trailing `\r` dropped), each at most
 * `maxBytes`: a longer one is yielded as `tooLongBytes`, its bytes skipped,
 * not held. `hash`, when given, is fed every byte read.
 */
export async function* boundedLines(input: AsyncIterable<Buffer>, maxBytes: number, hash?: Hash) {
  let parts: Buffer[] = [];
  let length = 0;
  let number = 0;
  const line = (): SourceLine => {
    number += 1;
    if (length > maxBytes) return { number, tooLongBytes: length };
    const text = Buffer.concat(parts).toString("utf8");
    return { number, text: text.endsWith("\r") ? text.slice(0, -1) : text };
  };
  for await (const chunk of input) {
    hash?.update(chunk);
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      const end = newline < 0 ? chunk.length : newline;
      length += end - start;
      if (length <= maxBytes) parts.push(chunk.subarray(start, end));
      else parts = [];
      if (newline < 0) break;
      yield line();
      parts = [];
      length = 0;
      start = newline + 1;
    }
  }
  if (length > 0) yield line();
}
