// One watch stream's life, the same on every transport (gRPC, gRPC-Web and
// Connect through the router, Server-Sent Events on GET): opened on the hub
// under the caller's bounds (keyed by `call.client`, as every per-address
// bound is), ended by the client leaving, its deadline, shutdown or its key's
// revocation, kept alive by a heartbeat where the protocol has one, and
// counted and recorded as one call when it ends. A writer only turns results
// and the end into its protocol's bytes.
import { Code, ConnectError } from "@connectrpc/connect";
import { presentedSecret } from "../../auth/index.js";
import type { EndpointResult, WatchHub, WatchStream } from "../../endpoints/index.js";
import type { Metrics } from "../../observability/index.js";
import type { CallProtocol } from "../../warehouse/index.js";
import type { ValidatedCall } from "./authenticated.js";
import { type RecordCall, recordNoCall } from "./call-record.js";
import { codeName } from "./http-status.js";
import type { WatchRevocation } from "./watch-revocation.js";

/** What a transport writes for one stream, in its protocol's bytes. */
export interface WatchWriter {
  /** Writes one result; false when full (the session sends the newest later one once `drained` is called). */
  result(result: EndpointResult): boolean;
  /** Writes a keep-alive where the protocol has one (an SSE comment); omitted where it has none. */
  heartbeat?(): void;
  /** Ends the stream: normally (`undefined`, the client left) or with `error`; called once, last. */
  end(error: ConnectError | undefined): void;
  /** Bytes of the answer written so far, for the call's record. */
  bytes(): number;
}

/** A stream opened by `openWatch`. */
export interface WatchSession {
  /** The writer has room again. */
  drained(): void;
  /** Ends the stream: normally when `error` is undefined (the client left), else with it. */
  end(error?: ConnectError): void;
}

export interface WatchSessionsOptions {
  hub: WatchHub;
  /** Ends the streams of a key the key file no longer holds. */
  revocation: WatchRevocation;
  metrics?: Metrics;
  /** Records each stream as one call when it ends. Default: nothing. */
  record?: RecordCall;
  /** How often a writer with a heartbeat is asked for one. Default 15,000 ms. */
  heartbeatMs?: number;
}

/** The heartbeat's default period: 15 s. */
export const defaultHeartbeatMs = 15_000;

/** How a stream is opened: the call it answers, its protocol, its writer, and its deadline if it has one. */
export interface WatchOpening {
  call: ValidatedCall;
  protocol: CallProtocol;
  writer: WatchWriter;
  /** Milliseconds until the stream ends DEADLINE_EXCEEDED. Default: none. */
  timeoutMs?: number;
}

/** Opens watch streams. Throws, before anything is written, what the hub throws (a watch bound, shutdown). */
export type OpenWatch = (opening: WatchOpening) => WatchSession;

export function createWatchSessions(options: WatchSessionsOptions): OpenWatch {
  const { hub, revocation, metrics } = options;
  const record = options.record ?? recordNoCall;
  const heartbeatMs = options.heartbeatMs ?? defaultHeartbeatMs;

  return ({ call, protocol, writer, timeoutMs }) => {
    const started = performance.now();
    const { credential, prepared } = call;
    let first: EndpointResult | undefined;
    let ended = false;
    const timers: NodeJS.Timeout[] = [];
    let revoked: ReturnType<WatchRevocation["follow"]> | undefined;
    let stream: WatchStream | undefined;

    const end = (error: ConnectError | undefined, closeHub: boolean) => {
      if (ended) return;
      ended = true;
      for (const timer of timers) clearTimeout(timer);
      revoked?.stop();
      if (closeHub) stream?.close();
      writer.end(error);
      const code = error === undefined || error.code === Code.Canceled ? "ok" : codeName(error.code);
      const endpoint = prepared.endpoint.definition.name;
      // The metrics name a GET's protocol `http`, as for its calls.
      metrics?.recordCall(endpoint, protocol === "get" ? "http" : protocol, code, (performance.now() - started) / 1000);
      metrics?.countCaller(credential.id, code);
      record(
        { requestId: call.requestId, credential, started },
        { endpoint, protocol, code, result: first, responseBytes: writer.bytes(), cache: "none" },
      );
    };

    stream = hub.watch(
      prepared,
      { tenant: credential.id, requestId: call.requestId, address: call.client || undefined },
      {
        next(result) {
          if (ended) return true;
          first ??= result;
          return writer.result(result);
        },
        // The hub ended it (shutdown, its first result's error): the hub has let it go already.
        end: (error) => end(error, false),
      },
    );
    // Followed once the hub admitted the stream: a refused one is not.
    revoked = revocation.follow(presentedSecret(call));
    const signal = revoked.signal;
    signal?.addEventListener("abort", () => end(ConnectError.from(signal.reason), true), { once: true });
    if (timeoutMs !== undefined)
      timers.push(
        setTimeout(() => end(new ConnectError("the operation timed out", Code.DeadlineExceeded), true), timeoutMs),
      );
    if (writer.heartbeat !== undefined) {
      const beat = setInterval(() => writer.heartbeat?.(), heartbeatMs);
      beat.unref();
      timers.push(beat);
    }
    return {
      drained: () => stream?.drained(),
      end: (error) => end(error, true),
    };
  };
}
