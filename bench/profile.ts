// `npm run bench:profile -- <protocol>`: where one protocol's cache hit
// spends its CPU, in the service and in its bare server side by side. Both
// run under V8's CPU profiler (`--cpu-prof`) with the cache-hit section's
// load (bench/protocols.ts, h2load), one after the other; each function's
// self time over the measured turn is divided by the calls answered in it.
import { join } from "node:path";
import { readCommandLine } from "../src/cli/command-line.js";
import { captureHit, writeCaptureFile } from "./capture.js";
import { createContext, serviceNodeArgsFromEnvironment } from "./context.js";
import { readProfileIn, selfTimes } from "./cpu-profile.js";
import { checkH2load } from "./h2load.js";
import { bodyFileOf, loadTurn } from "./load-turn.js";
import { startBareServers, stopAll } from "./processes.js";
import { cacheHitProtocols } from "./protocols.js";

const ids = cacheHitProtocols("").map((protocol) => protocol.id);

const { values: flags, positionals } = readCommandLine({
  usage: `usage: npm run bench:profile -- <protocol> [--seconds <n>] [--top <n>]

Profiles one protocol's cache hit in the service and in its bare server (the
same bytes, bench/bare-servers.ts) under the same h2load load, and prints the
self time of the functions that take most, in microseconds per answered call.
The profiler costs CPU of its own: compare the functions' times, not the two
servers' calls a second.

protocols: ${ids.join(", ")}

options:
  --seconds <n>  seconds of the measured turn on each server (default 5)
  --top <n>      rows to print (default 30)
  -h, --help     print this and exit`,
  options: { seconds: { type: "string", default: "5" }, top: { type: "string", default: "30" } },
  allowPositionals: true,
  check: ({ values, positionals }) => [
    ...(positionals.length === 1 && ids.includes(positionals[0]!)
      ? []
      : [`name one protocol of ${ids.join(", ")}, got "${positionals.join(" ")}"`]),
    ...(Number(values.seconds) > 0 ? [] : [`--seconds takes a positive number, got "${values.seconds}"`]),
    ...(Number.isInteger(Number(values.top)) && Number(values.top) > 0
      ? []
      : [`--top takes a positive whole number, got "${values.top}"`]),
  ],
});

try {
  checkH2load();
} catch (error) {
  process.stderr.write(`bench:profile: ${(error as Error).message}\n`);
  process.exit(1);
}

const seconds = Number(flags.seconds);
const progress = (text: string) => process.stderr.write(`bench:profile: ${text}\n`);

try {
  const context = await createContext({
    smoke: false,
    seconds,
    rounds: 1,
    turnSeconds: seconds,
    serviceNodeArgs: serviceNodeArgsFromEnvironment(),
  });
  const protocol = cacheHitProtocols(context.project).find((p) => p.id === positionals[0])!;
  const headers = { "x-api-key": context.key };
  const profiles = context.path("profiles");
  const profiled = (side: string) => ["--cpu-prof", `--cpu-prof-dir=${join(profiles, side)}`];

  const service = await context.startService(context.serviceEnv("profile"), { nodeArgs: profiled("service") });
  const answer = await captureHit(service.url, { ...protocol, headers: { ...protocol.headers, ...headers } });
  const captureFile = context.path("answer.json");
  writeCaptureFile(captureFile, [answer]);
  const bare = await startBareServers(captureFile, { nodeArgs: profiled("bare") });

  const bodyFile = bodyFileOf(protocol, context.path);
  const sides = [
    { name: "service", url: service.url, pid: service.pid },
    { name: "bare", url: bare.url(protocol.http), pid: bare.pid },
  ];
  const windows = new Map<string, { from: number; to: number; calls: number }>();
  for (const side of sides) {
    const turn = (turnSeconds: number) =>
      loadTurn({ protocol, ...side, seconds: turnSeconds, headers, bodyFile, answerBytes: answer.body.length });
    progress(`${protocol.label}: ${side.name}, 2 s of warm-up and ${seconds} s measured`);
    await turn(2);
    const from = microsecondsNow();
    const measured = await turn(seconds);
    const to = microsecondsNow();
    if (measured.problems.length > 0) throw new Error(`${side.name}: ${measured.problems.join("; ")}`);
    windows.set(side.name, { from, to, calls: measured.calls });
  }
  // Both exit on SIGTERM, writing their profiles.
  await Promise.all([service.stop(), bare.stop()]);

  const perCall = new Map<string, Map<string, number>>();
  for (const side of sides) {
    const { from, to, calls } = windows.get(side.name)!;
    const times = selfTimes(readProfileIn(join(profiles, side.name)), from, to);
    perCall.set(side.name, new Map([...times].map(([name, us]) => [name, us / calls])));
  }
  printTable(perCall.get("service")!, perCall.get("bare")!, Number(flags.top));
} finally {
  await stopAll();
}

/** Now on the monotonic clock the profiles' timestamps use, in microseconds. */
function microsecondsNow(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** The `top` functions by the service's time, with the bare server's beside, and both servers' busy time. */
function printTable(service: Map<string, number>, bare: Map<string, number>, top: number): void {
  const busy = (times: Map<string, number>) =>
    [...times].reduce((sum, [name, us]) => (name === "(idle)" ? sum : sum + us), 0);
  const cell = (us: number | undefined) => (us ?? 0).toFixed(1).padStart(8);
  const lines = [
    `${"service".padStart(8)} ${"bare".padStart(8)}  µs a call, self time`,
    `${cell(busy(service))} ${cell(busy(bare))}  busy (all but idle)`,
    ...[...service]
      .filter(([name]) => name !== "(idle)")
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => `${cell(us)} ${cell(bare.get(name))}  ${name}`),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}
