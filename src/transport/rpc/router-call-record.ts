// Records a saved query's call answered by the Connect router: the
// interceptor notes its saved query, protocol, code and result, the handler
// its result, and the row is recorded when the response has been written,
// with the bytes of its body (node-http/call-record.ts).
import { Code, ConnectError, type ContextValues, createContextKey, type Interceptor } from "@connectrpc/connect";
import type { DescMethod } from "@bufbuild/protobuf";
import type { EndpointResult } from "../../endpoints/index.js";
import { type Call, codeName, type HttpResponse, type RecordCall } from "../node-http/index.js";
import { callValues } from "./request-context.js";
import { callProtocolOf, rpcProtocolOf } from "./rpc-protocol.js";

/** What the router's steps learn of a call, read when its response is done. */
interface RouterCallEnd {
  endpoint?: string;
  protocol?: "connect" | "grpc" | "grpc-web";
  code?: string;
  result?: EndpointResult;
  bytes: number;
}

const routerCallEndKey = createContextKey<RouterCallEnd | undefined>(undefined, { description: "call end" });

/** Keeps the handler's result of a call, for its record. */
export function noteCallResult(values: ContextValues, result: EndpointResult): void {
  const end = values.get(routerCallEndKey);
  if (end !== undefined) end.result = result;
}

/** Bytes of the call's response written so far (0 when it is not recorded): a watch stream's, read at its end. */
export function responseBytesOf(values: ContextValues): number {
  return values.get(routerCallEndKey)?.bytes ?? 0;
}

/**
 * The context values of `call` going to the router through `response`: the
 * call, and, for a keyed call, what is needed to record it once the response
 * is done.
 */
export function routerContextFor(call: Call, response: HttpResponse, record: RecordCall | undefined): ContextValues {
  const values = callValues(call);
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
