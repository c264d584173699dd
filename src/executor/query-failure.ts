// What a failed warehouse query was: its ConnectError (clickhouse-error.ts),
// whether an abort stopped it, whether its caller had left, and the log line
// that says so at the level it deserves.
import { Code, type ConnectError } from "@connectrpc/connect";
import { isDeadline } from "../errors/index.js";
import type { Logger } from "../observability/index.js";
import { connectErrorFromClickHouse, readLimitPassedBy } from "./clickhouse-error.js";
import type { ReadLimitName, ReadLimits } from "./read-limits.js";
import type { SavedQuery } from "./saved-query.js";

export interface QueryFailure {
  /** The error for the caller. */
  error: ConnectError;
  /** Set when the abort ended the request to a warehouse that can stop the query: it is then killed. */
  aborted?: "deadline" | "caller";
  /** Answered already, where the warehouse ran the query on after its caller went away. */
  callerLeft: boolean;
  /** The read limit the query ran past, when that is why it failed. */
  readLimit?: ReadLimitName;
}

export interface QueryFailureContext {
  query: SavedQuery;
  /** The query's signal: aborted by the deadline or by the caller. */
  signal: AbortSignal;
  /** Whether the signal was handed to the warehouse (killAbortedQueries). */
  stopsAbortedQueries: boolean;
  /** Whether the query was asked to finish once it had its turn. */
  finishOnceStarted: boolean;
  /** The read limits the query ran under. */
  readLimits?: ReadLimits;
}

/** Classifies what a warehouse query threw. */
export function queryFailure(cause: unknown, context: QueryFailureContext): QueryFailure {
  const { signal, stopsAbortedQueries } = context;
  // The abort ended the request only where it was handed to the warehouse;
  // elsewhere the query ran to its own end, and the cause says how.
  const aborted =
    !stopsAbortedQueries || !signal.aborted ? undefined : isDeadline(signal.reason) ? "deadline" : "caller";
  // A query asked to finish was left by all its callers, at their deadlines or not.
  const callerLeft =
    !stopsAbortedQueries && signal.aborted && (!isDeadline(signal.reason) || context.finishOnceStarted);
  const { readLimits } = context;
  const error = connectErrorFromClickHouse(cause, {
    regexpParameter: context.query.regexpParameter,
    aborted,
    readLimits,
  });
  const readLimit = aborted === undefined ? readLimitPassedBy(cause, readLimits) : undefined;
  return {
    error,
    callerLeft,
    ...(aborted === undefined ? {} : { aborted }),
    ...(readLimit === undefined ? {} : { readLimit }),
  };
}

/** Logs a failed query: the caller's own mistake, a read limit and a deadline nobody waited for at debug, the rest at warn. */
export function logQueryFailure(
  logger: Logger,
  failure: QueryFailure,
  query: { query: string; queryId: string; requestId: string | undefined; durationMs: number },
  cause: unknown,
): void {
  const { error, callerLeft } = failure;
  const line = {
    query: query.query,
    queryId: query.queryId,
    requestId: query.requestId,
    code: error.code,
    durationMs: Math.round(query.durationMs),
  };
  if (error.code === Code.InvalidArgument) {
    // The caller's input (a pattern the warehouse cannot compile): its call is logged as a 400 already,
    // and a warn line with the warehouse's stacks for each such call would let any caller fill the log.
    logger.debug("warehouse refused the caller's input", { ...line, reason: error.rawMessage });
  } else if (failure.readLimit !== undefined) {
    // A limit doing its work: the caller is told which; one warn line per refused call would let callers fill the log.
    logger.debug("warehouse stopped a query at its read limit", { ...line, limit: failure.readLimit });
  } else if (callerLeft && error.code === Code.DeadlineExceeded) {
    // Stopped by the warehouse at its deadline, as it should be; nobody was waiting for it any more.
    logger.debug("warehouse query ended at its deadline after its caller left", line);
  } else {
    logger.warn("warehouse query failed", { ...line, ...(callerLeft ? { callerLeft } : {}), cause });
  }
}
