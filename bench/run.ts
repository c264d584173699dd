// `npm run bench`: the service against the platform's own servers and other
// baselines, measured in the same run on this machine, with load from h2load
// in other processes than the servers, on a CPU of its own where there are
// two. Runs its sections in order, prints the tables and writes
// bench/results/latest.json (`--only`, or `BENCH_NODE_ARGS`: partial.json).
// `--smoke` runs a short version (smoke.json).
import { readCommandLine } from "../src/cli/command-line.js";
import { createContext, type Section, serviceNodeArgsFromEnvironment } from "./context.js";
import { checkH2load } from "./h2load.js";
import { describePinning } from "./pinning.js";
import { root, stopAll } from "./processes.js";
import { createReport, writeReport } from "./report.js";
import { cacheHitsSection } from "./sections/cache-hits.js";
import { callLogCostSection } from "./sections/call-log-cost.js";
import { estimatesSection } from "./sections/estimates.js";
import { explorerSection } from "./sections/explorer.js";
import { fairnessSection } from "./sections/fairness.js";
import { importBesideHitsSection } from "./sections/import-beside-hits.js";
import { memorySection } from "./sections/memory.js";
import { metricsFloodSection } from "./sections/metrics-flood.js";
import { missPathSection } from "./sections/miss-path.js";
import { restartSection } from "./sections/restart.js";
import { scaleSection } from "./sections/scale.js";
import { watchSection } from "./sections/watch.js";

/** In the order they run: restarts first, on a machine no load has heated yet. */
const sections: Section[] = [
  restartSection,
  missPathSection,
  estimatesSection,
  cacheHitsSection,
  callLogCostSection,
  metricsFloodSection,
  memorySection,
  fairnessSection,
  importBesideHitsSection,
  scaleSection,
  explorerSection,
  watchSection,
];
const names = sections.map((s) => s.name);

const { values: flags } = readCommandLine({
  usage: `usage: npm run bench [-- --smoke] [-- --only <sections>]

Measures the service against baselines started in the same run (bare node:http
and node:http2 servers sending the service's own bytes, among others), with
h2load as the client (pinned to one CPU, the servers it loads to another,
with taskset, where there are two), and writes bench/results/latest.json
(about twenty minutes). BENCH_SECONDS sets the seconds of each load (default
10, 1 with --smoke); BENCH_ROUNDS the rounds of the cache-hit and estimates
sections (default 15, 3 with --smoke), BENCH_TURN_SECONDS the seconds of each of their
turns (default 2, 0.5 with --smoke); BENCH_NODE_ARGS Node options for every service the bench starts
(space-separated, say "--single-threaded-gc"; none by default; such a run is
written to partial.json).

options:
  --smoke            a short run of every section: not figures to read
  --only <sections>  only these sections, comma-separated, of: ${names.join(", ")}
                     (written to bench/results/partial.json, so latest.json stays a full run)
  -h, --help         print this and exit`,
  options: { smoke: { type: "boolean", default: false }, only: { type: "string" } },
  check: ({ values }) => {
    const unknown = (values.only?.split(",") ?? []).filter((name) => !names.includes(name));
    return unknown.length > 0 ? [`--only takes sections of ${names.join(", ")}, got "${unknown.join(",")}"`] : [];
  },
});
const smoke = flags.smoke;
const settings = {
  smoke,
  seconds: Number(process.env.BENCH_SECONDS ?? (smoke ? 1 : 10)),
  rounds: Number(process.env.BENCH_ROUNDS ?? (smoke ? 3 : 15)),
  turnSeconds: Number(process.env.BENCH_TURN_SECONDS ?? (smoke ? 0.5 : 2)),
  serviceNodeArgs: serviceNodeArgsFromEnvironment(),
};
const chosen = flags.only === undefined ? sections : sections.filter((s) => flags.only!.split(",").includes(s.name));

let h2load: string;
try {
  h2load = checkH2load();
} catch (error) {
  process.stderr.write(`bench: ${(error as Error).message}\n`);
  process.exit(1);
}

try {
  const context = await createContext(settings);
  context.progress(describePinning(context.pinning));
  const report = createReport();
  for (const section of chosen) await section.run(context, report);
  // A run of the service with options of its own is not the service as shipped: not latest.json either.
  const partial = chosen.length < sections.length || settings.serviceNodeArgs.length > 0;
  const pinning = describePinning(context.pinning);
  writeReport(report, root, { ...settings, h2load, pinning, sections: chosen.map((s) => s.name), partial });
} finally {
  // The children must be gone before the data directories are removed at exit.
  await stopAll();
}
