// `npm run bench`: the service against baselines measured in the same run, on
// this machine, load from other processes than the servers. Prints a table
// and writes bench/results/latest.json. `--smoke` runs a short version.
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, writeFileSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { createClient as createClickHouseClient } from "@clickhouse/client";
import { createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import autocannon from "autocannon";
import { createChdbConnection } from "chdb/connection";
import { GetApiCountsResponseSchema, UsageService } from "../src/gen/usage/v1/usage_pb.js";
import { demoProjects, readSavedQuerySql, toDateTime64Param } from "../src/warehouse/index.js";
import { noisyLoad, quietLoad } from "./fairness.js";
import { readCommandLine } from "../src/cli/command-line.js";
import { temporaryDirectory } from "./temp-directory.js";
import { restartTimes } from "./restart.js";
import { unaryLoad } from "./unary-load.js";
import { wireBytes } from "./wire-bytes.js";

const { values: flags } = readCommandLine({
  usage: `usage: npm run bench [-- --smoke]

Measures the service against baselines started in the same run and writes
bench/results/latest.json (about eight minutes). BENCH_SECONDS sets the
seconds of each load (default 10, 1 with --smoke).

options:
  --smoke      a short run: one round, small samples
  -h, --help   print this and exit`,
  options: { smoke: { type: "boolean", default: false } },
});
const smoke = flags.smoke;
const seconds = Number(process.env.BENCH_SECONDS ?? (smoke ? 1 : 10));
const connections = 64;
const missSamples = smoke ? 30 : 300;
const getRounds = smoke ? 1 : 5;
const warmSeconds = smoke ? 1 : 2;
const memoryRequests = smoke ? 2_000 : 100_000;
const memoryKeys = smoke ? 200 : 10_000;
const key = "bench-key-0123456789";
const quietKey = "bench-quiet-key-0123456789";
const fairnessSeconds = smoke ? 2 : 10;
const restartRuns = smoke ? 3 : 10;
const root = join(import.meta.dirname, "..");
const children: ChildProcess[] = [];

interface Row {
  measure: string;
  service: string;
  baseline: string;
  ratio: string;
  goal: string;
  met: string;
}
const rows: Row[] = [];
const results: Record<string, unknown> = {};

function progress(text: string) {
  process.stderr.write(`bench: ${text}\n`);
}

function startChild(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      const match = ready.exec(output);
      if (match) resolve({ child, match });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited ${code}: ${output.slice(-500)}`)));
  });
}

interface Load {
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

async function getRps(url: string, headers: Record<string, string>, duration: number): Promise<Load> {
  const result = await autocannon({ url, connections, duration, headers });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`load on ${url} got ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  }
  return { rps: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99 };
}

