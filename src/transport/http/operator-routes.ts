// The routes of operators and their tools: /healthz answers while the
// process serves, /readyz while the service can answer queries (its schema in
// place and the warehouse reachable), and /metrics, on the API port or on a
// port that serves only it (METRICS_PORT), where a flood of scrapes cannot
// reach the callers.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger, Metrics, MetricsScrape } from "../../observability/index.js";
import { type Call, pathOf, type RequestAndResponse, type RequestHandler } from "../node-http/index.js";
import { sendError } from "./error-body.js";
import { sendBytes, sendJson } from "./respond.js";

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

/** A probe's answer is of this moment: no cache may keep it (a kept "ready" would outlive an outage). */
const noStore = { "cache-control": "no-store" };

/** GET /healthz: the process serves. */
export function answerHealth(call: Call): void {
  sendJson(call.exchange(), 200, { status: "ok" }, noStore);
}

/** GET /readyz: 200 when `ready` says so, 503 when it says not or fails. */
export async function answerReadiness(call: Call, ready: () => Promise<boolean>): Promise<void> {
  const isReady = await ready().catch(() => false);
  sendJson(call.exchange(), isReady ? 200 : 503, { status: isReady ? "ready" : "warehouse unavailable" }, noStore);
}
