// The gRPC health protocol: "" and each saved-query service SERVING exactly when /readyz is ready; Watch bounded
// in all and per client address, every Watch fed by one poller of readiness that asks only while someone listens.
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { addressKey } from "../../network/index.js";
import { Health, HealthCheckResponse_ServingStatus as Status } from "../../gen/grpc/health/v1/health_pb.js";
import { callOf } from "../rpc/index.js";

export interface HealthServiceOptions {
  /** Whether the service can answer queries: the function /readyz asks. */
  ready: () => Promise<boolean>;
  /** Full names of the services health answers for, besides "" (the whole server). */
  services: readonly string[];
  /** How often Watch asks `ready` while someone watches; one poller serves all watchers. Default 1000 ms. */
  pollMs?: number;
  /** Watch calls open at once, all callers together (Watch needs no key and never ends by itself). Default 256. */
  maxWatches?: number;
  /** Watch calls one client address (IPv6 by its /64) may hold open. Default `maxWatches` / 32, at least 1. */
  maxWatchesPerAddress?: number;
}

/** grpc.health.v1.Health's routes, and its close for shutdown: NOT_SERVING to every Watch, which then ends. */
export function createHealthService(options: HealthServiceOptions) {
  const known = new Set(["", ...options.services]);
  const poller = createReadinessPoller({ ready: options.ready, intervalMs: options.pollMs });
  const watchers = new Set<() => void>();
  const maxWatches = options.maxWatches ?? 256;
  const maxPerAddress = options.maxWatchesPerAddress ?? Math.max(1, Math.floor(maxWatches / 32));
  let watching = 0;
  /** Watches open by client address; an address leaves the map with its last one. */
  const watchingFrom = new Map<string, number>();
  let closed = false;
  const readyNow = () => options.ready().catch(() => false);
  const statusOf = (ready: boolean) => (ready ? Status.SERVING : Status.NOT_SERVING);

  /** Resolves when the caller goes away or the service closes. */
  function untilEnded(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (closed || signal.aborted) return resolve();
      const end = () => {
        watchers.delete(end);
        signal.removeEventListener("abort", end);
        resolve();
      };
      watchers.add(end);
      signal.addEventListener("abort", end, { once: true });
    });
  }

  async function* watch(service: string, context: HandlerContext) {
    const address = addressKey(callOf(context.values)?.clientAddress ?? "");
    const fromAddress = watchingFrom.get(address) ?? 0;
    if (watching >= maxWatches || fromAddress >= maxPerAddress) {
      const whose = watching >= maxWatches ? "" : " from this address";
      const error = new ConnectError(`too many health watches open${whose}, try again later`, Code.ResourceExhausted);
      error.metadata.set("retry-after", "10");
      throw error;
    }
    watching += 1;
    watchingFrom.set(address, fromAddress + 1);
    try {
      yield* watchOpen(service, context);
    } finally {
      watching -= 1;
      const left = watchingFrom.get(address)! - 1;
      if (left === 0) watchingFrom.delete(address);
      else watchingFrom.set(address, left);
    }
  }

  async function* watchOpen(service: string, context: HandlerContext) {
    if (!known.has(service)) {
      // The protocol: an unknown service is SERVICE_UNKNOWN, and the call stays open.
      yield { status: Status.SERVICE_UNKNOWN };
      await untilEnded(context.signal);
      return;
    }
    const answers: boolean[] = [];
    let wake: (() => void) | undefined;
    const wakeUp = () => wake?.();
    const unsubscribe = poller.subscribe((ready) => {
      answers.push(ready);
      wakeUp();
    });
    watchers.add(wakeUp);
    context.signal.addEventListener("abort", wakeUp, { once: true });
    try {
      let last = await readyNow();
      yield { status: statusOf(last) };
      while (!closed && !context.signal.aborted) {
        if (answers.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        for (const ready of answers.splice(0)) {
          if (ready === last || closed) continue; // only changes are sent
          last = ready;
          yield { status: statusOf(ready) };
        }
      }
      if (closed && last) yield { status: Status.NOT_SERVING };
    } finally {
      unsubscribe();
      watchers.delete(wakeUp);
      context.signal.removeEventListener("abort", wakeUp);
    }
  }

  return {
    routes(router: ConnectRouter) {
      router.service(Health, {
        async check(request) {
          if (!known.has(request.service))
            throw new ConnectError(`service ${request.service} is not known to health`, Code.NotFound);
          return { status: statusOf(await readyNow()) };
        },
        async list() {
          const status = statusOf(await readyNow());
          return { statuses: Object.fromEntries([...known].map((name) => [name, { status }])) };
        },
        watch: (request, context) => watch(request.service, context),
      });
    },
    close() {
      closed = true;
      for (const wakeUp of [...watchers]) wakeUp();
    },
  };
}

export interface ReadinessPollerOptions {
  /** The readiness function /readyz asks; a rejection counts as not ready. */
  ready: () => Promise<boolean>;
  /** Time between two questions while someone listens. Default 1000 ms. */
  intervalMs?: number;
}

export interface ReadinessPoller {
  /** Calls `listener` with every answer until the returned function is called. */
  subscribe(listener: (ready: boolean) => void): () => void;
  /** How many listeners there are now. */
  readonly listeners: number;
}

export function createReadinessPoller(options: ReadinessPollerOptions): ReadinessPoller {
  const intervalMs = options.intervalMs ?? 1000;
  const listeners = new Set<(ready: boolean) => void>();
  let timer: NodeJS.Timeout | undefined;
  let asking = false;

  const tick = () => {
    if (asking) return; // a slow answer does not pile up questions
    asking = true;
    // Never rejects: a failing `ready` counts as not ready.
    void Promise.resolve()
      .then(options.ready)
      .catch(() => false)
      .then((ready) => {
        asking = false;
        for (const listener of [...listeners]) listener(ready);
      });
  };

  return {
    subscribe(listener) {
      listeners.add(listener);
      if (timer === undefined) {
        timer = setInterval(tick, intervalMs);
        timer.unref();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && timer !== undefined) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
    get listeners() {
      return listeners.size;
    },
  };
}
