// The Connect, gRPC and gRPC-Web side of the port, in order: the gate, the
// bare-stream watch path and the fast path of cache hits, then the Connect
// router (saved queries, their watch streams, gRPC health and reflection),
// with UNIMPLEMENTED for RPC calls of anything not served.
import type { DescService } from "@bufbuild/protobuf";
import type { Authenticator } from "../auth/index.js";
import type { EndpointRegistry, EndpointService } from "../endpoints/index.js";
import { Health } from "../gen/grpc/health/v1/health_pb.js";
import type { Logger, Metrics } from "../observability/index.js";
import {
  createHealthService,
  createServerReflection,
  createUnimplementedFallback,
  serverReflectionServices,
} from "./grpc/index.js";
import {
  type Call,
  type CallHandler,
  codeName,
  isAuthenticated,
  type OpenWatch,
  type RecordCall,
  type RequestHandler,
} from "./node-http/index.js";
import {
  type CallObserver,
  connectRoutes,
  createCallLines,
  createConnectRouterHandler,
  createMessageEncodings,
  createRecordRefusedRpc,
  createRpcGate,
  createUnaryFastPath,
  createWatchStreamPath,
  type KeylessRpcLimit,
  loggingInterceptor,
  type ReadBody,
  recordingInterceptor,
  replayedBody,
  routerContextFor,
  watchRoutes,
} from "./rpc/index.js";

export interface RpcStackOptions {
  registry: EndpointRegistry;
  /** The Protobuf services of the saved queries, which health answers for. */
  services: readonly DescService[];
  service: EndpointService;
  authenticate: Authenticator;
  /** Whether the service can answer queries, for the gRPC health service. */
  ready: () => Promise<boolean>;
  /** Takes every request that is not an RPC call (the plain HTTP routes). */
  fallback: RequestHandler;
  metrics: Metrics;
  logger: Logger;
  /** Deadline of a call whose client set none. */
  defaultTimeoutMs: number;
  /** The longest deadline of any call, whatever its client asks. */
  maxTimeoutMs: number;
  /** Largest request message, after decompression. */
  maxBodyBytes: number;
  /** STALE_IF_ERROR_SECONDS, named in Cache-Control; 0 names none. Default 3600. */
  staleIfErrorSeconds?: number;
  /** How often a health Watch asks `ready` while someone watches. Default 1000 ms. */
  healthPollMs?: number;
  /** Health Watch calls open at once, all callers together. Default 256. */
  maxHealthWatches?: number;
  /** Health Watch calls one client address (IPv6 by its /64) may hold open. Default `maxHealthWatches` / 32. */
  maxHealthWatchesPerAddress?: number;
  /** Bounds gRPC health, reflection and unknown procedures per client address (the GET API's keyless limit). Default: unbounded. */
  keylessLimit?: KeylessRpcLimit;
  /** Told the code of each saved-query call (`ok` or a code name) at its end or refusal, within it. Default: nothing. */
  observe?: (event: { code: string }) => void;
  /** Whether cache hits are answered from the bytes their result keeps, not through the router (same answers). Default true. */
  fastPath?: boolean;
  /** Binds work called later to the call's trace context (Tracing.bind), with traces on. Default: none. */
  bindContext?: <F extends (...args: never[]) => unknown>(work: F) => F;
  /** Records each saved-query call's end in the call log. Default: nothing. */
  record?: RecordCall;
  /** Opens the sessions of the saved queries' watch methods; without it they answer UNIMPLEMENTED. */
  openWatch?: OpenWatch;
}

