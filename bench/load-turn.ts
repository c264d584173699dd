// One load turn of the cache-hit section: h2load making one protocol's call
// against one server for a while, the server's CPU time read before and
// after (microseconds of CPU per answered call), and every answer checked.
import { writeFileSync } from "node:fs";
import { cpuMicroseconds } from "./cpu-time.js";
import { answerProblems, runH2load } from "./h2load.js";
import type { Protocol } from "./protocols.js";

/** What one turn measured. */
export interface Turn {
  rps: number;
  calls: number;
  /** Microseconds of the server process's CPU (all threads) per answered call. */
  cpuUsPerCall: number;
  meanMs: number;
  /** Why its answers were not all the ones captured; empty when they were. */
  problems: string[];
}

/** The file h2load sends as the body of `protocol`'s calls, written once under `path`. */
export function bodyFileOf(protocol: Protocol, path: (name: string) => string): string | undefined {
  if (protocol.body === undefined) return undefined;
  const file = path(`${protocol.id}-request.bin`);
  writeFileSync(file, protocol.body);
  return file;
}

export interface TurnOptions {
  protocol: Protocol;
  /** The server's base URL and process id. */
  url: string;
  pid: number;
  seconds: number;
  headers: Record<string, string>;
  bodyFile: string | undefined;
  /** The body length of the answer captured for this call. */
  answerBytes: number;
  /** The CPU h2load runs on alone. Default: any. */
  clientCpu?: number;
}

/** Runs one turn; `problems` says what was wrong with the answers, if anything. */
export async function loadTurn(options: TurnOptions): Promise<Turn> {
  const { protocol } = options;
  const before = cpuMicroseconds(options.pid);
  const summary = await runH2load({
    url: `${options.url}${protocol.path}`,
    seconds: options.seconds,
    clients: protocol.clients,
    streams: protocol.streams,
    http1: protocol.http === "1.1",
    headers: { ...protocol.headers, ...options.headers },
    ...(options.bodyFile === undefined ? {} : { bodyFile: options.bodyFile }),
    cpu: options.clientCpu,
  });
  const cpu = cpuMicroseconds(options.pid) - before;
  return {
    rps: summary.rps,
    calls: summary.done,
    cpuUsPerCall: summary.done > 0 ? cpu / summary.done : Number.NaN,
    meanMs: summary.meanMs,
    problems: answerProblems(summary, options.answerBytes),
  };
}
