// Calls of a service or method the port does not serve, answered in the
// caller's protocol: gRPC and gRPC-Web get UNIMPLEMENTED as a trailers-only
// response (HTTP 200, grpc-status 12), Connect gets its `unimplemented` error.
// Anything else (plain HTTP) goes on to the fallback handler.
import type { RequestHandler } from "../single-port-server.js";

export type RpcProtocol = "grpc" | "grpc-web" | "connect" | "connect-stream";

export interface UnimplementedOptions {
  /** Full names of the services served on the port, to say "unknown method" rather than "unknown service". */
  services: readonly string[];
  /** Handles requests that are not RPC calls (the plain HTTP routes). */
  fallback: RequestHandler;
}

const grpcWeb = /^application\/grpc-web(-text)?(\+|;|$)/i;
const grpc = /^application\/grpc(\+|;|$)/i;
const connectUnary = /^application\/(json|proto)(;|$)/i;
const connectStream = /^application\/connect\+(json|proto)(;|$)/i;

/** The RPC protocol a request speaks, judged from its method, content type and query; undefined for plain HTTP. */
export function rpcProtocolOf(method: string | undefined, contentType: string | undefined, url: string): RpcProtocol | undefined {
  const type = contentType ?? "";
  if (grpcWeb.test(type)) return "grpc-web";
  if (grpc.test(type)) return "grpc";
  if (method === "POST" && connectUnary.test(type)) return "connect";
  if (method === "POST" && connectStream.test(type)) return "connect-stream";
  if (method === "GET" && /[?&]connect=v1(&|$)/.test(url)) return "connect";
  return undefined;
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
    const contentType = request.headers["content-type"];
    const protocol = rpcProtocolOf(request.method, contentType, url);
    if (protocol === undefined) return options.fallback(request, response);
    const queryAt = url.indexOf("?");
    const message = unimplementedMessage(queryAt < 0 ? url : url.slice(0, queryAt), services);
    const { status, headers, body } = answer(protocol, contentType, message);
    request.resume(); // the request body is not needed
    if (body === undefined && "stream" in response) {
      // Trailers-only on HTTP/2: one HEADERS frame that also ends the stream,
      // which gRPC clients read as the status (Node's compatibility API
      // would send the headers and then an empty DATA frame).
      response.stream.respond({ ":status": status, ...headers }, { endStream: true });
      return;
    }
    response.writeHead(status, headers);
    if (body === undefined) response.end();
    else response.end(body);
  };
}

function answer(protocol: RpcProtocol, contentType: string | undefined, message: string) {
  switch (protocol) {
    case "grpc":
    case "grpc-web":
      return {
        status: 200,
        headers: {
          "content-type": contentType ?? `application/${protocol}+proto`,
          "grpc-status": "12",
          "grpc-message": percentEncoded(message),
        },
        body: undefined,
      };
    case "connect": {
      const json = Buffer.from(JSON.stringify({ code: "unimplemented", message }));
      return { status: 501, headers: { "content-type": "application/json", "content-length": String(json.length) }, body: json };
    }
    case "connect-stream": {
      // The end-of-stream message: flags 0b10, a big-endian length, then JSON.
      const json = Buffer.from(JSON.stringify({ error: { code: "unimplemented", message } }));
      const frame = Buffer.alloc(5 + json.length);
      frame.writeUInt8(0b10, 0);
      frame.writeUInt32BE(json.length, 1);
      json.copy(frame, 5);
      return { status: 200, headers: { "content-type": contentType!, "content-length": String(frame.length) }, body: frame };
    }
  }
}

/** grpc-message encoding: printable ASCII but `%` as is, everything else as UTF-8 percent escapes. */
export function percentEncoded(message: string): string {
  return message.replace(/[^\x20-\x24\x26-\x7e]+/g, (run) =>
    [...Buffer.from(run, "utf8")].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
  );
}
