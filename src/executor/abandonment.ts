// Abandonment: a caller that leaves (or whose deadline passes) is answered at
// once, while the query it leaves behind runs on where the warehouse cannot
// stop it (the embedded engine), keeping its turn in the admission bounds.
import { queryCallEndedError } from "../errors/index.js";

/**
 * `work`'s outcome, or the abort's error as soon as `signal` aborts (unless
 * `ignoreAbort` says otherwise then: a query asked to finish once it has its
 * turn). `work` goes on either way.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, ignoreAbort: () => boolean): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      if (!ignoreAbort()) reject(queryCallEndedError(signal.reason));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
