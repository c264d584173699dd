// Runs saved queries on the warehouse: typed parameters, the injected `now`, a
// query id, a deadline, cancellation and the endpoint's row cap.
import { randomUUID } from "node:crypto";
import type { WarehouseClient } from "../warehouse/index.js";
import { Code, ConnectError } from "@connectrpc/connect";
import { silentLogger, systemClock, type Clock, type Logger } from "../observability/index.js";
import { toDateTime64Param } from "../warehouse/index.js";
import { createAdmission, type AdmissionOptions } from "./admission.js";
import { deadlineSignal } from "./deadline-signal.js";
import { connectErrorFromClickHouse, unavailableError } from "./clickhouse-error.js";
import { statisticsFromHeaders, type QueryStatistics } from "./query-statistics.js";
import { readResultRows } from "./result-rows.js";
import { tunedNow, type QueryTuning } from "./query-tuning.js";

/** A saved query as the executor needs it. */
export interface SavedQuery {
  /** Endpoint name, e.g. `usage.api-counts`; in logs and metrics. */
  name: string;
  /**
   * ClickHouse SQL with `{name:Type}` placeholders, `{now:DateTime64(6, 'UTC')}`
   * among them, and no SETTINGS clause of its own (the executor adds one).
   */
  sql: string;
  /** At most this many rows are returned, whatever the SQL does. */
  maxRows: number;
  /** The parameter that is an RE2 regular expression, if any. */
  regexpParameter?: string;
}

/** A query parameter value. Instants travel as `YYYY-MM-DD hh:mm:ss.ffffff` text. */
export type QueryParamValue = string | number | boolean | null;

/** A result row as the warehouse sent it (JSONEachRow, 64-bit integers as numbers). */
export type WarehouseRow = Record<string, unknown>;

export interface ExecuteOptions {
  /** Cancels the query, e.g. when the caller goes away. */
  signal?: AbortSignal;
  /**
   * The call's deadline in milliseconds from now, capped at the executor's
   * `maxTimeoutMs`; the wait for a turn counts in it. Default: the
   * executor's `defaultTimeoutMs`.
   */
  timeoutMs?: number;
  /** Ties the warehouse query to the request in logs. */
  requestId?: string;
  /** Whose query this is (an API key id): admission is fair between them. Default "". */
  tenant?: string;
  /**
   * Asked when the query gets its turn: how long the warehouse may run it,
   * in milliseconds (never past the call's deadline). Default: what is left
   * of the call's deadline.
   */
  engineTimeoutMs?: () => number;
  /**
   * Where the warehouse cannot stop a query (killAbortedQueries false): once
   * the query has its turn, `signal` and the deadline no longer end the call;
   * it waits for the warehouse's answer, a result worth keeping since the
   * work is done anyway. Before its turn `signal` still takes it out of the
   * queue. Default false.
   */
  finishOnceStarted?: boolean;
}

export interface QueryResult {
  rows: WarehouseRow[];
  /** The `query_id` the warehouse knows the query by. */
  queryId: string;
  /** Wall time of the warehouse round trip. */
  durationMs: number;
  /** Rows and bytes the query read, when the warehouse reports them (a server does; the embedded engine does not). */
  statistics?: QueryStatistics;
}

/** Called after every query, for metrics. */
export type QueryObserver = (event: { query: string; durationMs: number; error?: ConnectError }) => void;

export interface QueryExecutorOptions {
  client: WarehouseClient;
  /** Source of `now` for every query. Default: the system clock. */
  clock?: Clock;
  /** Default: silent. */
  logger?: Logger;
  /** Deadline of a query whose caller set none. Default 30 000 ms. */
  defaultTimeoutMs?: number;
  /** The longest deadline a caller may ask for; longer ones are cut to it. Default 30 000 ms. */
  maxTimeoutMs?: number;
  /** Default: none. */
  observe?: QueryObserver;
  /** Bounds on queries running and waiting, in all and per tenant. Default 8 and 64, no per-tenant bound. */
  admission?: AdmissionOptions;
  /**
   * When true (a ClickHouse server), a query whose caller left or whose
   * deadline passed is stopped: its HTTP request is aborted and, as that alone
   * does not stop a query on the server, `KILL QUERY` is sent by its query_id.
   * When false (the embedded engine, which cannot interrupt a query), the
   * caller is answered at once but the query runs on to its end (its
   * `max_execution_time` at the latest) and keeps its turn in the admission
   * bounds until then, so that calls abandoned one after another cannot stack
   * up work behind the bounds' back. Default false.
   */
  killAbortedQueries?: boolean;
  /**
   * After the warehouse was found unreachable, answer UNAVAILABLE at once for
   * this long before trying it again. Default 1000 ms; 0 always tries.
   */
  unreachableCooldownMs?: number;
  /**
   * What the deployment adds to a query (settings, a rounded `now`; see
   * query-tuning.ts). Default: nothing.
   */
  tuning?: (query: SavedQuery) => QueryTuning | undefined;
  /**
   * Whether the warehouse's schema is in place and the saved queries fit
   * their row messages; while false every query is answered UNAVAILABLE
   * without reaching the warehouse. Default: always true.
   */
  schemaReady?: () => boolean;
}

