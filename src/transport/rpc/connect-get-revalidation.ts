// A conditional Connect GET that is no cache hit (a miss, an uncached saved
// query, or a freshness directive, which fetch sends with every If-None-Match
// it is given): run as any directive asks, so that its result, when the
// caller's copy still matches, is answered 304 rather than through the
// router's 200.
import { ConnectError } from "@connectrpc/connect";
import type { Endpoint, EndpointResult, EndpointService, PreparedCall } from "../../endpoints/index.js";
import { type Call, freshnessOfHead } from "../node-http/index.js";
import { type CallLog, loggedCallOf } from "./logging-interceptor.js";
import { sendRpcError } from "./rpc-error-response.js";
import type { UnaryRequestForm } from "./unary-request.js";

export interface RevalidationOptions {
  service: EndpointService;
  log: CallLog;
}

/** What a revalidation comes to when it failed: its error answered here, nothing left for the caller. */
export const errorAnswered = "error answered";

/**
 * Executes `prepared` with the call's freshness: the result for the caller
 * to answer, or errorAnswered.
 */
export function createRevalidation(options: RevalidationOptions) {
  const { service, log } = options;
  return async (
    call: Call,
    endpoint: Endpoint,
    form: UnaryRequestForm,
    prepared: PreparedCall,
  ): Promise<EndpointResult | typeof errorAnswered> => {
    const timeout = Number(call.head.headers["connect-timeout-ms"]);
    try {
      return await service.execute(prepared, {
        requestId: call.requestId,
        tenant: call.credential!.id,
        freshness: freshnessOfHead(call.head.headers),
        timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : undefined,
      });
    } catch (error) {
      const connectError = ConnectError.from(error);
      connectError.metadata.set("cache-control", "no-store");
      sendRpcError(call.exchange(), form.protocol, connectError);
      log(loggedCallOf(call, endpoint, form.protocol), connectError.code, connectError);
      return errorAnswered;
    }
  };
}
