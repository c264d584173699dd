// Plain HTTP routes outside Connect: health and readiness. Anything else is a
// JSON 404 in the error format of CONTRACT.md section 4.
import type { ServerResponse } from "node:http";
import type { RequestHandler } from "./single-port-server.js";
import type { Logger } from "../observability/index.js";
import type { Warehouse } from "../warehouse/index.js";

export interface HttpRoutesOptions {
  warehouse: Pick<Warehouse, "client">;
  logger: Logger;
}

type Request = Parameters<RequestHandler>[0];
type Response = Parameters<RequestHandler>[1];

export function createHttpRoutes(options: HttpRoutesOptions) {
  const { warehouse } = options;
  return (request: Request, response: Response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path === "/healthz") return sendJson(response, 200, { status: "ok" });
    if (path === "/readyz") {
      void warehouse.client
        .ping()
        .then((result) =>
          result.success
            ? sendJson(response, 200, { status: "ready" })
            : sendJson(response, 503, { status: "warehouse unavailable" }),
        )
        .catch(() => sendJson(response, 503, { status: "warehouse unavailable" }));
      return;
    }
    sendJson(response, 404, { error: { code: "not_found", message: "no such route", details: [] } });
  };
}

export function sendJson(response: Response, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const bytes = Buffer.from(JSON.stringify(body));
  (response as ServerResponse).writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(bytes.length),
    ...headers,
  });
  (response as ServerResponse).end(bytes);
}
