// Runs saved queries on the warehouse: typed parameters, the injected `now`, a
// query id, a deadline, cancellation and the endpoint's row cap. The stages
// have files of their own: the fail-fast gate, admission (the wait for a
// turn), abandonment, the request, the warehouse query and its failure.
import { randomUUID } from "node:crypto";
import { ConnectError, Code } from "@connectrpc/connect";
import { deadlineError, queryCallEndedError } from "../errors/index.js";
import {
  silentLogger,
  systemClock,
  type Clock,
  type Logger,
  type TraceSpan,
  type Tracing,
} from "../observability/index.js";
import type { WarehouseClient } from "../warehouse/index.js";
import { untilAborted } from "./abandonment.js";
import { createAdmission, type AdmissionOptions } from "./admission.js";
import { unavailableError } from "./clickhouse-error.js";
import { deadlineSignal } from "./deadline-signal.js";
import { createFailFastGate, defaultUnreachableCooldownMs, type FailFastGate } from "./fail-fast.js";
import { logQueryFailure, queryFailure } from "./query-failure.js";
import type { QueryStatistics } from "./query-statistics.js";
import type { QueryTuning } from "./query-tuning.js";
import type { ReadLimitName } from "./read-limits.js";
import type { QueryParamValue, SavedQuery, WarehouseRow } from "./saved-query.js";
import { queryWarehouse, type WarehouseQueryTrace } from "./warehouse-query.js";
import { warehouseRequest } from "./warehouse-request.js";

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
  /** Rows and bytes the query read and its time in the warehouse, as the warehouse reports them. */
  statistics?: QueryStatistics;
  /** Whether rows were left out past the saved query's `maxRows`, and how many there were at least. Default: none left out. */
  truncation?: Truncation;
}

/** Whether a result was cut short, and how many rows it had before the cut at least. */
export interface Truncation {
  truncated: boolean;
  /** The warehouse's `rows_before_limit_at_least`, never fewer than the rows it sent. */
  rowsBeforeLimitAtLeast: number;
}

/** Called after every query, for metrics; `readLimit` names the read limit a refused query ran past. */
export type QueryObserver = (event: {
  query: string;
  durationMs: number;
  error?: ConnectError;
  readLimit?: ReadLimitName;
}) => void;

