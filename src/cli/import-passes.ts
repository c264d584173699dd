// The passes of an import over one source: check every line, make sure a
// file is still the one checked, then insert the good rows in batches, each
// only if its lines are the bytes checked. The insert and the messages are
// passed in, so tests run the passes over real files without a warehouse.
import { createHash } from "node:crypto";
import { boundedLines, checkSourceLine, type LogTable, maxReportedLines, type ShippedRow } from "../warehouse/index.js";
import { contentDigest, fileChange, type ImportFile, readFromStart } from "./import-source.js";

/** Where an import reads its lines: an opened file (with its path, for messages) or standard input. */
export type ImportInput = { file: ImportFile; path: string } | { stdin: AsyncIterable<Buffer> };

export interface ImportPassesOptions {
  table: LogTable;
  /** A file opened once (openImportFile) and its path, or standard input (whose good rows are held). */
  source: ImportInput;
  /** Rows per insert. */
  batchSize: number;
  /** Longest line in bytes; a longer one is a bad line. */
  maxLineBytes: number;
  /** Deepest nesting of a line or its metadata text; a deeper one is a bad line. */
  maxDepth: number;
  /** The latest timestamp a row may have (latestTimestamp). Default: the type's bound. */
  latest?: string;
  /** Insert the good rows when some lines are bad. */
  skipInvalid: boolean;
  /** One line of progress or of a bad line. */
  say: (line: string) => void;
  /** Told the number of good rows once they are about to be inserted. */
  beforeInsert?: (good: number) => void;
  /** Inserts one batch of rows. */
  insert: (rows: ShippedRow[]) => Promise<void>;
  /** Runs after the check and before the file is looked at again (tests change the file here). Default: nothing. */
  afterCheck?: () => Promise<void> | void;
}

/** Runs the passes; throws (with nothing inserted) for bad lines without `skipInvalid` or a file that changed. */
export async function runImportPasses(options: ImportPassesOptions): Promise<{ inserted: number; bad: number }> {
  const { table, source, batchSize, say } = options;
  const bounds = { maxLineBytes: options.maxLineBytes, maxDepth: options.maxDepth, latest: options.latest };
  const file = "file" in source ? source.file : undefined;
  const name = "file" in source ? source.path : "standard input";

  // Pass 1: check every line; standard input's good rows are kept for the insert.
  const held: ShippedRow[] = [];
  let good = 0;
  let bad = 0;
  const checked = checkedLines(
    table,
    file === undefined ? (source as { stdin: AsyncIterable<Buffer> }).stdin : readFromStart(file),
    bounds,
    batchSize,
  );
  for await (const { number, check } of checked) {
    if (check.ok) {
      good += 1;
      if (file === undefined) held.push(check.row);
      continue;
    }
    bad += 1;
    if (bad <= maxReportedLines) say(`line ${number}: ${check.problems.join("; ")}`);
  }
  if (bad > maxReportedLines) say(`... and ${bad - maxReportedLines} more bad lines`);
  if (bad > 0 && !options.skipInvalid) {
    throw new Error(
      `${bad} bad line${bad === 1 ? "" : "s"} in ${name}; nothing was inserted (${good === 0 ? "no line is good" : `--skip-invalid inserts the ${good} good one${good === 1 ? "" : "s"}`})`,
    );
  }
  if (good === 0) {
    say(`no rows to insert into ${table}`);
    return { inserted: 0, bad };
  }
  await options.afterCheck?.();

  // Between the passes: the file must be the one checked, to the byte.
  if (file !== undefined) {
    const change = fileChange(file, name) ?? (await contentChange(file, checked.digest()));
    if (change !== undefined) throw new Error(`${name} changed after it was checked (${change}); nothing was inserted`);
  }

  // Pass 2: insert in batches, each only if its lines are the bytes checked.
  options.beforeInsert?.(good);
  let inserted = 0;
  const insert = async (rows: ShippedRow[]) => {
    await options.insert(rows);
    inserted += rows.length;
    say(`${inserted} of ${good} rows inserted`);
  };
  if (file === undefined) {
    for (let i = 0; i < held.length; i += batchSize) await insert(held.slice(i, i + batchSize));
  } else {
    for await (const batch of goodBatches(checkedLines(table, readFromStart(file), bounds, batchSize), batchSize)) {
      if (batch.digest !== checked.batchDigests[batch.index])
        throw new Error(
          `${name} changed while it was inserted; ${inserted} rows checked and unchanged were inserted, the rest not`,
        );
      await insert(batch.rows);
    }
  }
  return { inserted, bad };
}

/**
 * Each non-blank line of `input` with its number and check. Also hashes all
 * the bytes (`digest()`, once read to the end) and the lines of each batch of
 * `batchSize` good rows (`batchDigests`), so that a later pass can tell the
 * same bytes from others.
 */
function checkedLines(
  table: LogTable,
  input: AsyncIterable<Buffer>,
  bounds: { maxLineBytes: number; maxDepth: number; latest?: string },
  batchSize: number,
) {
  const whole = createHash("sha256");
  const batchDigests: string[] = [];
  let batch = createHash("sha256");
  let goodInBatch = 0;
  let digest: string | undefined;
  async function* lines() {
    for await (const line of boundedLines(input, bounds.maxLineBytes, whole)) {
      batch.update(`${line.number}\n${"text" in line ? line.text : `(${line.tooLongBytes} bytes)`}\n`);
      const check = checkSourceLine(table, line, bounds);
      if (check === undefined) continue;
      if (check.ok && ++goodInBatch === batchSize) {
        batchDigests.push(batch.digest("hex"));
        batch = createHash("sha256");
        goodInBatch = 0;
      }
      yield { number: line.number, check };
    }
    if (goodInBatch > 0) batchDigests.push(batch.digest("hex"));
    digest = whole.digest("hex");
  }
  const iterable = lines();
  return Object.assign(iterable, {
    batchDigests,
    /** The SHA-256 of every byte read; only once read to the end. */
    digest: () => digest!,
  });
}

/** The good rows of `lines` in batches of `batchSize`, each with its index and the digest of its lines. */
async function* goodBatches(lines: ReturnType<typeof checkedLines>, batchSize: number) {
  let rows: ShippedRow[] = [];
  let index = 0;
  for await (const { check } of lines) {
    if (!check.ok) continue;
    rows.push(check.row);
    if (rows.length === batchSize) {
      yield { index, rows, digest: lines.batchDigests[index] };
      index += 1;
      rows = [];
    }
  }
  if (rows.length > 0) yield { index, rows, digest: lines.batchDigests[index] };
}

/** Whether `file`'s bytes now hash to other than `digest`: "its content changed", or undefined. */
async function contentChange(file: ImportFile, digest: string): Promise<string | undefined> {
  return (await contentDigest(readFromStart(file))) === digest ? undefined : "its content changed";
}
