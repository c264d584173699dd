// What the estimate of a miss costs and saves (docs/usage-accounting.md,
// "Estimates and dry runs"), on services of their own: a call past the rows
// limit refused by the engine once it has read up to the limit (the same SQL
// through @clickhouse/client directly, the "before") against the service's
// refusal by the estimate, first with the estimate asked of the warehouse and
// again with it kept under the result's key; and an accepted uncached miss
// with the estimate (a service with the limit) and without (the same service
// without one), beside the same SQL directly and EXPLAIN ESTIMATE alone.
// Each round takes the median of its samples, strictly alternating between
// the calls as the miss path does; the rows give the median of the rounds'
// medians and their interquartile range. Rows: docs/performance.md.
import { Agent, request as httpRequest } from "node:http";
import { createClient as createClickHouseClient } from "@clickhouse/client";
import { createChdbConnection } from "chdb/connection";
import { readSavedQuerySql, toDateTime64Param } from "../../src/warehouse/index.js";
import type { Section } from "../context.js";
import { median } from "../report.js";
import { quartile } from "../rounds.js";

/** The rows limit of the service that estimates: the demo set's daily window is past it, its hourly one within. */
const rowsLimit = 30_000;
/** A saved query with no sunset, whose `project` is a URL pattern: every demo URL matches "supabase". */
const savedQuery = "usage.api-counts.v2";
const matchAll = "supabase";

