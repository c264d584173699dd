// The call log's bounded buffer: rows wait here between flushes. When it is
// full, the caller holding the most rows loses its oldest, so that one caller
// cannot push the others' rows out. The rows of the batch being written stay
// in it until the warehouse has taken them, so a failed write keeps them and
// the bound holds for written and waiting rows together.

export interface CallLogBuffer<Row> {
  /** Rows held, the batch being written included. */
  readonly size: number;
  /** Adds `row`, dropping the oldest row of the caller holding the most when full. */
  push(row: Row): void;
  /**
   * The batch to write, undefined when empty or a batch is out: the rows of
   * the last batch not written, if any (less those dropped since), else every
   * row held. `retry` says which.
   */
  takeBatch(): { rows: Row[]; retry: boolean } | undefined;
  /** The batch was written: its rows still held leave the buffer. */
  written(): void;
  /** The batch was not written: its rows stay, to be written as the next batch. */
  notWritten(): void;
}

/** One caller's rows, oldest first from `head`; the first `inBatch` of them belong to the batch. */
interface CallerRows<Row> {
  rows: Row[];
  head: number;
  inBatch: number;
  /** Rows of the batch dropped while it was out, lost only if it then fails. */
  droppedFromBatch: number;
}

/**
 * A buffer of at most `maxRows` rows, keyed by `callerOf`. `onDropped(caller, n)`
 * hears of rows lost: a waiting row at once, a row of the batch being written
 * only if that batch then fails (if it is written, the row was not lost).
 */
export function createCallLogBuffer<Row>(
  maxRows: number,
  callerOf: (row: Row) => string,
  onDropped: (caller: string, rows: number) => void,
): CallLogBuffer<Row> {
  const callers = new Map<string, CallerRows<Row>>();
  let size = 0;
  // out: a batch is being written; pending: the last batch failed and is to be written again.
  let state: "idle" | "out" | "pending" = "idle";

  const held = (rows: CallerRows<Row>) => rows.rows.length - rows.head;

  const dropFromLargest = () => {
    let largest: [string, CallerRows<Row>] | undefined;
    for (const entry of callers) if (largest === undefined || held(entry[1]) > held(largest[1])) largest = entry;
    const [caller, rows] = largest!;
    rows.rows[rows.head] = undefined as Row;
    rows.head += 1;
    size -= 1;
    if (rows.inBatch > 0) {
      rows.inBatch -= 1;
      if (state === "out") rows.droppedFromBatch += 1;
      else onDropped(caller, 1);
    } else onDropped(caller, 1);
    compact(caller, rows);
  };

  const compact = (caller: string, rows: CallerRows<Row>) => {
    if (held(rows) === 0 && rows.inBatch === 0 && rows.droppedFromBatch === 0) callers.delete(caller);
    else if (rows.head > 1024 && rows.head * 2 > rows.rows.length) {
      rows.rows = rows.rows.slice(rows.head);
      rows.head = 0;
    }
  };

  const endBatch = () => {
    for (const [caller, rows] of callers) {
      if (rows.droppedFromBatch > 0) onDropped(caller, rows.droppedFromBatch);
      rows.droppedFromBatch = 0;
      compact(caller, rows);
    }
  };

  return {
    get size() {
      return size;
    },
    push(row) {
      const caller = callerOf(row);
      if (maxRows === 0) return onDropped(caller, 1);
      let rows = callers.get(caller);
      if (rows === undefined) callers.set(caller, (rows = { rows: [], head: 0, inBatch: 0, droppedFromBatch: 0 }));
      rows.rows.push(row);
      size += 1;
      if (size > maxRows) dropFromLargest();
    },
    takeBatch() {
      if (state === "out" || size === 0) return undefined;
      const retry = state === "pending";
      const batch: Row[] = [];
      for (const rows of callers.values()) {
        const count = retry ? rows.inBatch : held(rows);
        for (let i = 0; i < count; i++) batch.push(rows.rows[rows.head + i]!);
        rows.inBatch = count;
      }
      state = "out";
      if (batch.length > 0) return { rows: batch, retry };
      // Every row of the failed batch was dropped: the rows held now are a new batch.
      state = "idle";
      return this.takeBatch();
    },
    written() {
      for (const rows of callers.values()) {
        for (let i = 0; i < rows.inBatch; i++) rows.rows[rows.head + i] = undefined as Row;
        rows.head += rows.inBatch;
        size -= rows.inBatch;
        rows.inBatch = 0;
        rows.droppedFromBatch = 0;
      }
      state = "idle";
      endBatch();
    },
    notWritten() {
      state = "pending";
      endBatch();
    },
  };
}
