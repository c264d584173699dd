// METRICS_PORT moves /metrics off the API port: served on its own port (and
// nothing else there), answered 404 on the API port.
import { afterAll, describe, expect, it } from "vitest";
import { startServiceProcess } from "../../support/service-process.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const dataDir = makeTemporaryDirectory("sqe-metrics-port-");
afterAll(() => removeTemporaryDirectory(dataDir));

describe("METRICS_PORT", () => {
  it("serves /metrics on its own port only", async () => {
    const service = startServiceProcess({
      CHDB_PATH: dataDir,
      PORT: "0",
      METRICS_PORT: "0",
      DEMO_DATA: "0",
      API_KEYS: "metrics-port-key-0123456789",
      LOG_LEVEL: "warn",
    });
    try {
      const url = await service.listening();
      const metricsUrl = /metrics on (http:\S+)\/metrics/.exec(service.output())?.[1];
      expect(metricsUrl).toBeDefined();
      expect(metricsUrl).not.toBe(url);
      const scrape = await fetch(`${metricsUrl}/metrics`);
      expect(scrape.status).toBe(200);
      expect(await scrape.text()).toContain("sqe_requests_total");
      expect((await fetch(`${metricsUrl}/healthz`)).status).toBe(404);
      expect((await fetch(`${url}/metrics`)).status).toBe(404);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      await service.stop();
    }
  }, 120_000);
});
