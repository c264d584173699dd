// Health and readiness for load balancers and orchestrators: /healthz
// answers while the process serves, /readyz while the service can answer
// queries (its schema in place and the warehouse reachable).
import type { Call } from "../node-http/index.js";
import { sendJson } from "./respond.js";

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
