// The explorer's first render, measured by bench/explorer.ts when that file
// is there (it drives a browser; a section of its own so that the bench runs
// without it): its exported function is called with a running service and
// returns the rows it measured. Without the file, the line says it was skipped.
//
// The function: `explorerFirstRender` (or the module's default export, or its
// only exported function), called with `{ url, apiKey, smoke, seconds }`,
// resolving to a Row, Row[] or `{ rows: Row[] }` (bench/report.ts; measure
// and service are enough), or to
// figures that are reported as they are.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Section } from "../context.js";
import { root } from "../processes.js";
import type { Report, Row } from "../report.js";

const file = join(root, "bench/explorer.ts");
const measure = "explorer: first render";

type Measure = (options: { url: string; apiKey: string; smoke: boolean; seconds: number }) => Promise<unknown>;

/** The function bench/explorer.ts exports for the bench, if it exports one. */
function measureOf(module: Record<string, unknown>): Measure | undefined {
  const functions = Object.values(module).filter((v) => typeof v === "function");
  const chosen = module.explorerFirstRender ?? module.default ?? (functions.length === 1 ? functions[0] : undefined);
  return typeof chosen === "function" ? (chosen as Measure) : undefined;
}

type PartialRow = Pick<Row, "measure" | "service"> & Partial<Row>;

const isRow = (value: unknown): value is PartialRow =>
  typeof value === "object" && value !== null && "measure" in value && "service" in value;

function addResult(report: Report, result: unknown): void {
  report.results.explorer = result;
  const rows = Array.isArray(result) ? result : isRow(result) ? [result] : (result as { rows?: unknown })?.rows;
  if (Array.isArray(rows) && rows.every(isRow)) {
    report.rows.push(...rows.map((row) => ({ ratio: "", goal: "(context)", met: "", baseline: "", ...row })));
    return;
  }
  report.rows.push({ measure, service: JSON.stringify(result), baseline: "", ratio: "", goal: "(context)", met: "" });
}

export const explorerSection: Section = {
  name: "explorer",
  async run(context, report) {
    const skipped = (why: string) =>
      report.rows.push({ measure, service: `skipped: ${why}`, baseline: "", ratio: "", goal: "(context)", met: "" });
    if (!existsSync(file)) {
      skipped("bench/explorer.ts is not there");
      return;
    }
    const run = measureOf((await import(pathToFileURL(file).href)) as Record<string, unknown>);
    if (run === undefined) {
      skipped("bench/explorer.ts exports no function to call");
      return;
    }
    context.progress("explorer: first render");
    const service = await context.startService(context.serviceEnv("explorer"));
    try {
      addResult(
        report,
        await run({ url: service.url, apiKey: context.key, smoke: context.smoke, seconds: context.seconds }),
      );
    } finally {
      await service.stop();
    }
  },
};
