// The HTTP/2 streams refused before their handler ran (past their address's
// stream budget, or its unsent bytes already past their bound): whichever
// listener comes after the port's bookkeeping leaves them alone.
import type { ServerHttp2Stream } from "node:http2";
import type { RequestHandler } from "../node-http/index.js";

export interface RefusedStreams {
  /** Marks `stream`, already reset, as refused: its handler is not to run. */
  add(stream: ServerHttp2Stream): void;
  /** Whether `stream` was refused. */
  has(stream: ServerHttp2Stream): boolean;
  /** `handler`, skipped for the requests of refused streams. */
  served(handler: RequestHandler): RequestHandler;
}

/** An empty set of refused streams. */
export function refusedStreams(): RefusedStreams {
  const refused = new WeakSet<ServerHttp2Stream>();
  return {
    add: (stream) => void refused.add(stream),
    has: (stream) => refused.has(stream),
    served: (handler) => (request, response) => {
      // Served only by the HTTP/2 server: each request stands on a stream.
      if (!refused.has((request as unknown as { stream: ServerHttp2Stream }).stream)) handler(request, response);
    },
  };
}