/** `serve` takes a call the router did not give to the GET API; `endStreams` ends gRPC health Watch calls. */
export function createRpcStack(options: RpcStackOptions): { serve: CallHandler; endStreams(): void } {
  const { registry, metrics, maxBodyBytes } = options;
  // Saved queries need a key, checked from the headers before any body is read; health and reflection do not.
  const recordRefused = createRecordRefusedRpc(registry, options.record);
  const gate = createRpcGate({
    authenticate: options.authenticate,
    maxBodyBytes,
    onRefused: (protocol, error, call) => {
      recordRefused(call, protocol, error);
      metrics.requests.series({ endpoint: "", protocol, code: codeName(error.code) }).inc();
      options.observe?.({ code: codeName(error.code) });
    },
    logger: options.logger,
    maxTimeoutMs: options.maxTimeoutMs,
    keylessLimit: options.keylessLimit,
  });
  // Beside the saved queries: gRPC health and server reflection, which need no key.
  const health = createHealthService({
    ready: options.ready,
    services: options.services.map((s) => s.typeName),
    pollMs: options.healthPollMs,
    maxWatches: options.maxHealthWatches,
    maxWatchesPerAddress: options.maxHealthWatchesPerAddress,
  });
  const grpcServices = [...options.services, Health, ...serverReflectionServices];
  const savedQuery = connectRoutes({
    registry,
    service: options.service,
    defaultTimeoutMs: options.defaultTimeoutMs,
    staleIfErrorSeconds: options.staleIfErrorSeconds,
  });
  // Each message of a reflection stream takes a token of its address's bucket, as a call would.
  const keylessLimit = options.keylessLimit;
  const noHeaders = { get: () => null };
  const reflection = createServerReflection({
    services: grpcServices,
    limit: {
      takeToken: keylessLimit && ((address) => keylessLimit("reflection", noHeaders, address)),
    },
  });
  // Call metrics are per saved query; health and reflection calls are only logged.
  const endpointNames = new Map(registry.endpoints.map((e) => [e.method, e.definition.name]));
  const observe: CallObserver = ({ endpoint, protocol, code, durationMs, caller }) => {
    if (endpoint === undefined) return;
    const name = code === "ok" ? "ok" : codeName(code);
    metrics.recordCall(endpoint, protocol, name, durationMs / 1000);
    if (caller !== undefined) metrics.countCaller(caller, name);
    options.observe?.({ code: name });
  };
  // A JSON key that is not a parameter (`sql`, say) is refused, as on GET, not ignored.
  const jsonOptions = { ignoreUnknownFields: false };
  const router = createConnectRouterHandler({
    routes: (router) => {
      savedQuery(router);
      if (options.openWatch !== undefined)
        watchRoutes({ registry, service: options.service, openWatch: options.openWatch })(router);
      health.routes(router);
      reflection(router);
    },
    // Bounds every message, compressed or not: decompression stops at it.
    readMaxBytes: maxBodyBytes,
    jsonOptions,
    interceptors: [
      loggingInterceptor(options.logger, { endpointOf: (method) => endpointNames.get(method), observe }),
      recordingInterceptor((method) => endpointNames.get(method)),
    ],
    // An RPC call of anything not served gets UNIMPLEMENTED in its protocol; the rest is plain HTTP.
    fallback: createUnimplementedFallback({
      services: grpcServices.map((s) => s.typeName),
      fallback: options.fallback,
    }),
    logger: options.logger,
  });
  const toRouter = (call: Call, read?: ReadBody) => {
    const [request, response] = call.exchange();
    router.serve(
      request,
      response,
      routerContextFor(call, response, options.record),
      read && replayedBody(read, request),
    );
  };
  const encodings = createMessageEncodings({ jsonOptions });
  // Cache hits of saved queries are answered from the bytes their result keeps; the rest goes to the router.
  const fastPath =
    options.fastPath === false
      ? undefined
      : createUnaryFastPath({
          registry,
          service: options.service,
          toRouter,
          acceptCompression: router.acceptCompression,
          encodings,
          log: createCallLines(options.logger, { observe }),
          record: options.record,
          maxBodyBytes,
          staleIfErrorSeconds: options.staleIfErrorSeconds,
          bindContext: options.bindContext,
        });
  // gRPC and gRPC-Web watch streams on HTTP/2 are written on their bare stream, holding little while idle.
  const watchPath =
    options.openWatch === undefined
      ? undefined
      : createWatchStreamPath({
          service: options.service,
          openWatch: options.openWatch,
          encodings,
          accepted: router.acceptCompression,
          maxBodyBytes,
          toRouter,
        });
  const serve = gate.guard((call) => {
    if (isAuthenticated(call)) {
      if (watchPath?.(call)) return;
      if (fastPath !== undefined) return fastPath.serve(call);
    }
    toRouter(call);
  });
  return { serve, endStreams: () => health.close() };
}