export interface QueryExecutor {
  /**
   * Runs `query` with `params` (plus `now` from the clock). Throws only
   * ConnectError: see connectErrorFromClickHouse for the codes.
   */
  execute(query: SavedQuery, params: Record<string, QueryParamValue>, options?: ExecuteOptions): Promise<QueryResult>;
}

/** The deadline of a query when neither the caller nor the options name one, and the longest allowed. */
export const defaultQueryTimeoutMs = 30_000;

export function createQueryExecutor(options: QueryExecutorOptions): QueryExecutor {
  const { client } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const maxTimeoutMs = options.maxTimeoutMs ?? defaultQueryTimeoutMs;
  const defaultTimeoutMs = Math.min(options.defaultTimeoutMs ?? defaultQueryTimeoutMs, maxTimeoutMs);
  const observe = options.observe ?? (() => {});
  const admission = createAdmission(options.admission);
  const cooldownMs = options.unreachableCooldownMs ?? 1000;
  const schemaReady = options.schemaReady ?? (() => true);
  const stopsAbortedQueries = options.killAbortedQueries ?? false;
  // Real time, not the injected clock: the cooldown is about the warehouse, not about `now` in SQL.
  let unreachableUntil = 0;

  return {
    async execute(query, params, executeOptions = {}) {
      if (Date.now() < unreachableUntil || !schemaReady()) {
        const error = unavailableError();
        observe({ query: query.name, durationMs: 0, error });
        throw error;
      }
      const timeoutMs = Math.min(executeOptions.timeoutMs ?? defaultTimeoutMs, maxTimeoutMs);
      const deadline = performance.now() + timeoutMs;
      // One signal for the wait and the query, aborted by the deadline or by the caller's signal.
      const abort = deadlineSignal(timeoutMs, executeOptions.signal, deadlineError);
      let reached = false;
      try {
        const work = admission.run(
          executeOptions.tenant ?? "",
          () => {
            // Left in the moment between being given the turn and taking it: nothing is sent.
            if (abort.signal.aborted) return Promise.reject(abortError(abort.signal));
            reached = true;
            const leftMs = deadline - performance.now();
            const engineMs = Math.min(executeOptions.engineTimeoutMs?.() ?? leftMs, leftMs);
            return run(query, params, executeOptions, abort.signal, engineMs);
          },
          abort.signal,
        );
        if (stopsAbortedQueries) return await work;
        const finishOnceStarted = executeOptions.finishOnceStarted ?? false;
        return await untilAborted(work, abort.signal, () => finishOnceStarted && reached);
      } catch (error) {
        if (reached) throw error; // observed and logged by run
        // Refused, or the deadline or the caller ended the wait: the warehouse never saw it.
        const refused = ConnectError.from(error);
        observe({ query: query.name, durationMs: 0, error: refused });
        throw refused;
      } finally {
        abort.dispose();
      }
    },
  };

  /** Stops a query on the server; best effort, in the background. */
  function killQuery(queryId: string) {
    client
      .command({ query: "KILL QUERY WHERE query_id = {id:String} ASYNC", query_params: { id: queryId } })
      .catch((error: unknown) => logger.warn("could not kill an aborted query", { queryId, error }));
  }

  async function run(
    query: SavedQuery,
    params: Record<string, QueryParamValue>,
    executeOptions: ExecuteOptions,
    signal: AbortSignal,
    remainingMs: number,
  ): Promise<QueryResult> {
    const queryId = randomUUID();
    const started = performance.now();
    const tuning = options.tuning?.(query);
    // Fractional seconds: the warehouse itself stops the query at the deadline,
    // which is all the embedded engine can do (it cannot be interrupted).
    const deadline = { max_execution_time: Math.max(0.001, Math.round(remainingMs) / 1000) };
    try {
      const request = {
        query: withSettings(query.sql, {
          // The warehouse cuts the result at the cap; the slice below holds it regardless.
          limit: query.maxRows,
          ...(tuning?.stableText ? {} : deadline),
          date_time_output_format: "iso",
          output_format_json_quote_64bit_integers: 0,
          // One JSON array: see result-rows.ts.
          output_format_json_array_of_rows: 1,
          ...tuning?.settings,
        }),
        // A server sends the answer only once the query has finished, so a
        // failure is an HTTP status, not a cut array. (The embedded engine
        // always answers whole; its connection drops this setting.)
        clickhouse_settings: { wait_end_of_query: 1, ...(tuning?.stableText ? deadline : {}) } as const,
        format: "JSONEachRow" as const,
        query_params: { ...params, now: toDateTime64Param(tunedNow(clock(), tuning)) },
        // Without a way to stop the query, the answer is awaited whole (see killAbortedQueries).
        abort_signal: stopsAbortedQueries ? signal : undefined,
      };
      let answer = await client.query({ ...request, query_id: queryId });
      let rows = readResultRows(await answer.text());
      if (rows === undefined) {
        // Output a failed query left behind came first (result-rows.ts); it
        // went with this answer, so the next one is the query's own.
        logger.warn("warehouse answer held more than this query's rows; asked again", { query: query.name, queryId });
        answer = await client.query({ ...request, query_id: randomUUID() });
        rows = readResultRows(await answer.text());
        if (rows === undefined)
          throw new Error("the warehouse answered twice with something other than one JSON array of rows");
      }
      rows = rows.slice(0, query.maxRows);
      const durationMs = performance.now() - started;
      observe({ query: query.name, durationMs });
      const statistics = statisticsFromHeaders(answer.response_headers);
      return statistics === undefined ? { rows, queryId, durationMs } : { rows, queryId, durationMs, statistics };
    } catch (cause) {
      // The abort ended the request only where it was handed to the warehouse;
      // elsewhere the query ran to its own end, and the cause says how.
      const aborted =
        !stopsAbortedQueries || !signal.aborted ? undefined : isDeadline(signal.reason) ? "deadline" : "caller";
      // Answered already, where the warehouse ran the query on after its caller went away
      // (a query asked to finish was left by all its callers, at their deadlines or not).
      const callerLeft =
        !stopsAbortedQueries &&
        signal.aborted &&
        (!isDeadline(signal.reason) || executeOptions.finishOnceStarted === true);
      const error = connectErrorFromClickHouse(cause, { regexpParameter: query.regexpParameter, aborted });
      if (error.code === Code.Unavailable && cooldownMs > 0) unreachableUntil = Date.now() + cooldownMs;
      if (aborted !== undefined) killQuery(queryId);
      const durationMs = performance.now() - started;
      observe({ query: query.name, durationMs, error });
      const fields = {
        query: query.name,
        queryId,
        requestId: executeOptions.requestId,
        code: error.code,
        durationMs: Math.round(durationMs),
      };
      if (error.code === Code.InvalidArgument) {
        // The caller's input (a pattern the warehouse cannot compile): its call is logged as a 400 already,
        // and a warn line with the warehouse's stacks for each such call would let any caller fill the log.
        logger.debug("warehouse refused the caller's input", { ...fields, reason: error.rawMessage });
      } else if (callerLeft && error.code === Code.DeadlineExceeded) {
        // Stopped by the warehouse at its deadline, as it should be; nobody was waiting for it any more.
        logger.debug("warehouse query ended at its deadline after its caller left", fields);
      } else {
        logger.warn("warehouse query failed", { ...fields, ...(callerLeft ? { callerLeft } : {}), cause });
      }
      throw error;
    }
  }
}