export interface QueryExecutorOptions {
  client: WarehouseClient;
  /** Source of `now` for every query. Default: the system clock. */
  clock?: Clock;
  /** Default: silent. */
  logger?: Logger;
  /** Deadline of a query whose caller set none. Default `defaultQueryTimeoutMs` (30 000 ms). */
  defaultTimeoutMs?: number;
  /** The longest deadline a caller may ask for; longer ones are cut to it. Default `defaultQueryTimeoutMs`. */
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
  /**
   * The fail-fast gate, when others share it (the estimator: fail-fast.ts);
   * `unreachableCooldownMs` and `schemaReady` are then the gate's business.
   * Default: one of the executor's own, from those two options.
   */
  gate?: FailFastGate;
  /**
   * Traces (docs/observability.md): a span for the wait for a turn and one
   * for each warehouse query, children of the current span. Default: none.
   */
  tracing?: Tracing;
  /**
   * Whether the warehouse is sent the `traceparent` of each query's span (a
   * ClickHouse server reads it and joins the trace with spans of its own).
   * Default false.
   */
  propagateTrace?: boolean;
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

/** A query given its turn: what to run, for whom, stopped by `signal`, with the engine's own deadline. */
interface QueryTurn {
  query: SavedQuery;
  params: Record<string, QueryParamValue>;
  executeOptions: ExecuteOptions;
  signal: AbortSignal;
  engineTimeoutMs: number;
}

export function createQueryExecutor(options: QueryExecutorOptions): QueryExecutor {
  const { client } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const maxTimeoutMs = options.maxTimeoutMs ?? defaultQueryTimeoutMs;
  const defaultTimeoutMs = Math.min(options.defaultTimeoutMs ?? defaultQueryTimeoutMs, maxTimeoutMs);
  const observe = options.observe ?? (() => {});
  const admission = createAdmission(options.admission);
  const gate =
    options.gate ??
    createFailFastGate({
      cooldownMs: options.unreachableCooldownMs ?? defaultUnreachableCooldownMs,
      schemaReady: options.schemaReady ?? (() => true),
    });
  const stopsAbortedQueries = options.killAbortedQueries ?? false;
  const { tracing } = options;
  const trace: WarehouseQueryTrace | undefined =
    tracing === undefined ? undefined : { tracing, propagate: options.propagateTrace ?? false };

  return {
    async execute(query, params, executeOptions = {}) {
      if (!gate.isOpen()) {
        const error = unavailableError();
        observe({ query: query.name, durationMs: 0, error });
        throw error;
      }
      const timeoutMs = Math.min(executeOptions.timeoutMs ?? defaultTimeoutMs, maxTimeoutMs);
      const deadline = performance.now() + timeoutMs;
      // One signal for the wait and the query, aborted by the deadline or by the caller's signal.
      const abort = deadlineSignal(timeoutMs, executeOptions.signal, deadlineError);
      let reached = false;
      // Ended when the turn comes, or with the refusal or the abort that ends the wait.
      let waiting: TraceSpan | undefined = tracing?.startChild("admission wait", {});
      try {
        const work = admission.run(
          executeOptions.tenant ?? "",
          () => {
            waiting?.end();
            waiting = undefined;
            // Left in the moment between being given the turn and taking it: nothing is sent.
            if (abort.signal.aborted) return Promise.reject(queryCallEndedError(abort.signal.reason));
            reached = true;
            const leftMs = deadline - performance.now();
            const engineMs = Math.min(executeOptions.engineTimeoutMs?.() ?? leftMs, leftMs);
            return run({ query, params, executeOptions, signal: abort.signal, engineTimeoutMs: engineMs });
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
        waiting?.fail(refused.message);
        waiting?.end();
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

  /** The query once it has its turn: sent, its rows capped, its failure translated, observed and logged. */
  async function run(turn: QueryTurn): Promise<QueryResult> {
    const { query, params, executeOptions, signal, engineTimeoutMs } = turn;
    const queryId = randomUUID();
    const started = performance.now();
    try {
      const request = warehouseRequest({
        query,
        params,
        now: clock(),
        tuning: options.tuning?.(query),
        engineTimeoutMs,
        // Without a way to stop the query, the answer is awaited whole (see killAbortedQueries).
        abortSignal: stopsAbortedQueries ? signal : undefined,
        readLimits: query.readLimits,
        owner: {
          endpoint: query.name,
          caller: executeOptions.tenant ?? "",
          request_id: executeOptions.requestId ?? "",
        },
      });
      const answer = await queryWarehouse({ client, request, queryId, name: query.name, logger, trace });
      const { rows, statistics } = answer;
      const capped = rows.slice(0, query.maxRows);
      const truncation: Truncation = {
        truncated: rows.length > query.maxRows,
        rowsBeforeLimitAtLeast: Math.max(answer.rowsBeforeLimit ?? 0, rows.length),
      };
      const durationMs = performance.now() - started;
      observe({ query: query.name, durationMs });
      return statistics === undefined
        ? { rows: capped, queryId, durationMs, truncation }
        : { rows: capped, queryId, durationMs, statistics, truncation };
    } catch (cause) {
      const failure = queryFailure(cause, {
        query,
        signal,
        stopsAbortedQueries,
        finishOnceStarted: executeOptions.finishOnceStarted === true,
        readLimits: query.readLimits,
      });
      const { error, readLimit } = failure;
      if (error.code === Code.Unavailable) gate.unreachable();
      if (failure.aborted !== undefined) killQuery(queryId);
      const durationMs = performance.now() - started;
      observe(
        readLimit === undefined
          ? { query: query.name, durationMs, error }
          : { query: query.name, durationMs, error, readLimit },
      );
      logQueryFailure(
        logger,
        failure,
        { query: query.name, queryId, requestId: executeOptions.requestId, durationMs },
        cause,
      );
      throw error;
    }
  }
}
