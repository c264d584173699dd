// UNIMPLEMENTED for a call of anything not served, in the caller's protocol; plain HTTP goes on to the fallback.
import { Code, ConnectError } from "@connectrpc/connect";
import { pathOf, type RequestHandler } from "../call/index.js";
import { rpcProtocolOf, sendRpcError } from "../rpc/index.js";

export interface UnimplementedOptions {
  /** Full names of the services served on the port, to say "unknown method" rather than "unknown service". */
  services: readonly string[];
  /** Handles requests that are not RPC calls (the plain HTTP routes). */
  fallback: RequestHandler;
}

/** The message of UNIMPLEMENTED for a request path, naming the unknown service or method. */
export function unimplementedMessage(path: string, services: ReadonlySet<string>): string {
  const match = /^\/([^/]+)\/([^/]+)$/.exec(path);
  if (match === null) return `no procedure at ${path}`;
  const [, service, method] = match;
  return services.has(service!) ? `unknown method ${method} of service ${service}` : `unknown service ${service}`;
}

/** The handler for connectNodeAdapter's `fallback`. */
export function createUnimplementedFallback(options: UnimplementedOptions): RequestHandler {
  const services = new Set(options.services);
  return (request, response) => {
    const url = request.url ?? "/";
    const protocol = rpcProtocolOf(request.method, request.headers["content-type"], url);
    if (protocol === undefined) return options.fallback(request, response);
    const message = unimplementedMessage(pathOf(url), services);
    sendRpcError([request, response], protocol, new ConnectError(message, Code.Unimplemented));
  };
}
