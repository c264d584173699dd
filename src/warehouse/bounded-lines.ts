// The lines of an import's bytes (a file, standard input or a request body),
// each bounded in bytes, so that a huge line is a bad line, never a crash;
// a line whose bytes are not UTF-8 is said to be so rather than decoded with
// U+FFFD in place of them.
import type { Hash } from "node:crypto";
import { isUtf8 } from "node:buffer";

/**
 * One line: its text (with `badUtf8` when its bytes are not valid UTF-8), or
 * how long it is when over the bound (its text is never kept).
 */
export type SourceLine = { number: number; text: string; badUtf8?: true } | { number: number; tooLongBytes: number };

/** Splits bytes into bounded lines as they arrive, without waiting: what boundedLines is made of. */
export interface LineSplitter {
  /**
   * The lines `chunk` completes, in order, each made as it is read, so that
   * a reader may stop or pause within a chunk; read them all before the next push.
   */
  push(chunk: Buffer): Iterable<SourceLine>;
  /** The last line, when the bytes did not end with `\n`. */
  end(): SourceLine[];
}

/**
 * A splitter at `\n`, a trailing `\r` dropped, each line at most `maxBytes`:
 * a longer one comes as `tooLongBytes`, its bytes skipped, not held.
 */
export function createLineSplitter(maxBytes: number): LineSplitter {
  let parts: Buffer[] = [];
  let length = 0;
  let number = 0;
  const line = (): SourceLine => {
    number += 1;
    if (length > maxBytes) return { number, tooLongBytes: length };
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
    const text = bytes.toString("utf8", 0, end);
    return isUtf8(bytes.subarray(0, end)) ? { number, text } : { number, text, badUtf8: true };
  };
  return {
    *push(chunk) {
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf(10, start);
        const end = newline < 0 ? chunk.length : newline;
        length += end - start;
        if (length <= maxBytes) parts.push(chunk.subarray(start, end));
        else parts = [];
        if (newline < 0) break;
        const complete = line();
        parts = [];
        length = 0;
        start = newline + 1;
        yield complete;
      }
    },
    end() {
      if (length === 0) return [];
      const last = line();
      parts = [];
      length = 0;
      return [last];
    },
  };
}

/**
 * The lines of `input`, as createLineSplitter makes them. `hash`, when
 * given, is fed every byte read.
 */
export async function* boundedLines(input: AsyncIterable<Buffer>, maxBytes: number, hash?: Hash) {
  const splitter = createLineSplitter(maxBytes);
  for await (const chunk of input) {
    hash?.update(chunk);
    yield* splitter.push(chunk);
  }
  yield* splitter.end();
}
