// The miss path, on a service of its own before any load has grown its heap:
// logs.all (never cached) by GET against the same SQL through
// @clickhouse/client directly, and the HTTP round trip alone (a bare
// node:http server replaying the service's answer). GETs go through node:http
// with one kept-alive socket: fetch adds a cost of its own per call, which is
// the client's, not the service's. On this kind of VM a round trip after an
// idle moment costs far more than one made back to back, and every miss comes
// after such a wait, so the round trip alone is measured right after a direct
// call too. Figures: docs/performance.md, "Misses".
import { Agent, request as httpRequest } from "node:http";
import { createClient as createClickHouseClient } from "@clickhouse/client";
import { createChdbConnection } from "chdb/connection";
import { readSavedQuerySql, toDateTime64Param } from "../../src/warehouse/index.js";
import { captureAnswer, writeCaptureFile } from "../capture.js";
import type { Section } from "../context.js";
import { startBareServers } from "../processes.js";
import { median } from "../report.js";
import { wireBytes } from "../wire-bytes.js";

/** A GET over `agent`'s kept-alive socket; rejects on a status other than 200. */
function httpGet(agent: Agent, target: string, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(target, { agent, headers }, (response) => {
      response.resume();
      response.on("end", () =>
        response.statusCode === 200 ? resolve() : reject(new Error(`GET ${target} answered ${response.statusCode}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

export const missPathSection: Section = {
  name: "miss-path",
  async run(context, report) {
    const samples = context.smoke ? 30 : 300;
    const service = await context.startService(context.serviceEnv("miss-service"));
    const headers = { "x-api-key": context.key };
    const path = `/api/endpoints/logs.all?project=${context.project}&project_tier=PRO`;
    const captureFile = context.path("logs-answer.json");
    writeCaptureFile(captureFile, [await captureAnswer(service.url, { http: "1.1", method: "GET", path, headers })]);
    const bare = await startBareServers(captureFile);
    const bareUrl = bare.url("1.1");

    context.progress(`miss path, ${samples} sequential requests each`);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const direct = createClickHouseClient({
      connection: createChdbConnection({ path: context.freshData("miss-direct") }) as never,
    });
    const sql = readSavedQuerySql("logs.all");
    const directCall = async () => {
      const result = await direct.query({
        query: sql,
        format: "JSONEachRow",
        query_params: {
          project: context.project,
          project_tier: "PRO",
          iso_timestamp_start: null,
          iso_timestamp_end: null,
          cursor_id: null,
          cursor_timestamp: null,
          // The bench's key is an API_KEYS key, which reads unmasked rows.
          unmasked: 1,
          now: toDateTime64Param(Date.now()),
        },
        clickhouse_settings: {
          limit: "1000",
          max_execution_time: 30,
          date_time_output_format: "iso",
          output_format_json_quote_64bit_integers: 0,
        },
      });
      await result.json();
    };
    const times = { direct: [] as number[], service: [] as number[], hop: [] as number[] };
    const timed = async (into: number[], call: () => Promise<unknown>) => {
      const t = performance.now();
      await call();
      into.push(performance.now() - t);
    };
    // Strictly alternating, so each engine has been idle for about one call of
    // the other when its turn comes. (With a bare GET between two direct calls,
    // half the direct calls found their engine just busy and ran faster, which
    // counted against the service.)
    for (let i = 0; i < samples; i++) {
      await timed(times.direct, directCall);
      await timed(times.service, () => httpGet(agent, `${service.url}${path}`, headers));
    }
    // The round trip alone, in the same conditions: each GET right after a direct call.
    for (let i = 0; i < samples; i++) {
      await directCall();
      await timed(times.hop, () => httpGet(agent, `${bareUrl}${path}`, {}));
    }
    agent.destroy();
    await direct.close();
    const logsBytes = await wireBytes(`${service.url}${path}`, headers);
    await Promise.all([service.stop(), bare.stop()]);

    const overheadMs = median(times.service) - median(times.direct);
    report.results.missPath = {
      serviceMedianMs: median(times.service),
      directMedianMs: median(times.direct),
      overheadMs,
      httpRoundTripMedianMs: median(times.hop),
    };
    report.results.logsWireBytes = logsBytes;
    report.rows.push(
      {
        measure: "miss GET logs.all median ms",
        service: median(times.service).toFixed(2),
        baseline: `${median(times.direct).toFixed(2)} direct @clickhouse/client`,
        ratio: `${overheadMs >= 0 ? "+" : ""}${overheadMs.toFixed(2)} ms`,
        goal: "< 1 ms overhead",
        met: overheadMs < 1 ? "yes" : "no",
      },
      {
        measure: "logs.all (100 rows) body bytes on the wire, gzip / br",
        service: `${logsBytes.gzip} / ${logsBytes.br}`,
        baseline: `${logsBytes.identity} uncompressed`,
        ratio: `${(logsBytes.gzip / logsBytes.identity).toFixed(2)} / ${(logsBytes.br / logsBytes.identity).toFixed(2)}`,
        goal: "(context)",
        met: "",
      },
      {
        measure: "HTTP round trip alone, median ms",
        service: median(times.hop).toFixed(2),
        baseline: "bare node:http, same bytes, after a direct call",
        ratio: "",
        goal: "(context)",
        met: "",
      },
    );
  },
};
