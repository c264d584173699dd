// An import body's bytes, cut once its upload has been slower than a floor:
// past a short grace, a client that has sent less than `bytesPerSecond`
// times the seconds since the body began is answered 408 and its slot
// freed, so that a client trickling bytes cannot hold an import slot.
import { Code, ConnectError } from "@connectrpc/connect";

/** `IMPORT_MIN_BYTES_PER_SECOND` when unset: 16 MiB within about 17 minutes. */
export const defaultImportMinBytesPerSecond = 16 * 1024;
/** How long an upload may be slower than the floor before it counts, when the caller does not say. */
export const defaultImportUploadGraceMs = 10_000;

export interface UploadFloor {
  /** Bytes a second the upload must average; 0: no floor. */
  bytesPerSecond: number;
  /** Milliseconds from the start before the floor applies. */
  graceMs: number;
}

/** The errors withUploadFloor threw (ConnectError's instanceof takes any ConnectError for a subclass). */
const slowUploads = new WeakSet<ConnectError>();

/** Whether `error` is the cut of a slow upload: DEADLINE_EXCEEDED, answered with HTTP's 408. */
export function isSlowUpload(error: unknown): boolean {
  return error instanceof ConnectError && slowUploads.has(error);
}

function slowUpload(floor: UploadFloor, received: number): ConnectError {
  const error = new ConnectError(
    `the body arrived slower than ${floor.bytesPerSecond} bytes a second (IMPORT_MIN_BYTES_PER_SECOND): ${received} bytes so far`,
    Code.DeadlineExceeded,
  );
  slowUploads.add(error);
  return error;
}

/**
 * The chunks of `body`, throwing a slow upload (isSlowUpload) when the next one has not
 * come by the time the bytes so far fall below the floor. Time is read from
 * `performance.now()` for the wait between chunks.
 */
export async function* withUploadFloor(body: AsyncIterable<Buffer>, floor: UploadFloor): AsyncGenerator<Buffer> {
  if (floor.bytesPerSecond <= 0) return yield* body;
  const iterator = body[Symbol.asyncIterator]();
  const started = performance.now();
  let received = 0;
  try {
    for (;;) {
      // The moment the bytes so far stop being enough: never before the grace ends.
      const cutAt = started + Math.max(floor.graceMs, (received / floor.bytesPerSecond) * 1000);
      let timer: NodeJS.Timeout | undefined;
      const cut = new Promise<"cut">((resolve) => {
        timer = setTimeout(() => resolve("cut"), Math.max(0, cutAt - performance.now()));
      });
      const next = await Promise.race([iterator.next(), cut]).finally(() => clearTimeout(timer));
      if (next === "cut") throw slowUpload(floor, received);
      if (next.done === true) return;
      received += next.value.byteLength;
      yield next.value;
    }
  } finally {
    void iterator.return?.();
  }
}
