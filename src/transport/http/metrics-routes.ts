// /metrics: its answer on the API port, and the handler of a port that
// serves only /metrics (METRICS_PORT), where a flood of scrapes cannot reach
// the callers.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger, Metrics, MetricsScrape } from "../../observability/index.js";
import { type Call, pathOf, type RequestAndResponse, type RequestHandler } from "../node-http/index.js";
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
    const exchange: RequestAndResponse = [request, response];
    if (path !== "/metrics") return sendError(exchange, "", new ConnectError("no such route", Code.NotFound));
    if (method !== "GET" && method !== "HEAD") {
      const error = new ConnectError(`method ${method} is not allowed; use GET`, Code.Unimplemented);
      return sendError(exchange, "", error, { headers: { allow: "GET, HEAD" }, status: 405 });
    }
    options.scrape().then(
      (text) => sendBytes(exchange, 200, text, { "content-type": options.contentType, "cache-control": "no-store" }),
      (error: unknown) => {
        options.logger.error("route failed", { path, error });
        sendError(exchange, "", error);
      },
    );
  };
}

/** The /metrics text of the API port. */
export async function answerMetrics(call: Call, scrape: MetricsScrape, metrics: Metrics): Promise<void> {
  const text = await scrape();
  sendBytes(call.exchange(), 200, text, { "content-type": metrics.registry.contentType, "cache-control": "no-store" });
}