/** A GET over `agent`'s kept-alive socket; rejects unless it answers `status`. */
function httpGet(agent: Agent, target: string, headers: Record<string, string>, status: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(target, { agent, headers }, (response) => {
      response.resume();
      response.on("end", () =>
        response.statusCode === status
          ? resolve()
          : reject(new Error(`GET ${target} answered ${response.statusCode}, not ${status}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

/** The measures of one sample, in the order they are taken. */
const measures = [
  "directRefused",
  "refusedEstimated",
  "refusedKept",
  "directAccepted",
  "missWithEstimate",
  "missWithoutEstimate",
  "directEstimate",
] as const;
type Measure = (typeof measures)[number];

/** The median of the rounds' medians and their quartiles, in ms. */
interface Figure {
  median: number;
  q1: number;
  q3: number;
}

const figureOf = (roundMedians: number[]): Figure => ({
  median: median(roundMedians),
  q1: quartile(roundMedians, 0.25),
  q3: quartile(roundMedians, 0.75),
});

const shown = (f: Figure, rounds: number) =>
  `${f.median.toFixed(2)} (IQR ${f.q1.toFixed(2)}–${f.q3.toFixed(2)}, ${rounds} rounds)`;

export const estimatesSection: Section = {
  name: "estimates",
  async run(context, report) {
    const samples = context.smoke ? 3 : 20;
    const rounds = context.rounds;
    const limited = await context.startService({
      ...context.serviceEnv("estimates-limited"),
      MAX_ROWS_TO_READ: String(rowsLimit),
    });
    const unlimited = await context.startService(context.serviceEnv("estimates-unlimited"));
    const headers = { "x-api-key": context.key };
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const direct = createClickHouseClient({
      connection: createChdbConnection({ path: context.freshData("estimates-direct") }) as never,
    });
    const sql = readSavedQuerySql(savedQuery).trimEnd();
    // Settings in the query text, as the executor sends them: the embedded connection keeps clickhouse_settings.
    const directQuery = async (interval: string, settings: string) => {
      const params = { project: matchAll, interval, now: toDateTime64Param(Date.now()) };
      const result = await direct.query({
        query: `${sql}\nSETTINGS ${settings}`,
        format: "JSON",
        query_params: params,
      });
      await result.json();
    };
    const output =
      "max_execution_time = 30, date_time_output_format = 'iso', output_format_json_quote_64bit_integers = 0";
    const directRefused = () =>
      directQuery("daily", `limit = 1001, max_rows_to_read = ${rowsLimit}, ${output}`).then(
        () => Promise.reject(new Error(`the direct daily query was not refused at ${rowsLimit} rows`)),
        (error: { code?: string }) => (error.code === "158" ? undefined : Promise.reject(error)),
      );
    const directEstimate = async () => {
      const params = { project: matchAll, interval: "daily", now: toDateTime64Param(Date.now()) };
      const query = `EXPLAIN ESTIMATE\n${sql}\nSETTINGS max_execution_time = 5`;
      await (await direct.query({ query, format: "JSON", query_params: params })).json();
    };
    let fresh = 0;
    // A pattern matching every URL, new each time: a key of its own, so nothing cached or kept answers it.
    const freshPattern = () => encodeURIComponent(`${matchAll}|zz${fresh++}`);
    const target = (base: string, pattern: string, interval: string) =>
      `${base}/api/endpoints/${savedQuery}?project=${pattern}&interval=${interval}`;
    const calls: Record<Measure, () => Promise<void>> = {
      directRefused,
      refusedEstimated: () => httpGet(agent, target(limited.url, freshPattern(), "daily"), headers, 429),
      refusedKept: () => httpGet(agent, target(limited.url, matchAll, "daily"), headers, 429),
      directAccepted: () => directQuery("hourly", `limit = 1001, ${output}`),
      missWithEstimate: () => httpGet(agent, target(limited.url, freshPattern(), "hourly"), headers, 200),
      missWithoutEstimate: () => httpGet(agent, target(unlimited.url, freshPattern(), "hourly"), headers, 200),
      directEstimate,
    };

    context.progress(`estimates, ${rounds} rounds of ${samples} samples of ${measures.length} calls`);
    await calls.refusedKept(); // its estimate kept from here on
    const roundMedians = Object.fromEntries(measures.map((m) => [m, [] as number[]])) as Record<Measure, number[]>;
    for (let round = 0; round < rounds; round++) {
      const times = Object.fromEntries(measures.map((m) => [m, [] as number[]])) as Record<Measure, number[]>;
      for (let i = 0; i < samples; i++) {
        for (const measure of measures) {
          const t = performance.now();
          await calls[measure]();
          times[measure].push(performance.now() - t);
        }
      }
      for (const measure of measures) roundMedians[measure].push(median(times[measure]));
    }
    agent.destroy();
    await direct.close();
    await Promise.all([limited.stop(), unlimited.stop()]);

    const f = Object.fromEntries(measures.map((m) => [m, figureOf(roundMedians[m])])) as Record<Measure, Figure>;
    report.results.estimates = { savedQuery, rowsLimit, rounds, samplesPerRound: samples, figuresMs: f };
    const minus = (a: Figure, b: Figure) => {
      const d = a.median - b.median;
      return `${d >= 0 ? "+" : ""}${d.toFixed(2)} ms`;
    };
    const refusedBaseline = `${shown(f.directRefused, rounds)} direct, refused by the engine at the limit`;
    report.rows.push(
      {
        measure: `refused call past ${rowsLimit} rows (${savedQuery} daily) ms, estimate asked`,
        service: shown(f.refusedEstimated, rounds),
        baseline: refusedBaseline,
        ratio: minus(f.refusedEstimated, f.directRefused),
        goal: "(context)",
        met: "",
      },
      {
        measure: "refused call again ms, estimate kept under the result's key",
        service: shown(f.refusedKept, rounds),
        baseline: refusedBaseline,
        ratio: minus(f.refusedKept, f.directRefused),
        goal: "(context)",
        met: "",
      },
      {
        measure: `accepted uncached miss (${savedQuery} hourly) ms, with the estimate`,
        service: shown(f.missWithEstimate, rounds),
        baseline: `${shown(f.missWithoutEstimate, rounds)} without (no rows limit); direct ${f.directAccepted.median.toFixed(2)}`,
        ratio: minus(f.missWithEstimate, f.missWithoutEstimate),
        goal: "(context)",
        met: "",
      },
      {
        measure: "EXPLAIN ESTIMATE alone (daily), direct ms",
        service: shown(f.directEstimate, rounds),
        baseline: `${shown(f.directAccepted, rounds)} the hourly query, direct`,
        ratio: "",
        goal: "(context)",
        met: "",
      },
    );
  },
};