function deadlineError(): ConnectError {
  return new ConnectError("query ran past its deadline", Code.DeadlineExceeded);
}

/**
 * `work`'s outcome, or the abort's as soon as `signal` aborts (unless
 * `ignoreAbort` says otherwise then). `work` goes on either way.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, ignoreAbort: () => boolean): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      if (!ignoreAbort()) reject(abortError(signal));
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

/** DEADLINE_EXCEEDED for the deadline, CANCELED for a caller gone. */
function abortError(signal: AbortSignal): ConnectError {
  return isDeadline(signal.reason)
    ? (signal.reason as ConnectError)
    : new ConnectError("the caller went away", Code.Canceled);
}

/** A caller's signal aborted because the caller's own deadline passed (Connect sets this reason). */
function isDeadline(reason: unknown): boolean {
  return reason instanceof ConnectError && reason.code === Code.DeadlineExceeded;
}

/**
 * Appends a SETTINGS clause. Settings travel in the query text rather than as
 * `clickhouse_settings` because the embedded connection turns those into
 * `SET` statements that stay on its one session: a `limit` set for one saved
 * query would cut every later query of the process. Values are the
 * executor's own numbers and names, never a caller's input.
 */
function withSettings(sql: string, settings: Record<string, number | string>): string {
  const clause = Object.entries(settings)
    .map(([name, value]) => `${name} = ${typeof value === "number" ? value : `'${value}'`}`)
    .join(", ");
  return `${sql.trimEnd()}\nSETTINGS ${clause}`;
}
