// The failures of a computation that say the warehouse, not the caller, is at
// fault: unreachable, past its deadline, or refusing work because it is full.
// A cached result may answer these (cache/result-cache.ts, stale-if-error).
import { Code, ConnectError } from "@connectrpc/connect";

/**
 * The cause of an overload refusal: it tells the admission queue being full
 * apart from every other RESOURCE_EXHAUSTED (a caller's rate limit or read
 * limit), which are the caller's own making.
 */
export class WarehouseOverload extends Error {
  override readonly name = "WarehouseOverload";
}

/** RESOURCE_EXHAUSTED for a warehouse too busy to take the query, marked by its cause (WarehouseOverload). */
export function overloadError(message: string): ConnectError {
  return new ConnectError(message, Code.ResourceExhausted, undefined, undefined, new WarehouseOverload(message));
}

/**
 * Whether `error` is the warehouse's fault: UNAVAILABLE, DEADLINE_EXCEEDED,
 * or an overload refusal (overloadError). Never a caller's error: invalid
 * arguments, scope, a caller gone, or a limit of its own.
 */
export function isWarehouseOutage(error: unknown): boolean {
  if (!(error instanceof ConnectError)) return false;
  switch (error.code) {
    case Code.Unavailable:
    case Code.DeadlineExceeded:
      return true;
    case Code.ResourceExhausted:
      return error.cause instanceof WarehouseOverload;
    default:
      return false;
  }
}
