// The bench's reading of h2load: its end-of-run summary, its per-request log,
// the arguments it is run with, and which turns are refused.
import { describe, expect, it } from "vitest";
import {
  answerProblems,
  h2loadArguments,
  type H2loadSummary,
  parseH2loadOutput,
  readRequestLog,
} from "../../bench/h2load.js";

// The end of a real run: h2load 1.52 over h2c, 8 clients for 2 s.
const output = `Main benchmark duration is over for thread #0. Stopping all clients.
Stopped all clients for thread #0

finished in 2.00s, 3832.50 req/s, 25.96MB/s
requests: 7665 total, 7673 started, 7665 done, 7665 succeeded, 0 failed, 0 errored, 0 timeout
status codes: 7665 2xx, 0 3xx, 0 4xx, 0 5xx
traffic: 51.91MB (54434393) total, 401.59KB (411233) headers (space savings 87.20%), 51.32MB (53815965) data
                     min         max         mean         sd        +/- sd
time for request:      289us     18.09ms      2.04ms      1.08ms    83.90%
time for connect:      153us       249us       214us        30us    75.00%
time to 1st byte:     6.75ms     17.89ms     13.03ms      3.86ms    62.50%
req/s           :     469.47      487.96      479.02        6.01    62.50%
`;

const summary: H2loadSummary = {
  seconds: 2,
  rps: 3832.5,
  started: 7673,
  done: 7665,
  succeeded: 7665,
  failed: 0,
  errored: 0,
  timeout: 0,
  statuses: { "2xx": 7665, "3xx": 0, "4xx": 0, "5xx": 0 },
  dataBytes: 53815965,
  meanMs: 2.04,
};

describe("h2load's summary", () => {
  it("is read from the end of its output", () => {
    expect(parseH2loadOutput(output)).toEqual(summary);
  });

  it("reads durations in microseconds and milliseconds", () => {
    const short = output
      .replace("finished in 2.00s", "finished in 501.68ms")
      .replace(
        "time for request:      289us     18.09ms      2.04ms",
        "time for request:      289us     18.09ms      946us",
      );
    expect(parseH2loadOutput(short)).toMatchObject({ seconds: 0.50168, meanMs: 0.946 });
  });

  it("is refused, naming the line, when a line is missing", () => {
    expect(() => parseH2loadOutput(output.replace(/^status codes:.*$/m, ""))).toThrow(/no status codes line/);
  });
});

describe("a turn's answers", () => {
  // 53815965 bytes are 7665 answers of 7021 bytes.
  it("pass when every answer is a 2xx with the captured body", () => {
    expect(answerProblems(summary, 7021)).toEqual([]);
  });

  it("pass with bodies of answers still arriving at the end, up to those started", () => {
    expect(answerProblems({ ...summary, dataBytes: 7673 * 7021 }, 7021)).toEqual([]);
  });

  it("fail when any answer is not 2xx", () => {
    const problems = answerProblems({ ...summary, statuses: { "2xx": 7664, "3xx": 0, "4xx": 1, "5xx": 0 } }, 7021);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^1 answers of 7665 were not 2xx/);
  });

  it("fail when the bodies are not the captured answer's length", () => {
    expect(answerProblems(summary, 7022)[0]).toMatch(/53815965 body bytes for 7665 answers, not 7022 each/);
    expect(answerProblems(summary, 6000)[0]).toMatch(/not 6000 each/);
  });

  it("fail when requests failed, errored or timed out, or none was answered", () => {
    expect(answerProblems({ ...summary, errored: 2 }, 7021)).toEqual(["0 failed, 2 errored, 0 timed out"]);
    const none = {
      ...summary,
      done: 0,
      started: 0,
      statuses: { "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0 },
      dataBytes: 0,
    };
    expect(answerProblems(none, 7021)).toEqual(["no request was answered"]);
  });
});

describe("h2load's arguments", () => {
  it("make a paced HTTP/1.1 POST with headers, a body file and a request log", () => {
    expect(
      h2loadArguments({
        url: "http://127.0.0.1:1/p",
        seconds: 0.5,
        clients: 4,
        http1: true,
        headers: { "content-type": "application/json", "x-api-key": "k" },
        bodyFile: "/tmp/body",
        ratePerClient: 100,
        logFile: "/tmp/log",
      }),
    ).toEqual([
      ...["-D", "500ms", "-c", "4", "-m", "1", "-t", "1", "--h1"],
      ...["-H", "content-type: application/json", "-H", "x-api-key: k"],
      ...["-d", "/tmp/body", "--rps", "100", "--log-file", "/tmp/log", "http://127.0.0.1:1/p"],
    ]);
  });

  it("make an h2c GET with streams", () => {
    expect(h2loadArguments({ url: "http://h/", seconds: 10, clients: 8, streams: 8 })).toEqual([
      "-D",
      "10000ms",
      "-c",
      "8",
      "-m",
      "8",
      "-t",
      "1",
      "http://h/",
    ]);
  });
});

describe("h2load's request log", () => {
  it("gives each request's time in ms and counts the answers that are not 2xx", () => {
    const log = "1795546794373685\t200\t1672\n1795546794373677\t503\t3026\n1795546794375455\t200\t8070\n";
    expect(readRequestLog(log)).toEqual({ latenciesMs: [1.672, 3.026, 8.07], notOk: 1 });
  });
});
