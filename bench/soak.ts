// `npm run soak`: the service under a fixed rate of mixed calls for a bounded
// time, on loopback only: cache hits, misses, and calls that must fail (bad
// parameters, a wrong key). Every answer is checked against the status its
// kind must get; resident memory is sampled and must stay flat within 10%.
// SOAK_SECONDS (default 180) and SOAK_RATE (calls a second, default 200).
import { spawn } from "node:child_process";
import { join } from "node:path";
import { demoProjects } from "../src/warehouse/index.js";
import { readCommandLine } from "../src/cli/command-line.js";
import { temporaryDirectory } from "./temp-directory.js";

readCommandLine({
  usage: `usage: npm run soak [-- --help]

Runs the service under a fixed rate of mixed calls and checks every answer and
that resident memory stays flat. SOAK_SECONDS (default 180) and SOAK_RATE
(calls a second, default 200) set the run.

options:
  -h, --help   print this and exit`,
  options: {},
});

const seconds = Number(process.env.SOAK_SECONDS ?? 180);
const rate = Number(process.env.SOAK_RATE ?? 200);
const key = "soak-key";
const root = join(import.meta.dirname, "..");

const child = spawn(process.execPath, ["dist/main.js"], {
  cwd: root,
  env: {
    ...process.env,
    CHDB_PATH: temporaryDirectory("sqe-soak-"),
    PORT: "0",
    API_KEYS: key,
    LOG_LEVEL: "warn",
    RATE_LIMIT_PER_SECOND: "0",
  },
  stdio: ["ignore", "pipe", "inherit"],
});
const url = await new Promise<string>((resolve, reject) => {
  let out = "";
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    const m = /listening on (http:\S+)/.exec(out);
    if (m) resolve(m[1]!);
  });
  child.once("exit", (code) => reject(new Error(`service exited ${code}`)));
});

const projects = demoProjects();
const kinds = [
  // [share, name, path, headers, expected status]
  [
    0.7,
    "hit",
    () =>
      `/api/endpoints/usage.api-counts?project=${projects[Math.floor(Math.random() * 4)]}&interval=${["hourly", "daily", "minutely"][Math.floor(Math.random() * 3)]}`,
    { "x-api-key": key },
    200,
  ],
  [
    0.2,
    "miss",
    () =>
      `/api/endpoints/logs.all?project=${projects[Math.floor(Math.random() * 4)]}&iso_timestamp_start=${new Date(Date.now() - Math.random() * 3_600_000).toISOString()}`,
    { "x-api-key": key },
    200,
  ],
  [
    0.05,
    "bad parameters",
    () => `/api/endpoints/usage.api-counts?project=x&interval=weekly`,
    { "x-api-key": key },
    400,
  ],
  [0.05, "wrong key", () => `/api/endpoints/logs.all?project=x`, { "x-api-key": "wrong" }, 401],
] as const;

async function rss(): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^process_resident_memory_bytes (\S+)$/m.exec(text)?.[1]);
}

const counts = new Map<string, { sent: number; unexpected: number }>();
const samples: number[] = [];
let inFlight = 0;
const started = Date.now();
process.stderr.write(`soak: ${rate} calls/s for ${seconds} s against ${url}\n`);
const sampler = setInterval(() => void rss().then((v) => samples.push(v)), 5_000);
const ticker = setInterval(() => {
  for (let i = 0; i < rate / 10; i++) {
    let pick = Math.random();
    const kind = kinds.find(([share]) => (pick -= share) < 0) ?? kinds[0];
    const [, name, path, headers, expected] = kind;
    const c = counts.get(name) ?? { sent: 0, unexpected: 0 };
    counts.set(name, c);
    c.sent += 1;
    inFlight += 1;
    fetch(`${url}${path()}`, { headers })
      .then(async (r) => {
        await r.arrayBuffer();
        if (r.status !== expected) c.unexpected += 1;
      })
      .catch(() => (c.unexpected += 1))
      .finally(() => (inFlight -= 1));
  }
}, 100);

await new Promise((r) => setTimeout(r, seconds * 1000));
clearInterval(ticker);
clearInterval(sampler);
while (inFlight > 0) await new Promise((r) => setTimeout(r, 50));
const childExited = new Promise((resolve) => child.once("exit", resolve));
child.kill("SIGTERM");
await childExited; // before its data directory is removed at exit

const third = Math.max(1, Math.floor(samples.length / 3));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const early = mean(samples.slice(third, 2 * third)); // after warm-up
const late = mean(samples.slice(-third));
const growth = (late - early) / early;
let unexpected = 0;
console.log(`soak: ${((Date.now() - started) / 1000).toFixed(0)} s at ${rate} calls/s`);
for (const [name, c] of counts) {
  unexpected += c.unexpected;
  console.log(`  ${name.padEnd(15)} sent ${String(c.sent).padStart(7)}  unexpected ${c.unexpected}`);
}
console.log(
  `  resident memory: ${(early / 2 ** 20).toFixed(0)} MiB mid-run, ${(late / 2 ** 20).toFixed(0)} MiB at the end (${(growth * 100).toFixed(1)}%)`,
);
const ok = unexpected === 0 && Math.abs(growth) <= 0.1;
console.log(ok ? "soak: passed" : "soak: FAILED");
process.exitCode = ok ? 0 : 1;