/** A server started for part of the run: its URL, and a stop that resolves once it has exited. */
async function startServer(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  urlOf: (match: RegExpExecArray) => string,
) {
  const { child, match } = await startChild(args, env, ready);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url: urlOf(match),
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/** A GET over `agent`'s kept-alive socket; resolves with the body, rejects on a status other than 200. */
function httpGet(agent: Agent, target: string, headers: Record<string, string>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(target, { agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        response.statusCode === 200
          ? resolve(Buffer.concat(chunks))
          : reject(new Error(`GET ${target} answered ${response.statusCode}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function main() {
  // 1. The demo data set in one directory, copied for the direct-call baseline
  // and kept untouched for the services the cache-hit rounds start.
  const dataDir = temporaryDirectory("sqe-bench-");
  const serviceData = join(dataDir, "service");
  const directData = join(dataDir, "direct");
  const seedCopy = join(dataDir, "seeded");
  progress("seeding the demo data set");
  await new Promise<void>((resolve, reject) => {
    const seed = spawn(process.execPath, ["dist/cli/seed.js"], {
      cwd: root,
      env: { ...process.env, CHDB_PATH: serviceData },
      stdio: "ignore",
    });
    seed.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`seed exited ${code}`))));
  });
  cpSync(serviceData, directData, { recursive: true });
  cpSync(serviceData, seedCopy, { recursive: true });

  // 2. Restart to ready on the loaded data directory, first, on a machine
  // the later loads have not yet heated: \`npm start\` as a user runs it (an
  // up-to-date build skipped), the bundle alone, and the floor.
  progress(`restart to ready: ${restartRuns} starts of each command, in turns`);
  const restartData = join(dataDir, "restart");
  cpSync(seedCopy, restartData, { recursive: true });
  const restartEnv = { PORT: "0", API_KEYS: key, CHDB_PATH: restartData, LOG_LEVEL: "warn" };
  const restarts = await restartTimes(
    [
      { label: "npm", command: "npm", args: ["start"], env: restartEnv },
      { label: "bundle", command: process.execPath, args: ["dist/main.js"], env: restartEnv },
      { label: "floor", command: process.execPath, args: ["bench/baseline-start.mjs", restartData], env: {} },
    ],
    root,
    restartRuns,
  );
  const restartMedians = {
    npm: median(restarts.npm!),
    bundle: median(restarts.bundle!),
    floor: median(restarts.floor!),
  };
  results.restart = { runs: restarts, medians: restartMedians };
  const ms = (values: number[]) => values.map((v) => v.toFixed(0)).join(", ");
  rows.push({
    measure: `restart: \`npm start\` to /readyz 200, median ms of ${restartRuns}`,
    service: `${restartMedians.npm.toFixed(0)} (max ${Math.max(...restarts.npm!).toFixed(0)})`,
    baseline: `${restartMedians.floor.toFixed(0)} Node + chDB opened + one query + node:http (runs: ${ms(restarts.floor!)})`,
    ratio: (restartMedians.npm / restartMedians.floor).toFixed(2),
    goal: "< 2000 ms",
    met: Math.max(...restarts.npm!) < 2000 ? "yes" : "no",
  });
  rows.push({
    measure: "restart: `node dist/main.js` to /readyz 200, median ms",
    service: `${restartMedians.bundle.toFixed(0)} (runs: ${ms(restarts.bundle!)})`,
    baseline: `${restartMedians.floor.toFixed(0)} the same floor`,
    ratio: (restartMedians.bundle / restartMedians.floor).toFixed(2),
    goal: "(context: npm's own start is the difference)",
    met: "",
  });

  // The per-key rate limit would turn most of a load test into 429s.
  const serviceEnv = { PORT: "0", API_KEYS: key, DEMO_DATA: "0", RATE_LIMIT_PER_SECOND: "0", LOG_LEVEL: "warn" };
  const { match } = await startChild(
    ["dist/main.js"],
    { ...serviceEnv, CHDB_PATH: serviceData },
    /listening on (http:\S+)/,
  );
  const url = match[1]!;

  // 3. Miss path, before any load has grown the heap: logs.all (never
  // cached) by GET against the same SQL through @clickhouse/client directly.
  // GETs go through node:http with one kept-alive socket: fetch adds a cost
  // of its own per call, which is the client's, not the service's. A GET of
  // the same bytes from a bare node:http server, also right after a direct
  // call, measures the HTTP round trip alone: on this kind of VM a round trip
  // after an idle moment costs far more than one made back to back, and
  // every miss comes after such a wait. (The service reads the warehouse's
  // answer faster than ResultSet.json() does, so its overhead can come out
  // below the round trip alone.) Figures: docs/performance.md, "Misses".
  const project = demoProjects()[0]!;
  const headers = { "x-api-key": key };
  const missPath = `/api/endpoints/logs.all?project=${project}&project_tier=PRO`;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const logsBodyFile = join(dataDir, "logs-body.json");
  writeFileSync(logsBodyFile, await httpGet(agent, `${url}${missPath}`, headers));
  const { match: logsBarePort } = await startChild(
    ["--import", "tsx", "bench/baseline-http.ts", logsBodyFile],
    {},
    /port (\d+)/,
  );
  progress(`miss path, ${missSamples} sequential requests each`);
  const direct = createClickHouseClient({ connection: createChdbConnection({ path: directData }) as never });
  const sql = readSavedQuerySql("logs.all");
  const directCall = async () => {
    const result = await direct.query({
      query: sql,
      format: "JSONEachRow",
      query_params: {
        project,
        project_tier: "PRO",
        iso_timestamp_start: null,
        iso_timestamp_end: null,
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
  const directTimes: number[] = [];
  const serviceTimes: number[] = [];
  const hopTimes: number[] = [];
  const timed = async (times: number[], call: () => Promise<unknown>) => {
    const t = performance.now();
    await call();
    times.push(performance.now() - t);
  };
  // Strictly alternating, so each engine has been idle for about one call of
  // the other when its turn comes. (With a bare GET between two direct calls,
  // half the direct calls found their engine just busy and ran faster, which
  // counted against the service.)
  for (let i = 0; i < missSamples; i++) {
    await timed(directTimes, directCall);
    await timed(serviceTimes, () => httpGet(agent, `${url}${missPath}`, headers));
  }
  // The round trip alone, in the same conditions: each GET right after a direct call.
  for (let i = 0; i < missSamples; i++) {
    await directCall();
    await timed(hopTimes, () => httpGet(agent, `http://127.0.0.1:${logsBarePort[1]}${missPath}`, {}));
  }
  await direct.close();
  const overheadMs = median(serviceTimes) - median(directTimes);
  results.missPath = {
    serviceMedianMs: median(serviceTimes),
    directMedianMs: median(directTimes),
    overheadMs,
    httpRoundTripMedianMs: median(hopTimes),
  };
  rows.push({
    measure: "miss GET logs.all median ms",
    service: median(serviceTimes).toFixed(2),
    baseline: `${median(directTimes).toFixed(2)} direct @clickhouse/client`,
    ratio: `+${overheadMs.toFixed(2)} ms`,
    goal: "< 1 ms overhead",
    met: overheadMs < 1 ? "yes" : "no",
  });
  const logsBytes = await wireBytes(`${url}${missPath}`, headers);
  results.logsWireBytes = logsBytes;
  rows.push({
    measure: "logs.all (100 rows) body bytes on the wire, gzip / br",
    service: `${logsBytes.gzip} / ${logsBytes.br}`,
    baseline: `${logsBytes.identity} uncompressed`,
    ratio: `${(logsBytes.gzip / logsBytes.identity).toFixed(2)} / ${(logsBytes.br / logsBytes.identity).toFixed(2)}`,
    goal: "(context)",
    met: "",
  });
  rows.push({
    measure: "HTTP round trip alone, median ms",
    service: median(hopTimes).toFixed(2),
    baseline: "bare node:http, same bytes, after a direct call",
    ratio: "",
    goal: "(context)",
    met: "",
  });

  // 4. Cache-hit GET against a bare node:http server sending the same bytes,
  // in rounds. Each round starts all three servers afresh (the service on its
  // own copy of the data), warms each with the same load, then measures them
  // one after another in an order that rotates from round to round. Fresh
  // processes, because two starts of the same server differ widely here: V8
  // sometimes turns a call site inside Node's process.nextTick megamorphic
  // under this load, and every tick of every request then goes through the
  // runtime (docs/performance.md, "How the GET rounds are run"). The ratio is
  // the median of the rounds' ratios.
  const hitPath = `/api/endpoints/usage.api-counts?project=${project}&interval=daily`;
  const body = Buffer.from(await (await fetch(`${url}${hitPath}`, { headers })).arrayBuffer());
  const bodyFile = join(dataDir, "body.json");
  writeFileSync(bodyFile, body);
  const hitRounds: { bare: Load; floor: Load; service: Load; serviceGzip: Load }[] = [];
  const gzipHeaders = { ...headers, "accept-encoding": "gzip" };
  for (let round = 0; round < getRounds; round++) {
    progress(`cache-hit GET round ${round + 1} of ${getRounds}: ${connections} connections, ${seconds} s per server`);
    const roundData = join(dataDir, `hit-${round}`);
    cpSync(seedCopy, roundData, { recursive: true });
    const servers = {
      bare: await startServer(
        ["--import", "tsx", "bench/baseline-http.ts", bodyFile],
        {},
        /port (\d+)/,
        (m) => `http://127.0.0.1:${m[1]}`,
      ),
      floor: await startServer(
        ["--import", "tsx", "bench/baseline-floor.ts", bodyFile],
        {},
        /port (\d+)/,
        (m) => `http://127.0.0.1:${m[1]}`,
      ),
      service: await startServer(
        ["dist/main.js"],
        { ...serviceEnv, CHDB_PATH: roundData },
        /listening on (http:\S+)/,
        (m) => m[1]!,
      ),
    };
    const names = ["bare", "floor", "service"] as const;
    for (const name of names) await getRps(`${servers[name].url}${hitPath}`, headers, warmSeconds);
    const order = [...names.slice(round % 3), ...names.slice(0, round % 3)];
    const measured = {} as Record<(typeof names)[number], Load>;
    for (const name of order) measured[name] = await getRps(`${servers[name].url}${hitPath}`, headers, seconds);
    // The same hits asking for gzip: the compressed body is made on the first and kept.
    await getRps(`${servers.service.url}${hitPath}`, gzipHeaders, warmSeconds);
    hitRounds.push({
      ...measured,
      serviceGzip: await getRps(`${servers.service.url}${hitPath}`, gzipHeaders, seconds),
    });
    await Promise.all(names.map((name) => servers[name].stop()));
  }
  const ratios = hitRounds.map((r) => r.service.rps / r.bare.rps);
  const floorRatios = hitRounds.map((r) => r.floor.rps / r.bare.rps);
  const getRatio = median(ratios);
  const middle = hitRounds[ratios.indexOf(getRatio)]!;
  results.cacheHitGet = { rounds: hitRounds, ratios, ratio: getRatio, floorRatios, floorRatio: median(floorRatios) };
  const list = (values: number[]) => values.map((v) => v.toFixed(2)).join(", ");
  rows.push({
    measure: `cache-hit GET req/s (p50/p99 ms), median of ${getRounds} rounds`,
    service: `${middle.service.rps.toFixed(0)} (${middle.service.p50Ms}/${middle.service.p99Ms})`,
    baseline: `${middle.bare.rps.toFixed(0)} (${middle.bare.p50Ms}/${middle.bare.p99Ms}) bare node:http`,
    ratio: `${getRatio.toFixed(2)} (rounds: ${list(ratios)})`,
    goal: ">= 0.8",
    met: getRatio >= 0.8 ? "yes" : "no",
  });
  const gzipRatios = hitRounds.map((r) => r.serviceGzip.rps / r.service.rps);
  results.cacheHitGetGzip = { ratios: gzipRatios, ratio: median(gzipRatios) };
  rows.push({
    measure: "cache-hit GET with Accept-Encoding: gzip req/s (p50/p99 ms)",
    service: `${middle.serviceGzip.rps.toFixed(0)} (${middle.serviceGzip.p50Ms}/${middle.serviceGzip.p99Ms})`,
    baseline: `${middle.service.rps.toFixed(0)} uncompressed, same round`,
    ratio: `${median(gzipRatios).toFixed(2)} (rounds: ${list(gzipRatios)})`,
    goal: "(context)",
    met: "",
  });
  rows.push({
    measure: "cache-hit GET floor of the design req/s (p50/p99 ms)",
    service: `${middle.floor.rps.toFixed(0)} (${middle.floor.p50Ms}/${middle.floor.p99Ms})`,
    baseline: "bare handler, service's server, headers and embedded engine",
    ratio: `${median(floorRatios).toFixed(2)} of bare (rounds: ${list(floorRatios)})`,
    goal: "(context)",
    met: "",
  });

  // 5. Cache-hit gRPC and Connect unary against a bare Connect-Node handler returning the same message.
  const request = create(UsageService.method.getApiCounts.input, { project, interval: "daily" });
  const probe = createClient(UsageService, createGrpcTransport({ baseUrl: url }));
  const message = await probe.getApiCounts(request, { headers });
  const messageFile = join(dataDir, "message.bin");
  writeFileSync(messageFile, toBinary(GetApiCountsResponseSchema, message));
  const { match: connectPort } = await startChild(
    ["--import", "tsx", "bench/baseline-connect.ts", messageFile],
    {},
    /port (\d+)/,
  );
  const bareUrl = `http://127.0.0.1:${connectPort[1]}`;
  for (const [label, transport] of [
    ["gRPC", (baseUrl: string): Transport => createGrpcTransport({ baseUrl })],
    ["Connect", (baseUrl: string): Transport => createConnectTransport({ baseUrl, httpVersion: "1.1" })],
  ] as const) {
    progress(`cache-hit ${label} unary, ${connections} callers, ${seconds} s each`);
    const bare = createClient(UsageService, transport(bareUrl));
    const service = createClient(UsageService, transport(url));
    const bareLoad = await unaryLoad(() => bare.getApiCounts(request), connections, seconds);
    const serviceLoad = await unaryLoad(() => service.getApiCounts(request, { headers }), connections, seconds);
    if (bareLoad.errors + serviceLoad.errors > 0)
      throw new Error(`${label} load got ${bareLoad.errors + serviceLoad.errors} errors`);
    const ratio = serviceLoad.rps / bareLoad.rps;
    results[`cacheHit${label}`] = { service: serviceLoad, baseline: bareLoad, ratio };
    rows.push({
      measure: `cache-hit ${label} unary calls/s (p50/p99 ms)`,
      service: `${serviceLoad.rps.toFixed(0)} (${serviceLoad.p50Ms.toFixed(1)}/${serviceLoad.p99Ms.toFixed(1)})`,
      baseline: `${bareLoad.rps.toFixed(0)} (${bareLoad.p50Ms.toFixed(1)}/${bareLoad.p99Ms.toFixed(1)}) bare handler`,
      ratio: ratio.toFixed(2),
      goal: ">= 0.8",
      met: ratio >= 0.8 ? "yes" : "no",
    });
  }

  // 6. Memory after many cached requests over many keys, with the cache bounds holding.
  progress(`memory: ${memoryRequests} requests over ${memoryKeys} keys`);
  const metric = async (name: string) => {
    const text = await (await fetch(`${url}/metrics`)).text();
    return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
  };
  const rssBefore = await metric("process_resident_memory_bytes");
  let sent = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (sent < memoryRequests) {
        const i = sent++;
        const path = `/api/endpoints/functions.invocation-stats?project=bench-${i % memoryKeys}&interval=1hr`;
        const response = await fetch(`${url}${path}`, { headers });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`memory load got ${response.status}`);
      }
    }),
  );
  const rssAfter = await metric("process_resident_memory_bytes");
  const entries = await metric("sqe_cache_entries");
  const cacheBytes = await metric("sqe_cache_bytes");
  const rssPerEntry = (rssAfter - rssBefore) / entries;
  const countedPerEntry = cacheBytes / entries;
  results.memory = {
    requests: memoryRequests,
    keys: memoryKeys,
    rssBefore,
    rssAfter,
    cacheEntries: entries,
    cacheBytes,
    rssPerEntry,
    countedPerEntry,
  };
  rows.push({
    measure: `RSS after ${memoryRequests} requests / ${memoryKeys} keys`,
    service: `${(rssAfter / 2 ** 20).toFixed(0)} MiB`,
    baseline: `${(rssBefore / 2 ** 20).toFixed(0)} MiB before`,
    ratio: `${entries} entries, ${(cacheBytes / 1024).toFixed(0)} KiB`,
    goal: "entries <= 10000, bytes <= 256 MiB",
    met: entries <= 10_000 && cacheBytes <= 256 * 2 ** 20 ? "yes" : "no",
  });
  rows.push({
    measure: "cache entry: RSS growth per entry, bytes",
    service: rssPerEntry.toFixed(0),
    baseline: `${countedPerEntry.toFixed(0)} counted by the byte bound`,
    ratio: (rssPerEntry / countedPerEntry).toFixed(2),
    goal: "(context: RSS includes the heap's slack)",
    met: "",
  });

  // 7. A noisy key beside a quiet one, on a service of their own.
  progress(
    `fairness: a quiet key's uncached logs.all, ${fairnessSeconds} s alone and ${fairnessSeconds} s beside 8 costly usage.api-counts calls`,
  );
  const fairData = join(dataDir, "fairness");
  cpSync(seedCopy, fairData, { recursive: true });
  const fair = await startServer(
    ["dist/main.js"],
    { ...serviceEnv, API_KEYS: `${key},${quietKey}`, RATE_LIMIT_PER_SECOND: "100", CHDB_PATH: fairData },
    /listening on (http:\S+)/,
    (m) => m[1]!,
  );
  const quietProjects = demoProjects();
  const alone = await quietLoad(fair.url, quietKey, quietProjects, fairnessSeconds);
  let stopNoise!: () => void;
  const noise = noisyLoad(fair.url, key, 8, new Promise<void>((resolve) => (stopNoise = resolve)));
  await new Promise((r) => setTimeout(r, 1000)); // the noisy key's queue is full
  const beside = await quietLoad(fair.url, quietKey, quietProjects, fairnessSeconds);
  stopNoise();
  const noisy = await noise;
  await fair.stop();
  const refusedBeside = Object.values(beside.refused).reduce((a, b) => a + b, 0);
  results.fairness = { alone, beside, noisy };
  rows.push({
    measure: "quiet key's uncached logs.all p99 ms beside 8 costly usage.api-counts calls of another key",
    service: `${beside.p99Ms.toFixed(1)} (p50 ${beside.p50Ms.toFixed(1)}; ${beside.calls} calls, ${refusedBeside} not 200)`,
    baseline: `${alone.p99Ms.toFixed(1)} (p50 ${alone.p50Ms.toFixed(1)}) alone`,
    ratio: `noisy: ${noisy.calls} calls, median ${noisy.medianMs.toFixed(0)} ms, ${JSON.stringify(noisy.statuses)}`,
    goal: "< 1000 ms, no 429 or 504",
    met: beside.p99Ms < 1000 && refusedBeside === 0 ? "yes" : "no",
  });

  // 8. Scale on the embedded engine, in a process of its own (one chDB directory per process).
  const sizes = smoke ? [100_000, 1_000_000] : [1_000_000, 10_000_000];
  progress(`scale: each query over ${sizes.join(" and ")} rows of 100 projects`);
  const scaleOut = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "bench/scale.ts", sizes.join(","), smoke ? "5" : "60"], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.once("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`scale exited ${code}`))));
  });
  const scale = JSON.parse(scaleOut) as Record<string, Record<string, number>>;
  results.scale = scale;
  const [small, large] = sizes.map(String) as [string, string];
  for (const [label, medians] of Object.entries(scale)) {
    const ratio = medians[large]! / medians[small]!;
    const sevenDay = label === "functions.invocation-stats 7day";
    rows.push({
      measure: `${label}: median ms at ${large} rows`,
      service: medians[large]!.toFixed(1),
      baseline: `${medians[small]!.toFixed(1)} at ${small} rows`,
      ratio: ratio.toFixed(2),
      goal: sevenDay ? "<= 1.5, <= 20 ms" : "<= 1.5",
      met: ratio <= 1.5 && (!sevenDay || medians[large]! <= 20) ? "yes" : "no",
    });
  }

  const machine = {
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    seconds,
    smoke,
  };
  writeFileSync(
    join(root, "bench/results", smoke ? "smoke.json" : "latest.json"),
    `${JSON.stringify({ date: new Date().toISOString(), machine, results, table: rows }, null, 2)}\n`,
  );
  console.log(
    `\nmachine: ${machine.cpus} cores (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node}; ${seconds} s per load\n`,
  );
  console.log(markdownTable(rows));
}

function markdownTable(table: Row[]): string {
  const head = ["measure", "service", "baseline", "ratio", "goal", "met"];
  const lines = [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`];
  for (const r of table) lines.push(`| ${[r.measure, r.service, r.baseline, r.ratio, r.goal, r.met].join(" | ")} |`);
  return lines.join("\n");
}

try {
  await main();
} finally {
  // The children must be gone before the data directory is removed at exit.
  const exited = children
    .filter((child) => child.exitCode === null && child.signalCode === null)
    .map((child) => new Promise((resolve) => child.once("exit", resolve)));
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(exited);
}
