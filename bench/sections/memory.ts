// Memory of a service after many cached requests over many keys, with the
// cache's bounds holding: resident memory before and after, and its growth
// per entry against the bytes the byte bound counts. The service is first
// run under a load of hits on one key, so that the growth measured is the
// cache's, not that of a heap and code still warming up.
import type { Section } from "../context.js";
import { runH2load } from "../h2load.js";

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
  },
};
