// The call log's cost on a GET cache hit: the service with CALL_LOG on and
// off, started afresh in pairs (two starts of one server differ by more than
// the log costs), each side started first in turn, each pair measured in
// alternating turns on the same CPU.
// The figure is the median over every turn pair of on's CPU a call over off's,
// judged only when the pairs agree within the goal. Beside it, what recording
// itself costs, timed in this process over a million calls.
import { createCallLog } from "../../src/warehouse/call-log.js";
import { createRecordCall } from "../../src/transport/call/call-record.js";
import { cacheHitProblems, captureHit } from "../capture.js";
import type { Section } from "../context.js";
import { loadTurn } from "../load-turn.js";
import { cacheHitProtocols } from "../protocols.js";
import { median } from "../report.js";
import { quartile, spreadAround } from "../rounds.js";

/** The call log's cost, at most this share of a GET hit's CPU (docs/performance.md). */
const goal = 0.05;

/** Starts of each side, and turn pairs on each start. */
const starts = { full: 6, smoke: 1 };
const pairsPerStart = 3;

export const callLogCostSection: Section = {
  name: "call-log-cost",
  async run(context, report) {
    const protocol = cacheHitProtocols(context.project).find((p) => p.id === "getHttp1")!;
    const headers = { "x-api-key": context.key };
    const cpus = context.pinning.pinned ? context.pinning : undefined;
    const count = context.smoke ? starts.smoke : starts.full;
    const costs: number[] = [];
    const problems: string[] = [];
    for (let start = 0; start < count; start++) {
      context.progress(`call log's cost, start ${start + 1} of ${count}: ${pairsPerStart} turn pairs`);
      const startSide = (logged: boolean) =>
        context.startService(
          { ...context.serviceEnv(`call-log-${logged ? "on" : "off"}-${start}`), ...(logged ? {} : { CALL_LOG: "0" }) },
          { cpu: cpus?.serverCpu },
        );
      // Each side started first in turn: the first of two processes started may run differently.
      const first = await startSide(start % 2 === 0);
      const second = await startSide(start % 2 !== 0);
      const sides = start % 2 === 0 ? { logged: first, unlogged: second } : { logged: second, unlogged: first };
      const call = { ...protocol, headers: { ...protocol.headers, ...headers } };
      const answers = {
        logged: await captureHit(sides.logged.url, call),
        unlogged: await captureHit(sides.unlogged.url, call),
      };
      problems.push(...cacheHitProblems(answers.logged), ...cacheHitProblems(answers.unlogged));
      const turn = (side: keyof typeof sides, seconds: number) =>
        loadTurn({
          protocol,
          url: sides[side].url,
          pid: sides[side].pid,
          seconds,
          headers,
          bodyFile: undefined,
          answerBytes: answers[side].body.length,
          clientCpu: cpus?.clientCpu,
        });
      // Warm-up, not counted.
      await turn("logged", context.smoke ? 0.5 : 2);
      await turn("unlogged", context.smoke ? 0.5 : 2);
      for (let pair = 0; pair < pairsPerStart; pair++) {
        // Each side first in turn.
        const order: (keyof typeof sides)[] = pair % 2 === 0 ? ["logged", "unlogged"] : ["unlogged", "logged"];
        const turns: Record<string, Awaited<ReturnType<typeof turn>>> = {};
        for (const side of order) turns[side] = await turn(side, context.turnSeconds);
        problems.push(...turns.logged!.problems, ...turns.unlogged!.problems);
        costs.push(turns.logged!.cpuUsPerCall / turns.unlogged!.cpuUsPerCall - 1);
      }
      await Promise.all([sides.logged.stop(), sides.unlogged.stop()]);
    }
    const cost = median(costs);
    const spread = spreadAround(costs);
    const met =
      problems.length > 0
        ? `no (${problems[0]})`
        : !context.pinning.pinned
          ? "not judged (unpinned)"
          : spread > goal
            ? `not judged (interquartile range over ±${goal * 100}%)`
            : cost <= goal
              ? "yes"
              : "no";
    report.results.callLogCost = { costs, cost, spread, met };
    report.rows.push({
      measure: `call log's cost: CPU of a GET hit (HTTP/1.1, ${protocol.clients} connections) with CALL_LOG on over off`,
      service: `${(cost * 100).toFixed(1)}% (IQR ${(quartile(costs, 0.25) * 100).toFixed(1)}–${(quartile(costs, 0.75) * 100).toFixed(1)}, ${costs.length} turn pairs on ${count} starts)`,
      baseline: "CALL_LOG=0, same turns",
      ratio: (1 + cost).toFixed(3),
      goal: `<= ${goal * 100}%`,
      met,
    });
    const recording = recordingCost(context.smoke ? 100_000 : 1_000_000);
    report.results.callLogRecording = { nsPerCall: recording };
    report.rows.push({
      measure: "recording a GET hit in the call log, in process (createRecordCall into createCallLog, writes faked)",
      service: `${recording.toFixed(0)} ns of CPU a call`,
      baseline: "",
      ratio: "",
      goal: "(context)",
      met: "",
    });
  },
};

/** CPU nanoseconds a call of recording `calls` GET hits of one caller, latencies spread over two octaves. */
function recordingCost(calls: number): number {
  const log = createCallLog({ insert: async () => ({}) } as never, { flushMs: 3_600_000 });
  const record = createRecordCall(log);
  const call = { requestId: "bench", credential: { id: "bench-key" } as never, started: 0 };
  const result = { computation: { statistics: { rowsRead: 2551, bytesRead: 104591 } }, cache: { status: "HIT" } };
  const end = {
    endpoint: "functions.invocation-stats",
    protocol: "get",
    code: "ok",
    result,
    responseBytes: 7224,
  } as const;
  const cpu = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    call.started = performance.now() - 0.05 - (i % 64) * 0.003;
    record(call, { ...end, result: end.result as never });
  }
  const used = process.cpuUsage(cpu);
  void log.close(0);
  return ((used.user + used.system) * 1000) / calls;
}
