// Cache hits of every protocol against the platform: h2load makes the same
// call of each protocol to the service and to a bare node:http or node:http2
// server replaying the service's own answer (captured from the wire, framing
// and trailers included), h2load on one CPU and both servers on another
// where the machine allows (bench/pinning.ts). A round is one short turn on
// each server, the first of the two alternating from round to round, so that
// both see the same moment of the machine; the servers are started afresh
// every few rounds, since two starts of one server differ. A row's ratio is
// the median of its rounds' ratios, judged only when they agree (rounds.ts).
import { type CapturedAnswer, cacheHitProblems, captureHit, writeCaptureFile } from "../capture.js";
import type { BenchContext, Section } from "../context.js";
import { bodyFileOf, loadTurn, type Turn } from "../load-turn.js";
import { startBareServers } from "../processes.js";
import { cacheHitProtocols, type Protocol } from "../protocols.js";
import { median, ratioAgainst, type Report } from "../report.js";
import { judgeRounds, roundRatios } from "../rounds.js";

type Side = "service" | "router" | "unlogged" | "bare";
type Round = Partial<Record<Side, Turn>> & { problems: string[] };

/** Rounds on one start of the servers: enough to warm them once for several, few enough to meet several starts. */
const roundsPerStart = 5;

/** The rounds `first` to `first + count - 1` on fresh servers, by protocol: every protocol captured, warmed and measured. */
async function runStart(context: BenchContext, first: number, count: number, protocols: Protocol[]) {
  const headers = { "x-api-key": context.key };
  const cpus = context.pinning.pinned ? context.pinning : undefined;
  const service = await context.startService(context.serviceEnv(`hits-${first}`), { cpu: cpus?.serverCpu });
  // The same service with the RPC fast path off: its RPC hits answered by the Connect router alone.
  const router = await context.startService(
    { ...context.serviceEnv(`hits-router-${first}`), RPC_FAST_PATH: "0" },
    { cpu: cpus?.serverCpu },
  );
  // And with the call log off, for context (call-log-cost.ts judges what recording costs).
  const unlogged = await context.startService(
    { ...context.serviceEnv(`hits-unlogged-${first}`), CALL_LOG: "0" },
    { cpu: cpus?.serverCpu },
  );
  const answers: CapturedAnswer[] = [];
  // Each other service's own answers: its rows were computed at another moment, so their length may differ.
  const otherAnswers = { router: [] as CapturedAnswer[], unlogged: [] as CapturedAnswer[] };
  for (const protocol of protocols) {
    const call = { ...protocol, headers: { ...protocol.headers, ...headers } };
    answers.push(await captureHit(service.url, call));
    otherAnswers.router.push(await captureHit(router.url, call));
    otherAnswers.unlogged.push(await captureHit(unlogged.url, call));
  }
  const captureFile = context.path(`hits-${first}-answers.json`);
  writeCaptureFile(captureFile, answers);
  const bare = await startBareServers(captureFile, { cpu: cpus?.serverCpu });
  const servers = {
    service: (_: Protocol) => ({ url: service.url, pid: service.pid }),
    router: (_: Protocol) => ({ url: router.url, pid: router.pid }),
    unlogged: (_: Protocol) => ({ url: unlogged.url, pid: unlogged.pid }),
    bare: (protocol: Protocol) => ({ url: bare.url(protocol.http), pid: bare.pid }),
  };
  const byProtocol: Round[][] = [];
  for (const [i, protocol] of protocols.entries()) {
    const captured = cacheHitProblems(answers[i]!).map((p) => `captured answer: ${p}`);
    byProtocol.push([{ problems: captured }]);
    if (captured.length > 0) continue;
    const bodyFile = bodyFileOf(protocol, context.path);
    const turnOf = (side: Side, seconds: number) =>
      loadTurn({
        protocol,
        ...servers[side](protocol),
        seconds,
        headers,
        bodyFile,
        answerBytes: (side === "router" || side === "unlogged" ? otherAnswers[side] : answers)[i]!.body.length,
        clientCpu: cpus?.clientCpu,
      });
    // Warm-up, not counted: both servers' code compiled before the first round.
    const sides = sidesOf(protocol);
    for (const side of sides) await turnOf(side, context.smoke ? 0.5 : 2);
    const rounds: Round[] = [];
    for (let round = first; round < first + count; round++) {
      const result: Round = { problems: [] };
      // Each side first in turn, so that every side sees each moment of the machine as often.
      const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
      for (const side of order) {
        const turn = await turnOf(side, context.turnSeconds);
        result[side] = turn;
        result.problems.push(...turn.problems.map((p) => `${side}: ${p}`));
      }
      rounds.push(result);
    }
    byProtocol[i] = rounds;
  }
  await Promise.all([service.stop(), router.stop(), unlogged.stop(), bare.stop()]);
  return byProtocol;
}

