// The warehouse shared between keys: a quiet key's uncached logs.all calls,
// alone and beside a noisy key that keeps 8 calls of the costliest
// usage.api-counts patterns the parameter rules let through in flight, each
// pattern new so that the cache never answers it.
import { Agent, request as httpRequest } from "node:http";

/** The costliest patterns found within the rules (ASCII, no Unicode classes, at most 1,024 characters). */
export const costlyPatterns = [
  "((a{10}){10}){10}",
  "(((\\S{10}){10}){10})",
  "(?s).{1000}",
  "[^/]{1000}",
  `(${Array.from({ length: 60 }, (_, i) => `x${String(i).padStart(2, "0")}`).join("|")}){100}`,
];

export interface QuietLoad {
  calls: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers other than 200, by status. */
  refused: Record<string, number>;
}

export interface NoisyLoad {
  calls: number;
  /** Answers by status. */
  statuses: Record<string, number>;
  /** The slowest pattern's median time per call, ms. */
  medianMs: number;
}

function get(agent: Agent, url: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent, headers: { "x-api-key": key } }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** One quiet caller: uncached logs.all calls one after another for `seconds`, each for another project. */
export async function quietLoad(url: string, key: string, projects: string[], seconds: number): Promise<QuietLoad> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const refused: Record<string, number> = {};
  const end = performance.now() + seconds * 1000;
  for (let i = 0; performance.now() < end; i++) {
    const started = performance.now();
    const status = await get(
      agent,
      `${url}/api/endpoints/logs.all?project=${projects[i % projects.length]}&project_tier=PRO`,
      key,
    );
    latencies.push(performance.now() - started);
    if (status !== 200) refused[status] = (refused[status] ?? 0) + 1;
    await new Promise((r) => setTimeout(r, 20)); // a dashboard's pace, not a load
  }
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { calls: latencies.length, p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99), refused };
}

/** The noisy caller: `concurrency` loops of costly usage.api-counts calls until `stop` resolves. */
export async function noisyLoad(
  url: string,
  key: string,
  concurrency: number,
  stop: Promise<void>,
): Promise<NoisyLoad> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const statuses: Record<string, number> = {};
  const times: number[] = [];
  let stopped = false;
  void stop.then(() => (stopped = true));
  let sequence = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (!stopped) {
        const n = sequence++;
        // A new alternative every call, so the result cache never answers.
        const pattern = `${costlyPatterns[worker % costlyPatterns.length]}|q${n}q`;
        const started = performance.now();
        const status = await get(
          agent,
          `${url}/api/endpoints/usage.api-counts?project=${encodeURIComponent(pattern)}&interval=daily`,
          key,
        );
        times.push(performance.now() - started);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  agent.destroy();
  times.sort((a, b) => a - b);
  return { calls: times.length, statuses, medianMs: percentile(times, 0.5) };
}
