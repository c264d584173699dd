// A keyed cache-hit GET's latency alone and beside a flood of /metrics
// scrapes from other connections, on a service of its own: a paced GET load
// (h2load at a fixed rate, each request's time logged) measured once alone
// and once while an unbounded h2load load asks for /metrics. Context for the
// cost of a scrape on the calls beside it.
import { readFileSync } from "node:fs";
import type { Section } from "../context.js";
import { type H2loadSummary, readRequestLog, runH2load } from "../h2load.js";

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

export const metricsFloodSection: Section = {
  name: "metrics-flood",
  async run(context, report) {
    const seconds = context.seconds;
    context.progress(`keyed GET latency alone and beside a /metrics flood, ${seconds} s each`);
    const service = await context.startService(context.serviceEnv("metrics-flood"));
    const get = {
      url: `${service.url}/api/endpoints/functions.invocation-stats?project=${context.project}&interval=1hr`,
      clients: 4,
      ratePerClient: 100,
      http1: true,
      headers: { "x-api-key": context.key },
    };
    await runH2load({ ...get, seconds: context.smoke ? 0.5 : 2 }); // fills the cache and warms the path
    const paced = async (name: string) => {
      const logFile = context.path(`${name}.log`);
      await runH2load({ ...get, seconds, logFile });
      const { latenciesMs, notOk } = readRequestLog(readFileSync(logFile, "utf8"));
      latenciesMs.sort((a, b) => a - b);
      return {
        calls: latenciesMs.length,
        notOk,
        p50Ms: percentile(latenciesMs, 0.5),
        p99Ms: percentile(latenciesMs, 0.99),
      };
    };
    const alone = await paced("get-alone");
    const flood: Promise<H2loadSummary> = runH2load({
      url: `${service.url}/metrics`,
      seconds: seconds + 2,
      clients: 16,
      http1: true,
    });
    await new Promise((r) => setTimeout(r, 1000)); // the flood is under way
    const beside = await paced("get-beside-flood");
    const scrapes = await flood;
    await service.stop();
    report.results.metricsFlood = { alone, beside, scrapes };
    const ms = (load: typeof alone) =>
      `${load.p99Ms.toFixed(2)} (p50 ${load.p50Ms.toFixed(2)}; ${load.calls} calls, ${load.notOk} not 2xx)`;
    report.rows.push({
      measure: `keyed cache-hit GET p99 ms (${get.clients} x ${get.ratePerClient}/s) beside a /metrics flood (16 connections)`,
      service: ms(beside),
      baseline: `${ms(alone)} alone`,
      ratio: `${(beside.p99Ms / alone.p99Ms).toFixed(2)}; flood: ${scrapes.rps.toFixed(0)} scrapes/s, ${scrapes.statuses["2xx"]} of ${scrapes.done} 2xx`,
      goal: "(context)",
      met: "",
    });
  },
};
