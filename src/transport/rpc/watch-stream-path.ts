// Watch streams of gRPC and gRPC-Web callers served on their bare HTTP/2
// stream, without the Connect router: after the gate, the request is read,
// parsed and prepared as the router would, and the stream handed to the hub
// with a BareWatch (watch-stream-writer.ts) as its listener, so that an idle
// stream holds its Http2Stream, that listener and its hub subscription.
// Anything else (Connect streaming, a request it does not read as the router
// would, a refusal) goes to the router, which answers it as it always has.
import type { Compression } from "@connectrpc/connect/protocol";
import { parseTimeout } from "@connectrpc/connect/protocol-grpc";
import { presentedSecret } from "../../auth/index.js";
import type { Endpoint, EndpointService, WatchHub } from "../../endpoints/index.js";
import type { Call } from "../node-http/index.js";
import { canCompress } from "./message-encodings.js";
import { bodyBytes, type ReadBody, readBody } from "./request-body.js";
import { messageOfBody, type UnaryRequestForm, unaryRequestForm } from "./unary-request.js";
import { BareWatch, type BareWatchOptions } from "./watch-stream-writer.js";

export interface WatchStreamPathOptions extends BareWatchOptions {
  service: EndpointService;
  hub: WatchHub;
  /** The router's compressions, in its order. */
  accepted: readonly Compression[];
  maxBodyBytes: number;
  /** Hands a call to the router, with what was read of its body replayed. */
  toRouter(call: Call, read?: ReadBody): void;
}

/** Takes a watch call it serves on its bare stream (true), or leaves it (false). */
export type WatchStreamPath = (call: Call) => boolean;

export function createWatchStreamPath(options: WatchStreamPathOptions): WatchStreamPath {
  const { service, hub, encodings, accepted, maxBodyBytes } = options;

  /** Opens the stream: false when the router must answer the call (its request, or a refusal). */
  function open(call: Call, endpoint: Endpoint, form: UnaryRequestForm, bytes: Buffer) {
    const credential = call.credential!;
    const timeout = parseTimeout(call.get("grpc-timeout"), Number.MAX_SAFE_INTEGER);
    if (timeout.error !== undefined) return false;
    let watch: BareWatch;
    try {
      const request = encodings.parse(endpoint.watchMethod!, form.binary, bytes);
      const prepared = service.prepare(endpoint, request, credential);
      watch = new BareWatch(call, endpoint, form, options);
      const context = {
        tenant: credential.id,
        requestId: call.requestId,
        address: call.client || undefined,
      };
      watch.handle = hub.watch(prepared, context, watch);
    } catch {
      return false; // the router prepares and opens it again, and answers its error
    }
    watch.follow(presentedSecret(call), timeout.timeoutMs);
    return true;
  }

  return (call) => {
    if (call.stream === undefined || call.credential === undefined) return false;
    const endpoint = call.route === "watch-procedure" ? call.endpoint : undefined;
    if (endpoint?.watchMethod === undefined) return false;
    const form = unaryRequestForm(call.head, endpoint.watchMethod, accepted);
    if (form === undefined || form.protocol === "connect" || !canCompress(form.compression)) return false;
    readBody(
      call.body,
      maxBodyBytes + 5,
      (read) => {
        const bytes = read.whole ? messageOfBody(form, bodyBytes(read), maxBodyBytes) : undefined;
        if (bytes === undefined || !open(call, endpoint, sharedForm(form), bytes)) options.toRouter(call, read);
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
