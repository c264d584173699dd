// Runs one saved query for a request, whatever transport it came on:
// parameters bound and checked, then the result cache (for endpoints with a
// lifetime), the executor, and the response in the form the caller reads.
import { randomUUID } from "node:crypto";
import { create, fromJsonString, type Message } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  cacheKey,
  type CachePolicy,
  type CacheLookup,
  type Compute,
  type Computed,
  type ResultCache,
} from "../cache/index.js";
import {
  deadlineSignal,
  defaultQueryTimeoutMs,
  type QueryExecutor,
  type QueryParamValue,
  type QueryStatistics,
  type WarehouseRow,
} from "../executor/index.js";
import type { Clock } from "../observability/index.js";
import { bindParameters } from "./parameters.js";
import type { Endpoint } from "./registry.js";
import { responseJsonBytes } from "./response-json.js";
import { applyScope, type Scope } from "./scope.js";
import { rowMessageFromWarehouse } from "./row-message.js";

export interface CallContext {
  /**
   * Aborts when the caller goes away. Read only when the warehouse is asked,
   * so a transport may make it lazily (a getter) and spare cache hits the cost.
   */
  signal?: AbortSignal;
  /** Remaining time the caller allows, in milliseconds. */
  timeoutMs?: number;
  requestId?: string;
  /** Whose call this is (a credential id): the warehouse is shared fairly between them. */
  tenant?: string;
}

/**
 * A call with its parameters bound and checked: what `execute` needs besides
 * the caller's context. It depends on the request alone, so a transport may
 * keep it for requests that repeat (the GET routes do, by request target).
 */
export interface PreparedCall {
  endpoint: Endpoint;
  /** The values handed to the SQL's placeholders. */
  queryParams: Record<string, QueryParamValue>;
  /** Where the result is cached; undefined when it is not (no cache, or no lifetime). */
  cacheEntry?: { key: string; policy: CachePolicy };
}

/**
 * A computed response, as cached: the response message for Connect and gRPC
 * callers and the JSON body for GET callers, each made from the warehouse
 * rows on first use and kept. Either throws INTERNAL (the converter's error
 * as its cause) if the rows do not fit the row message: a mismatch of `sql/`
 * and `proto/`, a bug of the service rather than of the caller.
 */
export interface ComputedResponse {
  message(): Message;
  /** The GET body `{"result": [...]}`. */
  json(): Buffer;
  /**
   * Another body of the same rows kept in `slot` (the transport numbers its
   * formats and encodings), or undefined before `keepVariant` put one there.
   */
  variant(slot: number): Buffer | undefined;
  /** Keeps `body` in `slot` for later callers; a cached result counts its bytes in the cache's bound. */
  keepVariant(slot: number, body: Buffer): void;
  /** What computing it took; a cached result keeps the figures of its computation. */
  readonly computation: Computation;
}

export interface Computation {
  /** Wall time of the warehouse query. */
  warehouseMs: number;
  /** Time spent writing the JSON body when the result was computed (0 when it is written later, on first use). */
  serializeMs: number;
  /** Rows and bytes the query read, when the warehouse reports them. */
  statistics?: QueryStatistics;
}

export interface EndpointResult extends ComputedResponse {
  /** Set for endpoints with a cache lifetime. */
  cache?: { status: "HIT" | "MISS"; ageSeconds: number };
}

export interface EndpointService {
  /**
   * Applies the caller's scope (PERMISSION_DENIED for an endpoint it may not
   * call or a fixed parameter given another value), then binds and checks the
   * parameters (INVALID_ARGUMENT listing every problem).
   */
  prepare(endpoint: Endpoint, request: Message, scope?: Scope): PreparedCall;
  /** The cached result of `call` if the cache holds a live one; never asks the warehouse. */
  peek(call: PreparedCall): EndpointResult | undefined;
  /** The result of `call`, from the cache or the warehouse. Throws only ConnectError. */
  execute(call: PreparedCall, context?: CallContext): Promise<EndpointResult>;
  /** `execute(prepare(endpoint, request, scope), context)`. */
  run(endpoint: Endpoint, request: Message, context?: CallContext, scope?: Scope): Promise<EndpointResult>;
}

export interface EndpointServiceOptions {
  executor: QueryExecutor;
  /** The shared result cache; without one nothing is cached. */
  cache?: ResultCache<ComputedResponse>;
  /** For the Age of cached results. Default Date.now. */
  clock?: Clock;
  /**
   * Deadline of a cache refresh, and of a miss others may join when
   * `sharedDeadline` is "service". Default 30 000 ms.
   */
  sharedTimeoutMs?: number;
  /**
   * Whose deadline a computation of a cached result that callers share runs to.
   * "service" (the default): `sharedTimeoutMs`, each caller leaving at its own
   * deadline, and the query cancelled when none waits any more; right where
   * the warehouse stops a query nobody waits for. "callers": when the query
   * gets its turn, the latest deadline among the callers of the starter's
   * tenant waiting for it then; once it runs, it is finished and its result
   * kept even if they all leave.
   * Right where an abandoned query runs on (the embedded engine): the work a
   * caller leaves behind is what it asked for, and is not wasted.
   */
  sharedDeadline?: "service" | "callers";
}

