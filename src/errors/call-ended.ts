// The errors of a call that ended before its answer: its deadline passed, or
// its caller went away. Built here only, so each kind has one message.
import { Code, ConnectError } from "@connectrpc/connect";

/** DEADLINE_EXCEEDED: the call, or the query it waited for, ran past its deadline. */
export function deadlineError(cause?: unknown): ConnectError {
  return new ConnectError("query ran past its deadline", Code.DeadlineExceeded, undefined, undefined, cause);
}

/** CANCELED: the caller went away before its answer. */
export function callerGoneError(cause?: unknown): ConnectError {
  return new ConnectError("the caller went away", Code.Canceled, undefined, undefined, cause);
}

/**
 * The error of a call ended by an abort with `reason`: the reason itself when
 * it is a ConnectError (a deadline, as Connect and deadlineSignal set it),
 * else CANCELED.
 */
export function abortedCallError(reason: unknown): ConnectError {
  return reason instanceof ConnectError ? reason : callerGoneError();
}

/**
 * The error of a warehouse query whose call ended while it waited or ran:
 * the deadline's own error, else CANCELED whatever the reason says (a
 * transport's reset code, say), so every caller gone reads alike in the
 * query's metrics and log.
 */
export function queryCallEndedError(reason: unknown): ConnectError {
  return isDeadline(reason) ? (reason as ConnectError) : callerGoneError();
}

/** Whether an abort's `reason` is a passed deadline rather than a caller gone. */
export function isDeadline(reason: unknown): boolean {
  return reason instanceof ConnectError && reason.code === Code.DeadlineExceeded;
}
