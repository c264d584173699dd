// gRPC and gRPC-Web watch streams on their bare HTTP/2 stream, so that an idle one holds little: read, parsed and
// prepared as the router would; anything else (Connect, a refusal) goes to the router.
import { Code, ConnectError } from "@connectrpc/connect";
import type { ServerHttp2Stream } from "node:http2";
import type { DescMethod } from "@bufbuild/protobuf";
import type { Endpoint, EndpointService } from "../../endpoints/index.js";
import { type AuthenticatedCall, type OpenWatch, validated, type WatchSession } from "../call/index.js";
import { type Compression, parseTimeout } from "./connect-internals.js";
import { canCompress, type MessageEncodings } from "./message-encodings.js";
import { bodyBytes, type ReadBody, readBody } from "./request-body.js";
import { messageOfBody, type UnaryRequestForm, unaryRequestForm } from "./unary-request.js";
import { BareWatchWriter } from "./watch-stream-writer.js";

export interface WatchStreamPathOptions {
  service: EndpointService;
  openWatch: OpenWatch;
  encodings: MessageEncodings;
  /** The router's compressions, in its order. */
  accepted: readonly Compression[];
  maxBodyBytes: number;
  /** Hands a call to the router, with what was read of its body replayed. */
  toRouter(call: AuthenticatedCall, read?: ReadBody): void;
}

/** The bare stream a watch is opened on, its saved query and its request's form. */
interface BareTarget {
  stream: ServerHttp2Stream;
  endpoint: Endpoint;
  method: DescMethod;
  form: UnaryRequestForm;
}

/** Takes a watch call it serves on its bare stream (true), or leaves it (false). */
export type WatchStreamPath = (call: AuthenticatedCall) => boolean;

export function createWatchStreamPath(options: WatchStreamPathOptions): WatchStreamPath {
  const { service, openWatch, encodings, accepted, maxBodyBytes } = options;

  /** Opens the stream: false when the router must answer the call (its request, or a refusal). */
  function open(call: AuthenticatedCall, target: BareTarget, bytes: Buffer): boolean {
    const { stream, endpoint, method, form } = target;
    const timeout = parseTimeout(call.get("grpc-timeout"), Number.MAX_SAFE_INTEGER);
    if (timeout.error !== undefined) return false;
    const writer = new BareWatchWriter(stream, form, method, {
      encodings,
      requestId: call.requestId,
      cors: call.corsHeadersToWrite(),
    });
    const deadline = timeout.timeoutMs === undefined ? undefined : new AbortController();
    let session: WatchSession;
    try {
      const request = encodings.parse(method, form.binary, bytes);
      const ready = validated(call, service.prepare(endpoint, request, call.credential));
      session = openWatch({ call: ready, request, protocol: form.protocol, writer, signal: deadline?.signal });
    } catch {
      return false; // the router prepares and opens it again, and answers its error
    }
    writer.session = session;
    if (deadline !== undefined)
      writer.deadline = setTimeout(
        () => deadline.abort(new ConnectError("the operation timed out", Code.DeadlineExceeded)),
        timeout.timeoutMs,
      );
    // The client went away (or the stream was reset): a cancelled stream ends normally.
    if (stream.destroyed || stream.closed) session.end();
    else stream.once("close", () => session.end());
    return true;
  }

  return (call) => {
    const stream = call.stream;
    const endpoint = call.route === "watch-procedure" ? call.endpoint : undefined;
    const method = endpoint?.watchMethod;
    if (stream === undefined || endpoint === undefined || method === undefined) return false;
    const form = unaryRequestForm(call.head, method, accepted);
    if (form === undefined || form.protocol === "connect" || !canCompress(form.compression)) return false;
    readBody(
      call.body,
      maxBodyBytes + 5,
      (read) => {
        const bytes = read.whole ? messageOfBody(form, bodyBytes(read), maxBodyBytes) : undefined;
        const target = { stream, endpoint, method, form: sharedForm(form) };
        if (bytes === undefined || !open(call, target, bytes)) options.toRouter(call, read);
      },
      false,
    );
    return true;
  };
}

// One form object per kind, shared by the streams that hold one for their life.
const forms = new Map<string, UnaryRequestForm>();

function sharedForm(form: UnaryRequestForm): UnaryRequestForm {
  const name = `${form.protocol} ${form.binary} ${form.compression?.name ?? ""}`;
  let shared = forms.get(name);
  if (shared === undefined) forms.set(name, (shared = form));
  return shared;
}
