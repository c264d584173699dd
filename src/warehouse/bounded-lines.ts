// The lines of an import's bytes (a file, standard input or a request body),
// each bounded in bytes, so that a huge line is a bad line, never a crash.
import type { Hash } from "node:crypto";

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
