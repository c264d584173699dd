// Another tenant's cache hits beside 16 MiB imports, on a service of their
// own on the embedded engine: a paced keyed GET load (h2load at a fixed rate,
// each request's start and time logged) alone, then while one key posts 16
// MiB imports into realtime_logs back to back, (a) of valid lines and (b) of
// bad ones (`x\n`). Only the hits that started while an import was running
// count as beside it.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Section, Service } from "../context.js";
import { runH2load } from "../h2load.js";
import type { Report } from "../report.js";

/** The most bytes an import may carry: MAX_IMPORT_BYTES's default. */
const importBytes = 16 * 1024 * 1024;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

interface Hit {
  /** Microseconds since the epoch. */
  startUs: number;
  ms: number;
  ok: boolean;
}

/** h2load's request log: one request a line, "start µs, status, duration µs" tab-separated. */
function readHits(text: string): Hit[] {
  return text
    .split("\n")
    .map((line) => line.split("\t"))
    .filter((fields) => fields.length === 3)
    .map(([start, status, micros]) => ({
      startUs: Number(start),
      ms: Number(micros) / 1000,
      ok: status!.startsWith("2"),
    }));
}

function summary(hits: Hit[]) {
  const ms = hits.map((h) => h.ms).sort((a, b) => a - b);
  return {
    calls: ms.length,
    notOk: hits.filter((h) => !h.ok).length,
    p50Ms: percentile(ms, 0.5),
    p99Ms: percentile(ms, 0.99),
  };
}

/** 16 MiB of realtime_logs lines of `project`, dated a minute ago, each id new. */
function validBody(project: string): string {
  const timestamp = new Date(Date.now() - 60_000).toISOString();
  const lines: string[] = [];
  let bytes = 0;
  for (let n = 0; ; n++) {
    const line = `${JSON.stringify({
      id: randomUUID(),
      timestamp,
      event_message: `bench import line ${n} ${"x".repeat(80)}`,
      metadata: [{ project }],
    })}\n`;
    if (bytes + line.length > importBytes) break;
    lines.push(line);
    bytes += line.length;
  }
  return lines.join("");
}

interface ImportRun {
  /** When each import ran, in microseconds since the epoch. */
  spans: [number, number][];
  statuses: Record<string, number>;
  meanMs: number;
}

/** Posts `body` again and again, one import at a time, until `until` (ms since the epoch). */
async function importsUntil(service: Service, key: string, body: string, until: number): Promise<ImportRun> {
  const spans: [number, number][] = [];
  const statuses: Record<string, number> = {};
  do {
    const start = Date.now();
    const response = await fetch(`${service.url}/api/import/realtime_logs`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/x-ndjson" },
      body,
    });
    await response.arrayBuffer();
    spans.push([start * 1000, Date.now() * 1000]);
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  } while (Date.now() < until);
  const meanMs = spans.reduce((sum, [a, b]) => sum + (b - a) / 1000, 0) / spans.length;
  return { spans, statuses, meanMs };
}

/** The service's event-loop delay since the last scrape of its /metrics, max and p99 in ms. */
async function loopLag(service: Service): Promise<{ maxMs: number; p99Ms: number }> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const seconds = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
  return {
    maxMs: seconds("nodejs_eventloop_lag_max_seconds") * 1000,
    p99Ms: seconds("nodejs_eventloop_lag_p99_seconds") * 1000,
  };
}

export const importBesideHitsSection: Section = {
  name: "import-beside-hits",
  async run(context, report) {
    const seconds = context.seconds;
    context.progress(`cache-hit GETs of one key alone and beside 16 MiB imports of another, ${seconds} s each`);
    const service = await context.startService({
      ...context.serviceEnv("import-beside-hits"),
      API_KEYS: `${context.key},${context.quietKey}`,
    });
    const get = {
      url: `${service.url}/api/endpoints/functions.invocation-stats?project=${context.project}&interval=1hr`,
      clients: 4,
      ratePerClient: 100,
      http1: true,
      headers: { "x-api-key": context.quietKey },
    };
    await runH2load({ ...get, seconds: context.smoke ? 0.5 : 2 }); // fills the cache and warms the path
    const paced = async (name: string, body?: string) => {
      const logFile = context.path(`${name}.log`);
      await loopLag(service); // prom-client starts its event-loop histogram again at each scrape
      const load = runH2load({ ...get, seconds, logFile });
      const imports =
        body === undefined
          ? undefined
          : await new Promise((r) => setTimeout(r, 500)).then(() =>
              importsUntil(service, context.key, body, Date.now() + seconds * 1000 - 1500),
            );
      await load;
      const loop = await loopLag(service);
      const hits = readHits(readFileSync(logFile, "utf8"));
      const during = (hit: Hit) => imports!.spans.some(([a, b]) => hit.startUs >= a && hit.startUs <= b);
      return { hits: summary(imports === undefined ? hits : hits.filter(during)), imports, loop };
    };
    const alone = await paced("hits-alone");
    const valid = await paced("hits-beside-valid-import", validBody(context.project));
    const bad = await paced("hits-beside-bad-import", "x\n".repeat(importBytes / 2));
    await service.stop();
    report.results.importBesideHits = { alone, valid, bad };
    addRows(report, alone, { "valid lines": valid, "bad lines (x\\n)": bad });
  },
};

type Loop = { maxMs: number; p99Ms: number };
type Paced = { hits: ReturnType<typeof summary>; imports?: ImportRun; loop: Loop };

function addRows(report: Report, alone: Paced, beside: Record<string, Paced>) {
  const lag = (loop: Loop) => `loop max ${loop.maxMs.toFixed(0)} ms, p99 ${loop.p99Ms.toFixed(0)} ms`;
  const ms = (s: ReturnType<typeof summary>) =>
    `${s.p99Ms.toFixed(1)} (p50 ${s.p50Ms.toFixed(1)}; ${s.calls} calls, ${s.notOk} not 2xx)`;
  for (const [kind, { hits, imports, loop }] of Object.entries(beside)) {
    report.rows.push({
      measure: `another key's cache-hit GET p99 ms (4 x 100/s) while 16 MiB imports of ${kind} run, one at a time`,
      service: ms(hits),
      baseline: `${ms(alone.hits)} alone (${lag(alone.loop)})`,
      ratio: `${imports!.spans.length} imports, ${JSON.stringify(imports!.statuses)}, mean ${imports!.meanMs.toFixed(0)} ms; ${lag(loop)}`,
      goal: "< 100 ms",
      met: hits.calls > 0 && hits.p99Ms < 100 ? "yes" : "no",
    });
  }
}
