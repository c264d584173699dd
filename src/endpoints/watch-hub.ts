// Watch streams below the transport: every watcher of one key is fed by one
// computation per refresh. A cached call's watchers share its cache entry
// (the first message a hit or the key's single flight; later ones told by
// the cache when it stores the key anew, sent only when the rows changed)
// and keep it warm, and one whose entry is gone is computed again at the next
// poll tick; a paged call (logs.all) is a live tail polled once per
// key (watch-tail.ts); any other call is polled whole, once per key. The
// first result of an uncached key is computed once for the watchers that
// open before its next poll, and every poll runs as the key's caller and is
// told to `onQuery` (the call log) with what it read.
import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ResultCache } from "../cache/index.js";
import { defaultQueryTimeoutMs, type QueryExecutor, type WarehouseRow } from "../executor/index.js";
import { silentLogger, systemClock, type Clock, type Logger } from "../observability/index.js";
import type { EndpointResult, PreparedCall } from "./call-types.js";
import type { ComputedResponse } from "./computed-response.js";
import type { EndpointService } from "./endpoint-service.js";
import { createWatchBounds, type WatchBoundValues, type WatchOpener } from "./watch-bounds.js";
import { Delivery, type WatchListener } from "./watch-delivery.js";
import {
  type TailMark,
  isAfter,
  markOfRow,
  mergeTail,
  microsOfMs,
  rowsAfter,
  startOfResult,
  tailMessage,
} from "./watch-tail.js";
import { codeName, type WatchQuery } from "./watch-query.js";

/** TAIL_POLL_SECONDS's default, in milliseconds. */
export const defaultTailPollMs = 2000;

export interface WatchHubOptions {
  service: EndpointService;
  /** The service's result cache; without one every call is polled. */
  cache?: ResultCache<ComputedResponse>;
  /** Runs the tail polls (the service's executor). */
  executor: QueryExecutor;
  /** For the Age of results and tail messages. Default Date.now. */
  clock?: Clock;
  /** How often a tail (or an uncached call) is polled, and a cached key checked for its entry. Default 2,000 ms. */
  tailPollMs?: number;
  /** Deadline of one poll's queries. Default 30,000 ms. */
  pollTimeoutMs?: number;
  /** Default: watch-bounds.ts defaultWatchBounds. */
  bounds?: WatchBoundValues;
  /** Told the number of open streams after each change (a gauge). Default: nothing. */
  onOpenStreams?: (open: number) => void;
  /** Told each warehouse query a poll ran, for the call log. Default: nothing. */
  onQuery?: (query: WatchQuery) => void;
  /** Default: silent. */
  logger?: Logger;
}

/** Who watches: the caller served, its request id, and its address for the bounds. */
export interface WatchContext extends WatchOpener {
  requestId?: string;
}

/** The transport's handle of one stream. */
export interface WatchStream {
  /** The writer has room again: the newest message held meanwhile goes now. */
  drained(): void;
  /** The transport is done with the stream (client gone, deadline): nothing more is sent, `end` is not called. */
  close(): void;
}

export interface WatchHub {
  /**
   * Opens a stream of `call`'s results for `listener`. Throws RESOURCE_EXHAUSTED
   * past a bound, UNAVAILABLE once the hub is closed. The first message is
   * sent soon after (never within this call); an error computing it ends the
   * stream through `listener.end`.
   */
  watch(call: PreparedCall, context: WatchContext, listener: WatchListener): WatchStream;
  /** Polls every tail and uncached key now; resolves when the polls end. */
  pollNow(): Promise<void>;
  /** Streams open now. */
  readonly open: number;
  /** Ends every stream with UNAVAILABLE and refuses new ones. */
  close(): void;
}

/** The watchers of one key and how they are fed. */
interface Group {
  key: string;
  call: PreparedCall;
  kind: "cached" | "tail" | "polled";
  tenant: string;
  members: Set<Member>;
  timer?: NodeJS.Timeout;
  polling?: Promise<void>;
  /** The first result of an uncached key, shared by the watchers that open until its next poll. */
  first?: Promise<EndpointResult>;
}

/** One watcher: the hub's side of its stream, its delivery's listener, and the transport's handle of it. */
class Member implements WatchListener, WatchStream {
  readonly delivery: Delivery = new Delivery(this);
  /** For a tail: the newest row sent, never past now; undefined until its first message. */
  mark?: TailMark;
  /** For a tail: rows of its first message dated past its time, not to be sent again when their time comes. */
  ahead = new Map<string, TailMark>();
  /** For a tail: its first message was sent. */
  ready = false;

  constructor(
    private readonly listener: WatchListener,
    /** Takes it out of its group and its bounds, once; false when it was out already. */
    private readonly leave: (member: Member) => void,
    readonly group: Group,
    readonly release: () => void,
  ) {}

