// The explorer page at GET /: its weight on the wire and its first render in a
// cold Chromium (bench/explorer.ts), against the goals of docs/explorer.md.
// Without Chromium the lines say the section was skipped.
import type { Section } from "../context.js";
import { measureExplorer } from "../explorer.js";

const kilobyte = 1000;

export const explorerSection: Section = {
  name: "explorer",
  async run(context, report) {
    context.progress("explorer: weight and first render in a cold Chromium");
    const service = await context.startService(context.serviceEnv("explorer"));
    try {
      const figures = await measureExplorer({ url: service.url, loads: context.smoke ? 1 : 5 });
      report.results.explorer = figures;
      if (figures === undefined) {
        const skipped = "skipped: no Chromium (apt-get install chromium)";
        report.rows.push({ measure: "explorer", service: skipped, baseline: "", ratio: "", goal: "", met: "" });
        return;
      }
      report.rows.push({
        measure: "explorer: page, script and style on the wire, gzip / br bytes",
        service: `${figures.gzipBytes} / ${figures.brotliBytes}`,
        baseline: "",
        ratio: "",
        goal: "< 150 KB gzip",
        met: figures.gzipBytes < 150 * kilobyte ? "yes" : "no",
      });
      report.rows.push({
        measure: `explorer: cold load to first paint / script run, median ms of ${figures.loads}`,
        service: `${figures.firstPaintMs.toFixed(0)} / ${figures.readyMs.toFixed(0)}`,
        baseline: "",
        ratio: "",
        goal: "< 1000 ms first render",
        met: figures.firstPaintMs < 1000 ? "yes" : "no",
      });
    } finally {
      await service.stop();
    }
  },
};
