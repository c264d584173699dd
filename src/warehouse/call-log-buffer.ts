// The call log's bounded buffer: rows wait here between flushes, the oldest
// dropped when it is full. The rows of the batch being written stay in it
// until the warehouse has taken them, so a failed write keeps them and the
// bound holds for written and waiting rows together.

export interface CallLogBuffer<Row> {
  /** Rows held, the batch being written included. */
  readonly size: number;
  /** Adds `row`, dropping the oldest row when full. */
  push(row: Row): void;
  /** The rows held now, oldest first, as the batch to write; undefined when empty or a batch is out. */
  takeBatch(): Row[] | undefined;
  /** The batch was written: its rows still held leave the buffer. */
  written(): void;
  /** The batch was not written: its rows stay, to be written with the next batch. */
  notWritten(): void;
}

/**
 * A buffer of at most `maxRows` rows. `onDropped(n)` hears of rows lost: a
 * waiting row at once, a row of the batch being written only if that batch
 * then fails (if it is written, the row was not lost).
 */
export function createCallLogBuffer<Row>(maxRows: number, onDropped: (rows: number) => void): CallLogBuffer<Row> {
  const slots: (Row | undefined)[] = new Array<Row | undefined>(maxRows);
  let start = 0;
  let size = 0;
  // The oldest `outstanding` rows are the batch being written; `droppedFromBatch` of it were pushed out meanwhile.
  let batchOut = false;
  let outstanding = 0;
  let droppedFromBatch = 0;

  const dropOldest = (count: number) => {
    for (let i = 0; i < count; i++) {
      slots[start] = undefined;
      start = (start + 1) % maxRows;
    }
    size -= count;
  };

  return {
    get size() {
      return size;
    },
    push(row) {
      if (maxRows === 0) return onDropped(1);
      if (size === maxRows) {
        dropOldest(1);
        if (outstanding > 0) {
          outstanding -= 1;
          droppedFromBatch += 1;
        } else onDropped(1);
      }
      slots[(start + size) % maxRows] = row;
      size += 1;
    },
    takeBatch() {
      if (batchOut || size === 0) return undefined;
      const batch: Row[] = new Array<Row>(size);
      for (let i = 0; i < size; i++) batch[i] = slots[(start + i) % maxRows]!;
      batchOut = true;
      outstanding = size;
      droppedFromBatch = 0;
      return batch;
    },
    written() {
      dropOldest(outstanding);
      batchOut = false;
      outstanding = 0;
      droppedFromBatch = 0;
    },
    notWritten() {
      if (droppedFromBatch > 0) onDropped(droppedFromBatch);
      batchOut = false;
      outstanding = 0;
      droppedFromBatch = 0;
    },
  };
}
