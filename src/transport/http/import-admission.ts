// How many imports run at once: one per credential and a few service-wide,
// since each holds up to MAX_IMPORT_BYTES of rows and a refresh of the cache.
// Past either bound an import is refused with 429 and Retry-After before its
// body is read.
import { Code, ConnectError } from "@connectrpc/connect";

/** `MAX_IMPORTS_RUNNING` when unset. */
export const defaultMaxImportsRunning = 2;

/** Seconds a refused import is told to wait. */
const retryAfterSeconds = 1;

export interface ImportAdmission {
  /** Admits an import of `credentialId`, or throws RESOURCE_EXHAUSTED with Retry-After; call the returned function at its end. */
  admit(credentialId: string): () => void;
}

export function createImportAdmission(maxRunning = defaultMaxImportsRunning): ImportAdmission {
  const running = new Set<string>();
  return {
    admit(credentialId) {
      if (running.has(credentialId)) throw busy("an import of this credential is running; send one at a time");
      if (running.size >= maxRunning) throw busy(`${maxRunning} imports are running (MAX_IMPORTS_RUNNING)`);
      running.add(credentialId);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        running.delete(credentialId);
      };
    },
  };
}

function busy(message: string): ConnectError {
  const error = new ConnectError(`${message}, try again later`, Code.ResourceExhausted);
  error.metadata.set("retry-after", String(retryAfterSeconds));
  return error;
}
