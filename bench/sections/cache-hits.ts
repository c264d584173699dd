// Cache hits of every protocol against the platform: h2load makes the same
// call of each protocol to the service and to a bare node:http or node:http2
// server replaying the service's own answer (captured from the wire, framing
// and trailers included), in turns. Each round starts a service (on its own
// copy of the data) and the bare servers afresh, since two starts of one
// server differ widely here (docs/performance.md, "How the rounds are run");
// each protocol is warmed on both, then measured on one and the other, the
// first of the two alternating. The ratio is the median of the rounds' ratios.
import { type CapturedAnswer, cacheHitProblems, captureHit, writeCaptureFile } from "../capture.js";
import type { BenchContext, Section } from "../context.js";
import { bodyFileOf, loadTurn, type Turn } from "../load-turn.js";
import { startBareServers } from "../processes.js";
import { cacheHitProtocols, type Protocol } from "../protocols.js";
import { list, median, ratioAgainst, type Report } from "../report.js";

type Side = "service" | "bare";
type Round = Partial<Record<Side, Turn>> & { problems: string[] };

/** One round: fresh servers, every protocol captured, warmed and measured on both. */
async function runRound(context: BenchContext, round: number, protocols: Protocol[]): Promise<Round[]> {
  const headers = { "x-api-key": context.key };
  const service = await context.startService(context.serviceEnv(`hits-${round}`));
  const answers: CapturedAnswer[] = [];
  const results: Round[] = [];
  for (const protocol of protocols) {
    const call = { ...protocol, headers: { ...protocol.headers, ...headers } };
    const answer = await captureHit(service.url, call);
    answers.push(answer);
    results.push({ problems: cacheHitProblems(answer).map((p) => `captured answer: ${p}`) });
  }
  const captureFile = context.path(`hits-${round}-answers.json`);
  writeCaptureFile(captureFile, answers);
  const bare = await startBareServers(captureFile);
  const servers = {
    service: (_: Protocol) => ({ url: service.url, pid: service.pid }),
    bare: (protocol: Protocol) => ({ url: bare.url(protocol.http), pid: bare.pid }),
  };
  for (const [i, protocol] of protocols.entries()) {
    const result = results[i]!;
    if (result.problems.length > 0) continue;
    const bodyFile = bodyFileOf(protocol, context.path);
    const order: Side[] = (round + i) % 2 === 0 ? ["service", "bare"] : ["bare", "service"];
    const turnOf = (side: Side, seconds: number) =>
      loadTurn({
        protocol,
        ...servers[side](protocol),
        seconds,
        headers,
        bodyFile,
        answerBytes: answers[i]!.body.length,
      });
    for (const side of order) await turnOf(side, context.smoke ? 0.5 : 2); // warm-up, not counted
    for (const side of order) {
      const turn = await turnOf(side, context.seconds);
      result[side] = turn;
      result.problems.push(...turn.problems.map((p) => `${side}: ${p}`));
    }
  }
  await Promise.all([service.stop(), bare.stop()]);
  return results;
}

/** The table row of one protocol from its rounds. */
function addRow(report: Report, protocol: Protocol, rounds: Round[]): void {
  const connections = `${protocol.clients} connections${protocol.streams > 1 ? ` x ${protocol.streams} streams` : ""}`;
  const measure = `cache-hit ${protocol.label}, ${connections}: calls/s (CPU µs a call)`;
  const bareName = protocol.http === "1.1" ? "node:http" : "node:http2";
  const problems = rounds.flatMap((r) => r.problems);
  if (problems.length > 0) {
    report.results[protocol.id] = { problems };
    report.rows.push({
      measure,
      service: `failed: ${problems[0]}`,
      baseline: bareName,
      ratio: "",
      goal: `>= ${protocol.goal}`,
      met: "no",
    });
    return;
  }
  const turns = rounds as Required<Round>[];
  const ratios = turns.map((r) => r.service.rps / r.bare.rps);
  const ratio = median(ratios);
  const middle = turns[ratios.indexOf(ratio)]!;
  const cpu = {
    service: median(turns.map((r) => r.service.cpuUsPerCall)),
    bare: median(turns.map((r) => r.bare.cpuUsPerCall)),
  };
  report.results[protocol.id] = { rounds: turns, ratios, ratio, cpuUsPerCall: cpu };
  report.rows.push({
    measure,
    service: `${middle.service.rps.toFixed(0)} (${cpu.service.toFixed(0)})`,
    baseline: `${middle.bare.rps.toFixed(0)} (${cpu.bare.toFixed(0)}) bare ${bareName}, same bytes`,
    ratio: `${ratioAgainst(ratio, protocol.goal)} (rounds: ${list(ratios)})`,
    goal: `>= ${protocol.goal}`,
    met: ratio >= protocol.goal ? "yes" : "no",
  });
}

export const cacheHitsSection: Section = {
  name: "cache-hits",
  async run(context, report) {
    const protocols = cacheHitProtocols(context.project);
    const rounds: Round[][] = [];
    for (let round = 0; round < context.rounds; round++) {
      context.progress(
        `cache hits, round ${round + 1} of ${context.rounds}: ${protocols.length} protocols, ${context.seconds} s per server`,
      );
      rounds.push(await runRound(context, round, protocols));
    }
    for (const [i, protocol] of protocols.entries())
      addRow(
        report,
        protocol,
        rounds.map((r) => r[i]!),
      );
  },
};