/** The tenant cache refreshes run as: they take their turns at the warehouse beside the callers. */
export const warmingTenant = "(cache warming)";

export function createEndpointService(options: EndpointServiceOptions): EndpointService {
  const { executor, cache } = options;
  const clock = options.clock ?? Date.now;
  const sharedTimeoutMs = options.sharedTimeoutMs ?? defaultQueryTimeoutMs;
  const callersDeadline = options.sharedDeadline === "callers";
  /** The callers waiting for each cache key in "callers" mode: whose (tenant), and until when (performance.now() time). */
  const waitingCallers = new Map<string, Set<{ tenant: string; deadline: number }>>();
  const policies = new Map<Endpoint, CachePolicy>();

  function policyOf(endpoint: Endpoint): CachePolicy {
    let policy = policies.get(endpoint);
    if (policy === undefined) {
      policy = {
        ttlMs: endpoint.definition.cacheTtlSeconds * 1000,
        warmMs: endpoint.definition.cacheWarmingSeconds * 1000,
        label: endpoint.definition.name,
      };
      policies.set(endpoint, policy);
    }
    return policy;
  }

  async function compute(call: PreparedCall, context: CallContext): Promise<ComputedResponse> {
    const { rows, durationMs, statistics } = await executor.execute(
      call.endpoint.savedQuery,
      call.queryParams,
      context,
    );
    return computedResponse(call.endpoint, rows, { warehouseMs: durationMs, serializeMs: 0, statistics });
  }

  /**
   * A result to cache: kept as its JSON bytes alone (see cachedResponse),
   * counted twice for the message a Connect caller may add later.
   */
  async function computeCached(call: PreparedCall, context: CallContext): Promise<Computed<ComputedResponse>> {
    const value = await compute(call, context);
    const started = performance.now();
    const json = value.json();
    const computation = { ...value.computation, serializeMs: performance.now() - started };
    // Bodies in other formats and encodings are counted as they are made.
    // (The closure sees the prepared call only: nothing of `context`.)
    const key = call.cacheEntry!.key;
    const response = cachedResponse(call.endpoint, json, computation, (self, bytes) => cache!.grow(key, self, bytes));
    return { value: response, bytes: 2 * json.length };
  }

  /**
   * The refresh the cache keeps with an entry: made here, away from any
   * caller's context, because closures made in one scope share what they
   * capture, so a refresh made beside the caller's computation would keep
   * that caller (its deadline, its response) alive with the entry.
   */
  function refreshOf(call: PreparedCall): Compute<ComputedResponse> {
    return (signal) =>
      computeCached(call, {
        timeoutMs: sharedTimeoutMs,
        requestId: `refresh-${randomUUID()}`,
        tenant: warmingTenant,
        signal,
      });
  }

  function fromCache(lookup: CacheLookup<ComputedResponse>): EndpointResult {
    const ageSeconds = Math.max(0, Math.floor((clock() - lookup.computedAt) / 1000));
    const { message, json, variant, keepVariant, computation } = lookup.value;
    return { message, json, variant, keepVariant, computation, cache: { status: lookup.status, ageSeconds } };
  }

  /**
   * A miss in "callers" mode. This caller waits until its own deadline (or
   * until it goes away) for the key's computation, started by it or by
   * another, which runs to the latest deadline of the callers of its
   * starter's tenant waiting when it gets its turn: the turn, and the engine
   * time, are that tenant's, so another key joining cannot stretch them. One
   * that joined a computation already running and ran out of the time it was
   * given asks again with what is left of its own.
   */
  async function waitForCallersComputation(
    call: PreparedCall,
    key: string,
    policy: CachePolicy,
    context: CallContext,
  ): Promise<EndpointResult> {
    const tenant = context.tenant ?? "";
    const waiter = {
      tenant,
      deadline: performance.now() + Math.min(context.timeoutMs ?? sharedTimeoutMs, sharedTimeoutMs),
    };
    const leave = deadlineSignal(waiter.deadline - performance.now(), context.signal, callDeadlineError);
    let waiters = waitingCallers.get(key);
    if (waiters === undefined) waitingCallers.set(key, (waiters = new Set()));
    waiters.add(waiter);
    const engineTimeoutMs = () => {
      let latest = 0;
      for (const other of waitingCallers.get(key) ?? [])
        if (other.tenant === tenant && other.deadline > latest) latest = other.deadline;
      return latest - performance.now();
    };
    try {
      for (;;) {
        let started = false;
        const compute = (signal: AbortSignal) => {
          started = true;
          const options = {
            timeoutMs: sharedTimeoutMs,
            engineTimeoutMs,
            finishOnceStarted: true,
            requestId: context.requestId,
            tenant: context.tenant,
            signal,
          };
          return computeCached(call, options);
        };
        try {
          return fromCache(await cache!.get(key, policy, compute, leave.signal, refreshOf(call)));
        } catch (error) {
          const ranOutOfItsTime = !started && error instanceof ConnectError && error.code === Code.DeadlineExceeded;
          if (!ranOutOfItsTime || leave.signal.aborted) throw error;
        }
      }
    } finally {
      leave.dispose();
      waiters.delete(waiter);
      if (waiters.size === 0) waitingCallers.delete(key);
    }
  }

  const service: EndpointService = {
    prepare(endpoint, request, scope) {
      const effective = scope === undefined ? request : applyScope(endpoint, request, scope);
      const { queryParams, normalized } = bindParameters(endpoint, effective);
      const policy = policyOf(endpoint);
      if (cache === undefined || policy.ttlMs === 0) return { endpoint, queryParams };
      return { endpoint, queryParams, cacheEntry: { key: cacheKey(endpoint.definition.name, normalized), policy } };
    },

    peek(call) {
      if (cache === undefined || call.cacheEntry === undefined) return undefined;
      const lookup = cache.peek(call.cacheEntry.key, call.cacheEntry.policy);
      return lookup === undefined ? undefined : fromCache(lookup);
    },

    async execute(call, context = {}) {
      const entry = call.cacheEntry;
      if (cache === undefined || entry === undefined) return compute(call, context);
      if (!callersDeadline) {
        // Other callers may join this computation: it runs to the service's own
        // deadline, each caller leaving at its own (its signal), and stops
        // only when none waits any more.
        const shared = { timeoutMs: sharedTimeoutMs, requestId: context.requestId, tenant: context.tenant };
        return fromCache(
          await cache.get(
            entry.key,
            entry.policy,
            (signal) => computeCached(call, { ...shared, signal }),
            context.signal,
            refreshOf(call),
          ),
        );
      }
      const hit = cache.peek(entry.key, entry.policy);
      return hit !== undefined ? fromCache(hit) : waitForCallersComputation(call, entry.key, entry.policy, context);
    },

    async run(endpoint, request, context, scope) {
      return service.execute(service.prepare(endpoint, request, scope), context);
    },
  };
  return service;
}

