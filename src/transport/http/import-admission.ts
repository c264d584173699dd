// How many imports run at once: one per credential, at most half of
// MAX_IMPORTS_RUNNING (at least one) per client address, and
// MAX_IMPORTS_RUNNING in all, since each holds up to MAX_IMPORT_BYTES of
// rows and a refresh of the cache, and a slow one holds its slot while its
// body arrives. Past any bound an import is refused with 429 and
// Retry-After before its body is read.
import { Code, ConnectError } from "@connectrpc/connect";

/** `MAX_IMPORTS_RUNNING` when unset. */
export const defaultMaxImportsRunning = 2;

/** Seconds a refused import is told to wait. */
const retryAfterSeconds = 1;

export interface ImportAdmission {
  /**
   * Admits an import of `credentialId` from `address` (the client as
   * per-address bounds key it), or throws RESOURCE_EXHAUSTED with
   * Retry-After; call the returned function at its end.
   */
  admit(credentialId: string, address: string): () => void;
}

/** The imports one address may run at once: half of `maxRunning`, at least one, so that one address never holds them all when there are two or more. */
export function importsPerAddress(maxRunning: number): number {
  return Math.max(1, Math.floor(maxRunning / 2));
}

export function createImportAdmission(maxRunning = defaultMaxImportsRunning): ImportAdmission {
  const perAddress = importsPerAddress(maxRunning);
  const credentials = new Set<string>();
  const addresses = new Map<string, number>();
  let running = 0;
  return {
    admit(credentialId, address) {
      if (credentials.has(credentialId)) throw busy("an import of this credential is running; send one at a time");
      const ofAddress = addresses.get(address) ?? 0;
      if (ofAddress >= perAddress)
        throw busy(`${ofAddress} imports of this client address are running, as many as one address may run`);
      if (running >= maxRunning) throw busy(`${maxRunning} imports are running (MAX_IMPORTS_RUNNING)`);
      credentials.add(credentialId);
      addresses.set(address, ofAddress + 1);
      running += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        credentials.delete(credentialId);
        const left = addresses.get(address)! - 1;
        if (left === 0) addresses.delete(address);
        else addresses.set(address, left);
        running -= 1;
      };
    },
  };
}

function busy(message: string): ConnectError {
  const error = new ConnectError(`${message}, try again later`, Code.ResourceExhausted);
  error.metadata.set("retry-after", String(retryAfterSeconds));
  return error;
}
