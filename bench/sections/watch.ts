// Watch streams at scale, on a service of its own with the watch and stream
// bounds raised: N idle gRPC watches of one cached key (usage.api-counts)
// from a client process of their own (bench/watch-client.mjs), then the
// service's memory per idle stream (RSS from /metrics, heap and external
// after a full GC), and the time from the POST of one row to the import
// route until the last of the N streams has the refreshed result, timed in
// the client, with the warehouse queries that refresh cost.
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { create, toBinary } from "@bufbuild/protobuf";
import { GetApiCountsRequestSchema, UsageService } from "../../src/gen/usage/v1/usage_pb.js";
import { memoryAfterGc, memoryProbeArgs } from "../cache-forms.js";
import type { Section } from "../context.js";
import { startWatchClient } from "../watch-driver.js";

const endpoint = "usage.api-counts";
/** Streams opened and closed first, so that the memory measured is the streams', not code warming up. */
const warmUpStreams = 100;

/** An edge_logs line of `project` a second ago: it changes the project's hourly api-counts. */
function importedLine(project: string): string {
  const path = "/rest/v1/bench-watch";
  return JSON.stringify({
    id: randomUUID(),
    timestamp: new Date(Date.now() - 1000).toISOString(),
    event_message: `GET | 200 | ${path}`,
    project,
    metadata: [
      {
        request: [{ method: "GET", path, url: `https://${project}.supabase.co${path}` }],
        response: [{ status_code: 200 }],
      },
    ],
  });
}

export const watchSection: Section = {
  name: "watch",
  async run(context, report) {
    const streams = context.smoke ? 500 : 10_000;
    context.progress(`watch: ${streams} idle watch streams of one key, then one refresh`);
    const file = context.path("watch-memory.json");
    const bound = String(streams + warmUpStreams);
    const service = await context.startService(
      {
        ...context.serviceEnv("watch"),
        // One client address holds every stream: its bounds must not be what is measured.
        MAX_WATCH_STREAMS: bound,
        MAX_WATCH_STREAMS_PER_CALLER: bound,
        MAX_WATCH_STREAMS_PER_ADDRESS: bound,
        MAX_STREAMS_PER_ADDRESS: bound,
        MAX_UNSENT_BYTES_PER_ADDRESS: String(2 ** 30),
        BENCH_MEMORY_FILE: file,
      },
      { nodeArgs: memoryProbeArgs },
    );
    const metrics = async () => {
      await sleep(1100); // /metrics renders at most once a second: a read sooner gets the last one again
      const text = await (await fetch(`${service.url}/metrics`)).text();
      const value = (pattern: string) => Number(new RegExp(`^${pattern} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
      return {
        rss: value("process_resident_memory_bytes"),
        queries: value(`sqe_warehouse_query_duration_seconds_count\\{endpoint="${endpoint}"\\}`),
      };
    };
    const memory = async () => {
      const afterGc = await memoryAfterGc(service.pid, file);
      return { ...afterGc, rss: (await metrics()).rss };
    };
    const method = UsageService.method.watchApiCounts;
    const client = startWatchClient({
      url: service.url,
      path: `/${UsageService.typeName}/${method.name}`,
      key: context.key,
      request: toBinary(
        GetApiCountsRequestSchema,
        create(GetApiCountsRequestSchema, { project: context.project, interval: "hourly" }),
      ),
    });
    try {
      await client.open(warmUpStreams);
      await client.close();
      await sleep(500);
      const before = await memory();
      const opened = await client.open(streams);
      await sleep(1000); // idle: every first message written and its buffers let go
      const after = await memory();
      const queriesBefore = (await metrics()).queries;
      const refresh = await client.refresh(`${service.url}/api/import/edge_logs`, importedLine(context.project));
      const queries = (await metrics()).queries - queriesBefore;
      await client.close();

      const rssPerStream = (after.rss - before.rss) / streams;
      const heldPerStream = (after.heapUsed + after.external - before.heapUsed - before.external) / streams;
      report.results.watch = { streams, opened, before, after, rssPerStream, heldPerStream, refresh, queries };
      const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
      report.rows.push(
        {
          measure: `watch: memory per idle stream, ${streams} streams, bytes of RSS`,
          service: rssPerStream.toFixed(0),
          baseline: `RSS ${mib(before.rss)} before, ${mib(after.rss)} with the streams open`,
          ratio: `heap + external after a full GC: ${heldPerStream.toFixed(0)} a stream`,
          goal: "< 10240",
          met: rssPerStream < 10_240 ? "yes" : "no",
        },
        {
          measure: `watch: one refresh to ${streams} watchers, ms`,
          service: refresh.refreshMs.toFixed(0),
          baseline: `POST answered in ${refresh.postMs.toFixed(0)}; client CPU ${refresh.clientCpuMs.toFixed(0)}; ${streams} streams opened over ${opened.connections} connections in ${opened.ms.toFixed(0)}`,
          ratio: `${queries} warehouse ${queries === 1 ? "query" : "queries"} for the refresh`,
          goal: "< 1000, one warehouse query",
          met: refresh.refreshMs < 1000 && queries === 1 ? "yes" : "no",
        },
      );
    } finally {
      await client.stop();
      await service.stop();
    }
  },
};
