// h2load, nghttp2's load tester, as the bench's client: found at start (with
// how to install it when it is missing), run as a child process for one load
// turn, its summary read back, and a turn refused when any answer was not
// the one expected.
import { spawn, spawnSync } from "node:child_process";
import { onCpu } from "./pinning.js";

/** The line printed when h2load is missing. */
export const installHint =
  "h2load was not found: install it with `apt-get install nghttp2-client` (Debian, Ubuntu) or your system's nghttp2 package";

/** h2load's version line; throws `installHint` when it cannot be run. */
export function checkH2load(): string {
  const result = spawnSync("h2load", ["--version"], { encoding: "utf8" });
  if (result.error !== undefined || result.status !== 0) throw new Error(installHint);
  return result.stdout.trim();
}

export interface H2loadOptions {
  url: string;
  seconds: number;
  /** Connections, each its own client. */
  clients: number;
  /** Streams in flight per connection (HTTP/2 only). Default 1. */
  streams?: number;
  /** HTTP/1.1 instead of HTTP/2 with prior knowledge (h2c). Default false. */
  http1?: boolean;
  headers?: Record<string, string>;
  /** A file sent as the body of every request, which makes them POSTs. Default: none (GET). */
  bodyFile?: string;
  /** Requests a second of each connection, instead of as many as it can. Default: unbounded. */
  ratePerClient?: number;
  /** Where h2load writes one line per request (start, status, microseconds). Default: none. */
  logFile?: string;
  /** The CPU h2load runs on alone (`pinning.clientCpu`). Default: any. */
  cpu?: number;
}

/** What h2load printed at the end of a run. */
export interface H2loadSummary {
  seconds: number;
  rps: number;
  started: number;
  done: number;
  succeeded: number;
  failed: number;
  errored: number;
  timeout: number;
  statuses: { "2xx": number; "3xx": number; "4xx": number; "5xx": number };
  /** Bytes of response bodies (HTTP/2 DATA frames' payloads), all answers summed. */
  dataBytes: number;
  /** Mean time from request to full response, ms. */
  meanMs: number;
}

/** Milliseconds of an h2load duration such as `2.00s`, `501.68ms` or `946us`. */
function durationMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text);
  if (match === null) throw new Error(`h2load: unreadable duration "${text}"`);
  const value = Number(match[1]);
  return match[2] === "us" ? value / 1000 : match[2] === "ms" ? value : value * 1000;
}

/** Reads the summary h2load prints at its end; throws naming the first line it does not find. */
export function parseH2loadOutput(text: string): H2loadSummary {
  const find = (what: string, pattern: RegExp) => {
    const match = pattern.exec(text);
    if (match === null) throw new Error(`h2load: no ${what} line in its output: ${text.slice(-500)}`);
    return match;
  };
  const finished = find("finished", /^finished in (\S+), ([\d.]+) req\/s/m);
  const requests = find(
    "requests",
    /^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/m,
  );
  const statuses = find("status codes", /^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/m);
  const traffic = find("traffic", /^traffic: .*\((\d+)\) data$/m);
  const request = find("time for request", /^time for request:\s+(\S+)\s+(\S+)\s+(\S+)/m);
  const n = (match: RegExpExecArray, i: number) => Number(match[i]);
  return {
    seconds: durationMs(finished[1]!) / 1000,
    rps: Number(finished[2]),
    started: n(requests, 2),
    done: n(requests, 3),
    succeeded: n(requests, 4),
    failed: n(requests, 5),
    errored: n(requests, 6),
    timeout: n(requests, 7),
    statuses: { "2xx": n(statuses, 1), "3xx": n(statuses, 2), "4xx": n(statuses, 3), "5xx": n(statuses, 4) },
    dataBytes: n(traffic, 1),
    meanMs: durationMs(request[3]!),
  };
}

/** The command-line arguments of one h2load run. */
export function h2loadArguments(options: H2loadOptions): string[] {
  const args = [
    "-D",
    `${Math.max(1, Math.round(options.seconds * 1000))}ms`,
    "-c",
    String(options.clients),
    "-m",
    String(options.streams ?? 1),
    "-t",
    "1",
  ];
  if (options.http1 === true) args.push("--h1");
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push("-H", `${name}: ${value}`);
  if (options.bodyFile !== undefined) args.push("-d", options.bodyFile);
  if (options.ratePerClient !== undefined) args.push("--rps", String(options.ratePerClient));
  if (options.logFile !== undefined) args.push("--log-file", options.logFile);
  args.push(options.url);
  return args;
}

/** Runs h2load once and reads its summary; rejects when it fails or runs far past its duration. */
export function runH2load(options: H2loadOptions): Promise<H2loadSummary> {
  const child = spawn(...onCpu(options.cpu, "h2load", h2loadArguments(options)), { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const limit = setTimeout(() => child.kill("SIGKILL"), (options.seconds + 60) * 1000);
  return new Promise((resolve, reject) => {
    child.once("error", (error) => reject(new Error(`${installHint} (${error.message})`)));
    child.once("exit", (code, signal) => {
      clearTimeout(limit);
      if (code !== 0) reject(new Error(`h2load on ${options.url} exited ${code ?? signal}: ${out.slice(-500)}`));
      else {
        try {
          resolve(parseH2loadOutput(out));
        } catch (error) {
          reject(error);
        }
      }
    });
  });
}

/**
 * What is wrong with a turn whose every answer should have been a 2xx with a
 * body of `bodyBytes` bytes; empty when nothing is. h2load counts the body
 * bytes of answers still arriving at the end, so the total may run up to
 * `started`, not only `done`, answers' worth.
 */
export function answerProblems(summary: H2loadSummary, bodyBytes: number): string[] {
  const problems: string[] = [];
  if (summary.done === 0) problems.push("no request was answered");
  // Status codes count answers whose headers came, some of them still arriving at the end.
  const other = summary.statuses["3xx"] + summary.statuses["4xx"] + summary.statuses["5xx"];
  if (other > 0 || summary.statuses["2xx"] < summary.done)
    problems.push(`${other} answers of ${summary.done} were not 2xx (${JSON.stringify(summary.statuses)})`);
  if (summary.failed + summary.errored + summary.timeout > 0)
    problems.push(`${summary.failed} failed, ${summary.errored} errored, ${summary.timeout} timed out`);
  if (summary.dataBytes < summary.done * bodyBytes || summary.dataBytes > summary.started * bodyBytes)
    problems.push(
      `${summary.dataBytes} body bytes for ${summary.done} answers, not ${bodyBytes} each (another answer than the one captured)`,
    );
  return problems;
}

/** Latencies and statuses from the file `logFile` names: one request a line, "start µs, status, duration µs" tab-separated. */
export function readRequestLog(text: string): { latenciesMs: number[]; notOk: number } {
  const latenciesMs: number[] = [];
  let notOk = 0;
  for (const line of text.split("\n")) {
    const [, status, microseconds] = line.split("\t");
    if (microseconds === undefined) continue;
    latenciesMs.push(Number(microseconds) / 1000);
    if (!status!.startsWith("2")) notOk += 1;
  }
  return { latenciesMs, notOk };
}
