// A noisy key beside a quiet one, on a service of their own with the rate
// limit on: the quiet key's uncached logs.all alone, then beside 8 costly
// usage.api-counts calls of the noisy key always in flight (bench/fairness.ts).
import { demoProjects } from "../../src/warehouse/index.js";
import type { Section } from "../context.js";
import { noisyLoad, quietLoad } from "../fairness.js";

export const fairnessSection: Section = {
  name: "fairness",
  async run(context, report) {
    const seconds = context.smoke ? 2 : 10;
    context.progress(
      `fairness: a quiet key's uncached logs.all, ${seconds} s alone and ${seconds} s beside 8 costly usage.api-counts calls`,
    );
    const service = await context.startService({
      ...context.serviceEnv("fairness"),
      API_KEYS: `${context.key},${context.quietKey}`,
      RATE_LIMIT_PER_SECOND: "100",
    });
    const projects = demoProjects();
    const alone = await quietLoad(service.url, context.quietKey, projects, seconds);
    let stopNoise!: () => void;
    const noise = noisyLoad(service.url, context.key, 8, new Promise<void>((resolve) => (stopNoise = resolve)));
    await new Promise((r) => setTimeout(r, 1000)); // the noisy key's queue is full
    const beside = await quietLoad(service.url, context.quietKey, projects, seconds);
    stopNoise();
    const noisy = await noise;
    await service.stop();
    const refusedBeside = Object.values(beside.refused).reduce((a, b) => a + b, 0);
    report.results.fairness = { alone, beside, noisy };
    report.rows.push({
      measure: "quiet key's uncached logs.all p99 ms beside 8 costly usage.api-counts calls of another key",
      service: `${beside.p99Ms.toFixed(1)} (p50 ${beside.p50Ms.toFixed(1)}; ${beside.calls} calls, ${refusedBeside} not 200)`,
      baseline: `${alone.p99Ms.toFixed(1)} (p50 ${alone.p50Ms.toFixed(1)}) alone`,
      ratio: `noisy: ${noisy.calls} calls, median ${noisy.medianMs.toFixed(0)} ms, ${JSON.stringify(noisy.statuses)}`,
      goal: "< 1000 ms, no 429 or 504",
      met: beside.p99Ms < 1000 && refusedBeside === 0 ? "yes" : "no",
    });
  },
};
