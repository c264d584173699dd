// The /metrics text is rendered at most once per reuse period, shared by the
// scrapes meanwhile, and a failed rendering is not kept.
import { Counter, Gauge, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createMetricsScrape } from "../../src/observability/index.js";

function counted() {
  const registry = new Registry();
  let renders = 0;
  new Gauge({ name: "renders", help: "renderings", registers: [registry], collect: () => void (renders += 1) });
  const counter = new Counter({ name: "calls_total", help: "calls", registers: [registry] });
  return { registry, counter, renders: () => renders };
}

describe("metrics scrape", () => {
  it("renders once a second at most, the scrapes in between sharing the text", async () => {
    const { registry, counter, renders } = counted();
    let now = 0;
    const scrape = createMetricsScrape({ registry, reuseMs: 1000, now: () => now });
    const [a, b] = await Promise.all([scrape(), scrape()]);
    expect(a).toBe(b);
    counter.inc();
    now = 999;
    expect((await scrape()).toString()).not.toContain("calls_total 1");
    expect(renders()).toBe(1);
    now = 1000;
    expect((await scrape()).toString()).toContain("calls_total 1");
    expect(renders()).toBe(2);
  });

  it("renders again after a rendering that failed", async () => {
    const registry = new Registry();
    let fail = true;
    new Gauge({
      name: "flaky",
      help: "fails once",
      registers: [registry],
      collect() {
        if (fail) throw new Error("source gone");
      },
    });
    const scrape = createMetricsScrape({ registry, now: () => 0 });
    await expect(scrape()).rejects.toThrow("source gone");
    fail = false;
    expect((await scrape()).toString()).toContain("flaky");
  });
});
