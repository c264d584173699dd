// What a call carries into the Connect router: the call itself and, for a keyed call, its record, written when
// its response is done (call/call-record.ts).
import type { DescMethod } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ContextValues,
  createContextKey,
  createContextValues,
  type Interceptor,
} from "@connectrpc/connect";
import type { EndpointResult } from "../../endpoints/index.js";
import {
  type AuthenticatedCall,
  type Call,
  codeName,
  type HttpResponse,
  isAuthenticated,
  type RecordCall,
} from "../call/index.js";
import { type CallProtocol, callProtocolOf, rpcProtocolOf } from "./rpc-protocol.js";

const callKey = createContextKey<Call | undefined>(undefined, { description: "call" });

/** What the router's steps learn of a call, read when its response is done. */
interface RouterCallEnd {
  endpoint?: string;
  protocol?: CallProtocol;
  code?: string;
  result?: EndpointResult;
  bytes: number;
}

const routerCallEndKey = createContextKey<RouterCallEnd | undefined>(undefined, { description: "call end" });

/** The call a router context came with; undefined for a context made elsewhere (a test's own router). */
export function callOf(values: ContextValues): Call | undefined {
  return values.get(callKey);
}

/** The authenticated call of a saved query's route: one the gate did not admit is refused, never run unscoped. */
export function authenticatedCallOf(values: ContextValues): AuthenticatedCall {
  const call = values.get(callKey);
  if (call === undefined || !isAuthenticated(call))
    throw new ConnectError("missing or invalid API key", Code.Unauthenticated);
  return call;
}

/** Keeps the handler's result of a call, for its record. */
export function noteCallResult(values: ContextValues, result: EndpointResult): void {
  const end = values.get(routerCallEndKey);
  if (end !== undefined) end.result = result;
}

/** Bytes of the call's response written so far (0 when it is not recorded): a watch stream's, read at its end. */
export function responseBytesOf(values: ContextValues): number {
  return values.get(routerCallEndKey)?.bytes ?? 0;
}

/** The context values of `call` going to the router through `response`, with its record for a keyed call. */
export function routerContextFor(call: Call, response: HttpResponse, record: RecordCall | undefined): ContextValues {
  const values = createContextValues().set(callKey, call);
  if (record === undefined || call.credential === undefined) return values;
  if (call.started === 0) call.started = performance.now();
  const end: RouterCallEnd = { bytes: 0 };
  values.set(routerCallEndKey, end);
  const writable = response as unknown as { write: WriteLike; end: WriteLike };
  const write = writable.write;
  const finish = writable.end;
  writable.write = function (this: unknown, chunk: unknown, ...rest: unknown[]) {
    end.bytes += byteLength(chunk);
    return write.call(this, chunk, ...rest);
  };
  writable.end = function (this: unknown, chunk: unknown, ...rest: unknown[]) {
    end.bytes += byteLength(chunk);
    return finish.call(this, chunk, ...rest);
  };
  response.once("close", () => {
    const { endpoint, protocol, code } = end;
    if (endpoint === undefined || protocol === undefined || code === undefined) return;
    record(call, { endpoint, protocol, code, result: end.result, responseBytes: end.bytes });
  });
  return values;
}

type WriteLike = (chunk?: unknown, ...rest: unknown[]) => unknown;

function byteLength(chunk: unknown): number {
  if (typeof chunk === "string") return Buffer.byteLength(chunk);
  return chunk instanceof Uint8Array ? chunk.byteLength : 0;
}

/** Notes each saved-query call's saved query, protocol and code for its record; other methods are left alone. */
export function recordingInterceptor(endpointOf: (method: DescMethod) => string | undefined): Interceptor {
  return (next) => async (request) => {
    const end = request.contextValues.get(routerCallEndKey);
    const endpoint = endpointOf(request.method);
    if (end === undefined || endpoint === undefined) return next(request);
    end.endpoint = endpoint;
    end.protocol = callProtocolOf(
      rpcProtocolOf(request.requestMethod, request.header.get("content-type") ?? undefined, request.url),
    );
    try {
      const response = await next(request);
      end.code = "ok";
      return response;
    } catch (error) {
      const connectError = ConnectError.from(error);
      // A caller that reset its stream while its request was read: it went away (as the logging interceptor says).
      const gone = connectError.code === Code.Unknown && request.signal.aborted;
      end.code = codeName(gone ? Code.Canceled : connectError.code);
      throw error;
    }
  };
}
