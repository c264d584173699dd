// Memory of a service after many cached requests over many keys, with the
// cache's bounds holding: resident memory before and after, and its growth
// per entry against the bytes the byte bound counts. The service is first
// run under a load of hits on one key, so that the growth measured is the
// cache's, not that of a heap and code still warming up. Then the byte
// bound's truth: heap and external memory after a full GC, above the idle
// level, against the bytes counted, with every form of every entry asked.
import { askEveryForm, type FormsCall, memoryAfterGc, memoryProbeArgs } from "../cache-forms.js";
import type { BenchContext, Section } from "../context.js";
import { runH2load } from "../h2load.js";
import type { Report } from "../report.js";
import { demoProjects } from "../../src/warehouse/index.js";

export const memorySection: Section = {
  name: "memory",
  async run(context, report) {
    const requests = context.smoke ? 2_000 : 100_000;
    const keys = context.smoke ? 200 : 10_000;
    context.progress(`memory: ${requests} requests over ${keys} keys`);
    const service = await context.startService(context.serviceEnv("memory"));
    const metric = async (name: string) => {
      const text = await (await fetch(`${service.url}/metrics`)).text();
      return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
    };
    const headers = { "x-api-key": context.key };
    await runH2load({
      url: `${service.url}/api/endpoints/functions.invocation-stats?project=${context.project}&interval=1hr`,
      seconds: context.smoke ? 1 : 5,
      clients: 16,
      http1: true,
      headers,
    });
    const rssBefore = await metric("process_resident_memory_bytes");
    let sent = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (sent < requests) {
          const i = sent++;
          const path = `/api/endpoints/functions.invocation-stats?project=bench-${i % keys}&interval=1hr`;
          const response = await fetch(`${service.url}${path}`, { headers });
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error(`memory load got ${response.status}`);
        }
      }),
    );
    const rssAfter = await metric("process_resident_memory_bytes");
    const entries = await metric("sqe_cache_entries");
    const cacheBytes = await metric("sqe_cache_bytes");
    await service.stop();
    const rssPerEntry = (rssAfter - rssBefore) / entries;
    const countedPerEntry = cacheBytes / entries;
    report.results.memory = {
      requests,
      keys,
      rssBefore,
      rssAfter,
      cacheEntries: entries,
      cacheBytes,
      rssPerEntry,
      countedPerEntry,
    };
    report.rows.push(
      {
        measure: `RSS after ${requests} requests / ${keys} keys`,
        service: `${(rssAfter / 2 ** 20).toFixed(0)} MiB`,
        baseline: `${(rssBefore / 2 ** 20).toFixed(0)} MiB before`,
        ratio: `${entries} entries, ${(cacheBytes / 1024).toFixed(0)} KiB`,
        goal: "entries <= 10000, bytes <= 256 MiB",
        met: entries <= 10_000 && cacheBytes <= 256 * 2 ** 20 ? "yes" : "no",
      },
      {
        measure: "cache entry: RSS growth per entry, bytes",
        service: rssPerEntry.toFixed(0),
        baseline: `${countedPerEntry.toFixed(0)} counted by the byte bound`,
        ratio: (rssPerEntry / countedPerEntry).toFixed(2),
        goal: "(context: RSS includes the heap's slack)",
        met: "",
      },
    );
    await measureCountedMemory(context, report);
  },
};

/** Calls of `count` distinct keys: every demo project and interval (rows), then projects without rows. */
function formsCalls(count: number): FormsCall[] {
  const intervals = ["5min", "15min", "1hr", "1day", "7day"];
  const calls = demoProjects().flatMap((project) =>
    intervals.map((interval) => ({ project, functionId: "", interval })),
  );
  for (let i = 0; calls.length < count; i++) calls.push({ project: `bench-${i}`, functionId: "", interval: "1hr" });
  return calls.slice(0, count);
}

/**
 * Fills the cache of a probed service with `keys` entries, each asked in every
 * form, and compares heap plus external memory after a full GC, above its
 * level once warmed up, with the growth of the bytes the cache counts.
 */
async function measureCountedMemory(context: BenchContext, report: Report): Promise<void> {
  const keys = context.smoke ? 100 : 2_000;
  context.progress(`memory: every form of ${keys} entries`);
  const file = context.path("memory-probe.json");
  const service = await context.startService(
    { ...context.serviceEnv("memory-forms"), BENCH_MEMORY_FILE: file },
    { nodeArgs: memoryProbeArgs },
  );
  const cacheBytes = async () => {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    return Number(/^sqe_cache_bytes (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
  };
  // Warm-up: code and pools, by every form of the first project's keys, asked again and again.
  const warmUp = 5;
  const calls = formsCalls(warmUp + keys);
  for (let round = 0; round < 10; round++) {
    for (const call of calls.slice(0, warmUp)) await askEveryForm(service.url, context.key, call);
  }
  const idle = await memoryAfterGc(service.pid, file);
  const idleBytes = await cacheBytes();
  let next = warmUp;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < calls.length) await askEveryForm(service.url, context.key, calls[next++]!);
    }),
  );
  const filled = await memoryAfterGc(service.pid, file);
  const counted = (await cacheBytes()) - idleBytes;
  await service.stop();
  const held = filled.heapUsed + filled.external - idle.heapUsed - idle.external;
  const ratio = held / counted;
  report.results.countedMemory = { keys, idle, filled, counted, held, ratio };
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  report.rows.push({
    measure: `cache memory: heap + external above idle / counted bytes, every form of ${keys} entries asked`,
    service: `${mib(held)} (heap ${mib(filled.heapUsed - idle.heapUsed)}, external ${mib(filled.external - idle.external)})`,
    baseline: `${mib(counted)} counted`,
    ratio: ratio.toFixed(2),
    goal: "<= 1.5",
    met: ratio <= 1.5 ? "yes" : "no",
  });
}