  next(result: EndpointResult): boolean | undefined {
    return this.listener.next(result);
  }
  end(error: ConnectError): void {
    this.leave(this);
    this.listener.end(error);
  }
  drained(): void {
    this.delivery.drained();
  }
  close(): void {
    this.delivery.stop();
    this.leave(this);
  }
}

export function createWatchHub(options: WatchHubOptions): WatchHub {
  const { service, cache, executor } = options;
  const clock = options.clock ?? systemClock;
  const tailPollMs = options.tailPollMs ?? defaultTailPollMs;
  const pollTimeoutMs = options.pollTimeoutMs ?? defaultQueryTimeoutMs;
  const logger = options.logger ?? silentLogger;
  const onQuery = options.onQuery ?? (() => {});
  const bounds = createWatchBounds(options.bounds);
  const onOpenStreams = options.onOpenStreams ?? (() => {});
  const groups = new Map<string, Group>();
  let closed = false;

  const stopRenewals = cache?.onRenew((key, value) => {
    const group = groups.get(key);
    if (group === undefined) return;
    const result = resultOf(group.call, value);
    for (const member of group.members) member.delivery.offerResult(result);
    // Watched counts as asked: warming keeps refreshing the key.
    cache.markAsked(key);
  });

  function resultOf(call: PreparedCall, value: ComputedResponse): EndpointResult {
    const { computedAt } = value.computation;
    const ttlSeconds = (call.cacheEntry?.policy.ttlMs ?? 0) / 1000;
    const ageSeconds = Math.max(0, Math.floor((clock() - computedAt) / 1000));
    const { message, json, body, keepBody, rowsTag, computation } = value;
    return {
      message,
      json,
      body,
      keepBody,
      rowsTag,
      computation,
      cache: { status: "HIT", ageSeconds, computedAt, ttlSeconds },
    };
  }

  function groupOf(call: PreparedCall, tenant: string): Group {
    const kind =
      call.cacheEntry !== undefined && cache !== undefined ? "cached" : call.page !== undefined ? "tail" : "polled";
    // A cached result is the same for every caller; a polled one runs as its caller (page tokens, fair turns).
    const key =
      kind === "cached"
        ? call.cacheEntry!.key
        : `${kind}\n${call.endpoint.definition.name}\n${JSON.stringify(call.queryParams)}\n${JSON.stringify(call.readLimits ?? null)}\n${call.page?.size ?? ""}\n${call.page?.token ?? ""}\n${tenant}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { key, call, kind, tenant, members: new Set() };
      groups.set(key, group);
      schedule(group);
    }
    return group;
  }

  function schedule(group: Group) {
    group.timer = setTimeout(() => {
      group.polling = poll(group).finally(() => {
        group.polling = undefined;
        if (groups.get(group.key) === group) schedule(group);
      });
    }, tailPollMs);
    group.timer.unref?.();
  }

  const pollOptions = (group: Group) => ({
    timeoutMs: pollTimeoutMs,
    requestId: `watch-${randomUUID()}`,
    tenant: group.tenant,
  });

  async function poll(group: Group): Promise<void> {
    // Watchers opening from now on are sent a result newer than this poll's.
    group.first = undefined;
    const options = pollOptions(group);
    const told = { endpoint: group.call.endpoint.definition.name, tenant: group.tenant, requestId: options.requestId };
    try {
      if (group.kind === "cached") return await reask(group, options);
      if (group.kind === "polled") {
        const result = await service.execute(group.call, options);
        onQuery({ ...told, code: "ok", ...costOf(result) });
        for (const member of group.members) member.delivery.offerResult(result);
        return;
      }
      const ready = [...group.members].filter((m) => m.ready);
      if (ready.length === 0) return;
      // The oldest mark among the watchers: rows past it are new to one of them at least.
      let floor = ready[0]!.mark;
      for (const member of ready) if (floor !== undefined && !isAfter(member.mark ?? floor, floor)) floor = member.mark;
      const upTo = microsOfMs(clock());
      const read = await rowsAfter(executor, group.call, { floor, upTo }, options);
      onQuery({ ...told, code: "ok", statistics: read.statistics, durationMs: read.durationMs });
      const computedAt = clock();
      for (const member of ready) deliverTail(group, member, read.rows, computedAt);
    } catch (error) {
      onQuery({ ...told, code: codeName(error), statistics: { rowsRead: 0, bytesRead: 0 }, durationMs: 0 });
      logger.warn("watch poll failed", { endpoint: group.call.endpoint.definition.name, error });
    }
  }

  /** Sends `member` the rows of a poll past its mark that it was not sent already, and moves its mark past them. */
  function deliverTail(group: Group, member: Member, rows: WarehouseRow[], computedAt: number) {
    const past = rows.filter((row) => isAfter(markOfRow(row), member.mark));
    const mine = past.filter((row) => member.ahead.get(String(row.id))?.micros !== markOfRow(row).micros);
    for (const row of past) if (isAfter(markOfRow(row), member.mark)) member.mark = markOfRow(row);
    for (const [id, mark] of member.ahead) if (!isAfter(mark, member.mark)) member.ahead.delete(id);
    if (mine.length === 0) return;
    const message = tailMessage(group.call, mine, computedAt);
    member.delivery.offerRows(message, (held, next) => mergeTail(group.call, held, next));
  }

  /**
   * A watched key whose entry is gone (evicted, or dropped by a failed
   * refresh) gets no renewal: it is computed again, once for all its watchers.
   */
  async function reask(group: Group, options: ReturnType<typeof pollOptions>): Promise<void> {
    // Watched counts as asked; a key whose first result is still coming is left to that computation.
    if (cache!.markAsked(group.key) || ![...group.members].some((m) => m.delivery.started)) return;
    const result = await service.execute(group.call, options);
    const { endpoint } = group.call;
    onQuery({
      endpoint: endpoint.definition.name,
      tenant: group.tenant,
      requestId: options.requestId,
      code: "ok",
      ...costOf(result),
    });
    for (const member of group.members) member.delivery.offerResult(result);
  }

  /**
   * The first result for a watcher of `group`: a cached call's through the
   * cache (its key's single flight); an uncached one's computed once for all
   * the watchers opening until the group's next poll.
   */
  function firstResult(group: Group, call: PreparedCall, context: WatchContext): Promise<EndpointResult> {
    const peeked = service.peek(call);
    if (peeked !== undefined) return Promise.resolve(peeked);
    const run = () => service.execute(call, { tenant: context.tenant, requestId: context.requestId });
    if (group.kind === "cached") return run();
    if (group.first === undefined) {
      const first = run();
      group.first = first;
      // A failure is this run's: the next watcher tries again.
      first.catch(() => {
        if (group.first === first) group.first = undefined;
      });
    }
    return group.first;
  }

  async function first(group: Group, member: Member, call: PreparedCall, context: WatchContext) {
    try {
      const result = await firstResult(group, call, context);
      if (group.kind === "tail") {
        // Rows dated after the result was computed are not a mark: a row of 2299 cannot freeze the tail.
        const start = startOfResult(result, microsOfMs(result.computation.computedAt));
        member.mark = start.mark;
        member.ahead = start.ahead;
        member.ready = true;
        member.delivery.offerResult(result);
        return;
      }
      // A renewal told meanwhile is newer than this result.
      if (!member.delivery.started) member.delivery.offerResult(result);
      if (group.kind === "cached") cache?.markAsked(group.key);
    } catch (error) {
      member.delivery.end(ConnectError.from(error));
    }
  }

  /** What a poll's result cost: the warehouse's figures when it computed it, none when it was a hit. */
  function costOf(result: EndpointResult): Pick<WatchQuery, "statistics" | "durationMs"> {
    const { statistics, warehouseMs } = result.computation;
    const computed = result.cache === undefined || result.cache.status !== "HIT";
    return computed
      ? { statistics: statistics ?? { rowsRead: 0, bytesRead: 0 }, durationMs: warehouseMs }
      : { statistics: { rowsRead: 0, bytesRead: 0 }, durationMs: 0 };
  }

  /** Takes `member` out of its group (the group out of the hub once empty) and out of the bounds, once. */
  const leave = (member: Member) => {
    const group = member.group;
    if (!group.members.delete(member)) return;
    member.release();
    onOpenStreams(bounds.open);
    if (group.members.size === 0 && groups.get(group.key) === group) {
      groups.delete(group.key);
      clearTimeout(group.timer);
    }
  };

  const hub: WatchHub = {
    watch(call, context, listener) {
      if (closed) throw new ConnectError("the service is shutting down", Code.Unavailable);
      const release = bounds.admit(context);
      onOpenStreams(bounds.open);
      const group = groupOf(call, context.tenant ?? "");
      const member = new Member(listener, leave, group, release);
      group.members.add(member);
      queueMicrotask(() => void first(group, member, call, context));
      return member;
    },
    async pollNow() {
      await Promise.all([...groups.values()].filter((g) => g.kind !== "cached").map((g) => g.polling ?? poll(g)));
    },
    get open() {
      return bounds.open;
    },
    close() {
      closed = true;
      stopRenewals?.();
      const unavailable = new ConnectError("the service is shutting down", Code.Unavailable);
      for (const group of [...groups.values()]) {
        clearTimeout(group.timer);
        for (const member of [...group.members]) member.delivery.end(unavailable);
      }
      groups.clear();
    },
  };
  return hub;
}