/** Whether `protocol` is an RPC call, which the fast path or the router alone may answer. */
function isRpc(protocol: Protocol): boolean {
  return !protocol.id.startsWith("get");
}

/** The sides `protocol` is measured on: RPC also by the router alone, GET over HTTP/1.1 also with the call log off. */
function sidesOf(protocol: Protocol): Side[] {
  if (isRpc(protocol)) return ["service", "router", "bare"];
  return protocol.id === "getHttp1" ? ["service", "unlogged", "bare"] : ["service", "bare"];
}

/** The cache-hit table's row of one protocol from its rounds, measured on `side` (the service, or the router alone). */
function addRow(context: BenchContext, report: Report, protocol: Protocol, rounds: Round[], side: Side): void {
  const connections = `${protocol.clients} connections${protocol.streams > 1 ? ` x ${protocol.streams} streams` : ""}`;
  const suffix = { service: "", router: ", router alone", unlogged: ", call log off", bare: "" }[side];
  const call = `${protocol.label}, ${connections}${suffix}`;
  const id = side === "service" ? protocol.id : `${protocol.id}${side === "router" ? "Router" : "Unlogged"}`;
  const bareName = protocol.http === "1.1" ? "node:http" : "node:http2";
  const goal = `>= ${protocol.goal}`;
  // The other measured sides' problems are their own rows'.
  const problems = rounds
    .flatMap((r) => r.problems)
    .filter((p) => p.startsWith(`${side}:`) || p.startsWith("bare:") || p.startsWith("captured"));
  if (problems.length > 0) {
    report.results[id] = { problems };
    const failed = { service: `failed: ${problems[0]}`, bare: bareName, ratio: "", spread: "", cpu: "" };
    report.hitRows.push({ call, ...failed, goal, met: "no" });
    return;
  }
  const turns = rounds as Required<Round>[];
  const ratios = roundRatios(turns, side as Exclude<Side, "bare">);
  const verdict = judgeRounds(ratios, protocol.goal, context.pinning.pinned);
  // Calls a second of the median round, for context; CPU a call is each side's own median.
  const middle = turns[ratios.indexOf(verdict.ratio)]!;
  const rps = { service: middle[side].rps, bare: middle.bare.rps };
  const cpuOf = (of: Side) => median(turns.map((r) => r[of].cpuUsPerCall));
  const cpu = { service: cpuOf(side), bare: cpuOf("bare") };
  report.results[id] = { rounds: turns, ratios, ...verdict, rps, cpuUsPerCall: cpu };
  report.hitRows.push({
    call,
    service: rps.service.toFixed(0),
    bare: `${rps.bare.toFixed(0)} ${bareName}`,
    ratio: ratioAgainst(verdict.ratio, protocol.goal),
    spread: `±${verdict.spread.toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}, ${ratios.length} rounds)`,
    cpu: `${cpu.service.toFixed(0)} / ${cpu.bare.toFixed(0)}`,
    goal,
    met: verdict.met,
  });
}

export const cacheHitsSection: Section = {
  name: "cache-hits",
  async run(context, report) {
    const protocols = cacheHitProtocols(context.project);
    const rounds: Round[][] = protocols.map(() => []);
    for (let first = 0; first < context.rounds; first += roundsPerStart) {
      const count = Math.min(roundsPerStart, context.rounds - first);
      context.progress(
        `cache hits, rounds ${first + 1}-${first + count} of ${context.rounds} on fresh servers: ${protocols.length} protocols, ${context.turnSeconds} s a turn`,
      );
      const started = await runStart(context, first, count, protocols);
      for (const [i, protocolRounds] of started.entries()) rounds[i]!.push(...protocolRounds);
    }
    for (const [i, protocol] of protocols.entries())
      for (const side of sidesOf(protocol)) if (side !== "bare") addRow(context, report, protocol, rounds[i]!, side);
  },
};