/**
 * A cached response: the JSON body only, the message made from it (proto3
 * JSON, which the body is) the first time a Connect or gRPC caller asks.
 */
function cachedResponse(
  endpoint: Endpoint,
  json: Buffer,
  computation: Computation,
  grew: (response: ComputedResponse, bytes: number) => void,
): ComputedResponse {
  let message: Message | undefined;
  const variants: (Buffer | undefined)[] = [];
  const response: ComputedResponse = {
    message: () => (message ??= converting(() => fromJsonString(endpoint.method.output, json.toString()))),
    json: () => json,
    variant: (slot) => variants[slot],
    keepVariant(slot, body) {
      const previous = variants[slot];
      variants[slot] = body;
      grew(response, body.length - (previous?.length ?? 0));
    },
    computation,
  };
  return response;
}

function computedResponse(
  endpoint: Endpoint,
  warehouseRows: WarehouseRow[],
  computation: Computation,
): ComputedResponse {
  let rows: WarehouseRow[] | undefined = warehouseRows;
  let message: Message | undefined;
  let json: Buffer | undefined;
  // The rows are let go once both forms are made.
  const release = () => {
    if (message !== undefined && json !== undefined) rows = undefined;
  };
  const variants: (Buffer | undefined)[] = [];
  return {
    computation,
    variant: (slot) => variants[slot],
    keepVariant: (slot, body) => void (variants[slot] = body),
    message() {
      if (message === undefined) {
        const result = converting(() => rows!.map((row) => rowMessageFromWarehouse(endpoint.rowSchema, row)));
        message = create(endpoint.method.output, { result } as never);
        release();
      }
      return message;
    },
    json() {
      if (json === undefined) {
        json = converting(() => responseJsonBytes(rows!, endpoint.rowSchema));
        release();
      }
      return json;
    },
  };
}

/** Runs a conversion of warehouse rows; its failure becomes INTERNAL with a fixed message. */
function converting<T>(convert: () => T): T {
  try {
    return convert();
  } catch (error) {
    // The converter's error names the column and the row message; the log line names the endpoint.
    throw new ConnectError("internal error", Code.Internal, undefined, undefined, error);
  }
}

function callDeadlineError(): ConnectError {
  return new ConnectError("the call ran past its deadline", Code.DeadlineExceeded);
}
