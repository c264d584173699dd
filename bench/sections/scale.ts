// Scale on the embedded engine: each saved query over a small and a large
// table, in a process of its own (bench/scale.ts; one chDB directory per
// process). The large size's median over the small one's is the ratio.
import type { Section } from "../context.js";
import { runToEnd } from "../processes.js";

export const scaleSection: Section = {
  name: "scale",
  async run(context, report) {
    const sizes = context.smoke ? [100_000, 1_000_000] : [1_000_000, 10_000_000];
    context.progress(`scale: each query over ${sizes.join(" and ")} rows of 100 projects`);
    const out = await runToEnd(["--import", "tsx", "bench/scale.ts", sizes.join(","), context.smoke ? "5" : "60"]);
    const scale = JSON.parse(out) as Record<string, Record<string, number>>;
    report.results.scale = scale;
    const [small, large] = sizes.map(String) as [string, string];
    for (const [label, medians] of Object.entries(scale)) {
      const ratio = medians[large]! / medians[small]!;
      const sevenDay = label === "functions.invocation-stats 7day";
      report.rows.push({
        measure: `${label}: median ms at ${large} rows`,
        service: medians[large]!.toFixed(1),
        baseline: `${medians[small]!.toFixed(1)} at ${small} rows`,
        ratio: ratio.toFixed(2),
        goal: sevenDay ? "<= 1.5, <= 20 ms" : "<= 1.5",
        met: ratio <= 1.5 && (!sevenDay || medians[large]! <= 20) ? "yes" : "no",
      });
    }
  },
};
