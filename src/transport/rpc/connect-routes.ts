// Every saved query of the registry as a unary Connect, gRPC and gRPC-Web method calling the endpoint service.
import { create, type DescMessage, type DescMethodUnary } from "@bufbuild/protobuf";
import { ConnectError, type ConnectRouter } from "@connectrpc/connect";
import type { EndpointRegistry, EndpointResult, EndpointService } from "../../endpoints/index.js";
import { queryOf } from "../call/index.js";
import { authenticatedCallOf, noteCallResult } from "./router-context.js";
import { rpcCacheHeaders, rpcFreshness, setStatistics } from "./rpc-cache-headers.js";
import { rpcContentTypeOf } from "./rpc-protocol.js";

export interface ConnectRoutesOptions {
  registry: EndpointRegistry;
  service: EndpointService;
  /** Deadline of a call whose client set none. */
  defaultTimeoutMs: number;
  /** STALE_IF_ERROR_SECONDS, named in Cache-Control; 0 names none. Default 3600. */
  staleIfErrorSeconds?: number;
}

/** The `routes` function for connectNodeAdapter. */
export function connectRoutes(options: ConnectRoutesOptions): (router: ConnectRouter) => void {
  const { registry, service, defaultTimeoutMs } = options;
  const staleIfErrorSeconds = options.staleIfErrorSeconds ?? 3600;
  return (router) => {
    for (const endpoint of registry.endpoints) {
      // The registry admits unary methods only; their message types are known at run time.
      const method = endpoint.method as DescMethodUnary<DescMessage, DescMessage>;
      // A deprecated version says so on every answer, errors included (docs/endpoints.md).
      const deprecation = Object.entries(endpoint.deprecation?.headers ?? {});
      router.rpc(method, async (request, context) => {
        const call = authenticatedCallOf(context.values);
        const credential = call.credential;
        const callContext = {
          signal: context.signal,
          timeoutMs: context.timeoutMs() ?? defaultTimeoutMs,
          requestId: call.requestId,
          tenant: credential.id,
          freshness: rpcFreshness(context.requestHeader),
        };
        const set = (name: string, value: string) => context.responseHeader.set(name, value);
        for (const [name, value] of deprecation) set(name, value);
        let result: EndpointResult;
        try {
          // Its estimate only (docs/usage-accounting.md).
          if (context.requestHeader.get("x-dry-run") === "1") {
            const estimate = await service.estimate(service.prepare(endpoint, request, credential), callContext);
            return dryRunAnswer(set, estimate, method);
          }
          result = await service.run(endpoint, request, callContext, credential);
        } catch (error) {
          const connectError = ConnectError.from(error);
          connectError.metadata.set("cache-control", "no-store");
          for (const [name, value] of deprecation) connectError.metadata.set(name, value);
          throw connectError;
        }
        const binary = isBinary(context.requestMethod, context.requestHeader, context.url);
        const headers = rpcCacheHeaders(result, binary, call.cors, staleIfErrorSeconds);
        for (const [name, value] of Object.entries(headers)) if (value !== undefined) set(name, value);
        // Connect answers a unary call's trailers as headers named `trailer-…`: its statistics are plain headers.
        setStatistics(context.protocolName === "connect" ? context.responseHeader : context.responseTrailer, result);
        noteCallResult(context.values, result);
        return result.message();
      });
    }
  };
}

/** Whether the call's message is binary: its content type, or a Connect GET's `encoding` parameter. */
function isBinary(method: string, headers: Headers, url: string): boolean {
  if (method === "GET") return new URLSearchParams(queryOf(url)).get("encoding") !== "json";
  return rpcContentTypeOf(headers.get("content-type") ?? "")?.binary ?? true;
}

/** A dry run's answer: an empty response message, the estimate as `x-estimate-rows`, `-parts` and `-marks`. */
function dryRunAnswer(
  set: (name: string, value: string) => void,
  estimate: { rows: number; parts: number; marks: number },
  method: DescMethodUnary<DescMessage, DescMessage>,
) {
  set("cache-control", "no-store");
  set("x-estimate-rows", String(estimate.rows));
  set("x-estimate-parts", String(estimate.parts));
  set("x-estimate-marks", String(estimate.marks));
  return create(method.output);
}
