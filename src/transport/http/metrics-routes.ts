// The handler of a port that serves only /metrics (METRICS_PORT): scrapes
// kept off the API port, where a flood of them cannot reach the callers.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger, MetricsScrape } from "../../observability/index.js";
import { pathOf, type RequestHandler } from "../node-http/index.js";
import { sendError } from "./error-body.js";
import { sendBytes } from "./respond.js";

export interface MetricsRoutesOptions {
  /** The scrape text. */
  scrape: MetricsScrape;
  /** Its content type (the registry's). */
  contentType: string;
  /** Where a failed rendering is logged. */
  logger: Logger;
}

/** GET or HEAD /metrics; anything else 404 (405 for another method on /metrics). */
export function createMetricsRoutes(options: MetricsRoutesOptions): RequestHandler {
  return (request, response) => {
    const path = pathOf(request.url);
    const method = request.method ?? "GET";
    if (path !== "/metrics") return sendError(request, response, "", new ConnectError("no such route", Code.NotFound));
    if (method !== "GET" && method !== "HEAD") {
      const error = new ConnectError(`method ${method} is not allowed; use GET`, Code.Unimplemented);
      return sendError(request, response, "", error, { allow: "GET, HEAD" }, 405);
    }
    options.scrape().then(
      (text) => sendBytes(request, response, 200, text, { "content-type": options.contentType }),
      (error: unknown) => {
        options.logger.error("route failed", { path, error });
        sendError(request, response, "", error);
      },
    );
  };
}
