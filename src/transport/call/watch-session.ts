// One watch stream's life, the same on every transport: opened on the hub under the bounds of its client address,
// ended by the client, deadline, shutdown or revocation, kept alive, recorded; a writer only makes the bytes.
import type { Message } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { type Credential, presentedSecret } from "../../auth/index.js";
import type { Endpoint, EndpointResult, PreparedCall, WatchHub, WatchStream } from "../../endpoints/index.js";
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
  /** Prepares a call again under a changed credential, to check a stream may go on. */
  service: { prepare(endpoint: Endpoint, request: Message, credential: Credential): PreparedCall };
  /** Ends the streams of a key the key file no longer holds. */
  revocation: WatchRevocation;
  metrics?: Metrics;
  /** Records each stream as one call when it ends. Default: nothing. */
  record?: RecordCall;
  /** How often a writer with a heartbeat is asked for one. Default 15,000 ms. */
  heartbeatMs?: number;
}

/** The heartbeat's default period: 15 s. */
const defaultHeartbeatMs = 15_000;

/** How a stream is opened: the call it answers, its protocol, its writer, and its deadline if it has one. */
export interface WatchOpening {
  call: ValidatedCall;
  /** The request message the call was prepared from. */
  request: Message;
  protocol: CallProtocol;
  writer: WatchWriter;
  /** Aborted when the transport ends the call (its deadline, the client cancelling): the session ends with its reason. */
  signal?: AbortSignal;
}

/** Opens watch streams. Throws, before anything is written, what the hub throws (a watch bound, shutdown). */
export type OpenWatch = (opening: WatchOpening) => WatchSession;

export function createWatchSessions(options: WatchSessionsOptions): OpenWatch {
  const { hub, revocation, metrics, service } = options;
  const record = options.record ?? recordNoCall;
  const heartbeatMs = options.heartbeatMs ?? defaultHeartbeatMs;

  return ({ call, request, protocol, writer, signal }) => {
    const started = performance.now();
    // What the stream needs of its call, read now: an idle stream keeps these, not the call and its headers.
    const { credential, prepared, requestId } = call;
    const secret = presentedSecret(call);
    let first: EndpointResult | undefined;
    let ended = false;
    let heartbeat: NodeJS.Timeout | undefined;
    let revoked: ReturnType<WatchRevocation["follow"]> | undefined;
    let stream: WatchStream | undefined;
    const aborted = () => end(ConnectError.from(signal?.reason), true);

    const end = (error: ConnectError | undefined, closeHub: boolean) => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      signal?.removeEventListener("abort", aborted);
      revoked?.stop();
      if (closeHub) stream?.close();
      writer.end(error);
      const code = error === undefined || error.code === Code.Canceled ? "ok" : codeName(error.code);
      const endpoint = prepared.endpoint.definition.name;
      // The metrics name a GET's protocol `http`, as for its calls.
      metrics?.recordCall(endpoint, protocol === "get" ? "http" : protocol, code, (performance.now() - started) / 1000);
      metrics?.countCaller(credential.id, code);
      record(
        { requestId, credential, started },
        { endpoint, protocol, code, result: first, responseBytes: writer.bytes(), cache: "none" },
      );
    };

    stream = hub.watch(
      prepared,
      { tenant: credential.id, requestId, address: call.clientAddress || undefined },
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
    revoked = revocation.follow({
      credential,
      secret,
      recheck: recheckOf(service, prepared, request),
    });
    const access = revoked.signal;
    access?.addEventListener("abort", () => end(ConnectError.from(access.reason), true), { once: true });
    signal?.addEventListener("abort", aborted, { once: true });
    if (signal?.aborted) aborted();
    if (writer.heartbeat !== undefined) {
      heartbeat = setInterval(() => writer.heartbeat?.(), heartbeatMs);
      heartbeat.unref();
    }
    return {
      drained: () => stream?.drained(),
      end: (error) => end(error, true),
    };
  };
}

/** The check of a stream's call under a changed credential, made apart so that a stream not followed keeps no request. */
function recheckOf(service: WatchSessionsOptions["service"], prepared: PreparedCall, request: Message) {
  return (changed: Credential) => sameCall(service.prepare(prepared.endpoint, request, changed), prepared);
}

/** Throws PERMISSION_DENIED unless `again` runs the query `prepared` runs: a narrowed fixed parameter changes it. */
function sameCall(again: PreparedCall, prepared: PreparedCall): void {
  const before = prepared.queryParams;
  const after = again.queryParams;
  const names = Object.keys(before);
  if (names.length === Object.keys(after).length && names.every((name) => before[name] === after[name])) return;
  throw new ConnectError("this credential may no longer run this stream's parameters", Code.PermissionDenied);
}
