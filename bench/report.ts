// What the bench prints and keeps: the rows of its table, the figures behind
// them, and bench/results/latest.json (smoke.json for a smoke run,
// partial.json for a run of some sections).
import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";

/** One line of the table. */
export interface Row {
  measure: string;
  service: string;
  baseline: string;
  ratio: string;
  /** The goal, or "(context)" for a figure that has none. */
  goal: string;
  /** "yes" or "no" against the goal; "" for context. */
  met: string;
}

/** One line of the cache-hit table: a call made to the service and to its bare server, over the rounds. */
export interface HitRow {
  /** The call, its connections and streams. */
  call: string;
  /** Calls a second of the service and of its bare server in the round whose ratio is the median (context). */
  service: string;
  bare: string;
  /** Median of the rounds' CPU ratios (bare CPU µs a call / the service's). */
  ratio: string;
  /** Half the rounds' interquartile range, and their range. */
  spread: string;
  /** Median CPU microseconds per call of each server's process: "service / bare". */
  cpu: string;
  goal: string;
  /** "yes", "no", or "not judged" and why. */
  met: string;
}

/** The table's rows, the cache-hit table's and, by section, the figures behind them. */
export interface Report {
  rows: Row[];
  hitRows: HitRow[];
  results: Record<string, unknown>;
}

export function createReport(): Report {
  return { rows: [], hitRows: [], results: {} };
}

/** `cells` under `head` as a Markdown table. */
function markdown(head: string[], cells: string[][]): string {
  const lines = [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`];
  for (const row of cells) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}

/** The rows as a Markdown table. */
export function markdownTable(rows: Row[]): string {
  return markdown(
    ["measure", "service", "baseline", "ratio", "goal", "met"],
    rows.map((r) => [r.measure, r.service, r.baseline, r.ratio, r.goal, r.met]),
  );
}

/** The cache-hit rows as a Markdown table. */
export function hitTable(rows: HitRow[]): string {
  return markdown(
    [
      "cache hit",
      "service calls/s",
      "bare calls/s",
      "CPU ratio",
      "interquartile range",
      "CPU µs a call, service / bare",
      "goal",
      "met",
    ],
    rows.map((r) => [r.call, r.service, r.bare, r.ratio, r.spread, r.cpu, r.goal, r.met]),
  );
}

/** The median of `values` (the upper one of an even count); 0 for none. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * A ratio set against its goal (at least `goal`), with two decimals, or three
 * where two would round it onto the other side of the goal: 0.6969 against
 * 0.7 reads "0.697", not "0.70" beside "no".
 */
export function ratioAgainst(ratio: number, goal: number): string {
  const short = ratio.toFixed(2);
  return Number(short) >= goal === ratio >= goal ? short : ratio.toFixed(3);
}

/** Numbers with `digits` decimals, comma-separated. */
export function list(values: number[], digits = 2): string {
  return values.map((v) => v.toFixed(digits)).join(", ");
}

export interface RunSettings {
  seconds: number;
  smoke: boolean;
  h2load: string;
  sections: string[];
  /** Cache-hit rounds and the seconds of each of their turns. */
  rounds: number;
  turnSeconds: number;
  /** Where h2load and the servers it loads ran (bench/pinning.ts). */
  pinning: string;
  /** Node options every service of the run was started with (BENCH_NODE_ARGS). */
  serviceNodeArgs: string[];
  /** Whether only some sections ran (`--only`), or the service with BENCH_NODE_ARGS: its figures are not a full run's. */
  partial: boolean;
}

/** The results file of a run: latest.json only for a full run, which docs/performance.md reports. */
export function resultsFileOf(settings: Pick<RunSettings, "smoke" | "partial">): string {
  return settings.smoke ? "smoke.json" : settings.partial ? "partial.json" : "latest.json";
}

/** Writes the report to bench/results/ under `root`, prints the machine line and the tables on stdout. */
export function writeReport(report: Report, root: string, settings: RunSettings): void {
  const machine = {
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    ...settings,
  };
  writeFileSync(
    join(root, "bench/results", resultsFileOf(settings)),
    `${JSON.stringify({ date: new Date().toISOString(), machine, results: report.results, table: report.rows, hitTable: report.hitRows }, null, 2)}\n`,
  );
  console.log(
    `\nmachine: ${machine.cpus} cores (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node}, ${settings.h2load}; ${settings.seconds} s per load${settings.serviceNodeArgs.length > 0 ? `; service started with ${settings.serviceNodeArgs.join(" ")}` : ""}${settings.smoke ? " (smoke run: not figures to read)" : ""}\n`,
  );
  if (report.rows.length > 0) console.log(markdownTable(report.rows));
  if (report.hitRows.length > 0)
    console.log(
      `${report.rows.length > 0 ? "\n" : ""}cache hits: ${settings.rounds} rounds of ${settings.turnSeconds} s a turn on each server; ${settings.pinning}\n\n${hitTable(report.hitRows)}`,
    );
}
