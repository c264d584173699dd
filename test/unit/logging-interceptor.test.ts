// The call log: a caller that went away mid-request is logged at info as
// CANCELED, not at error as the service's fault, so resetting streams buys
// nobody error lines; a real UNKNOWN failure still goes at error.
import { Code, ConnectError, createContextValues } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { Health } from "../../src/gen/grpc/health/v1/health_pb.js";
import { createLogger } from "../../src/observability/index.js";
import { loggingInterceptor } from "../../src/transport/index.js";

async function logOf(signal: AbortSignal) {
  const lines: { level: string; msg: string; code: string }[] = [];
  const logger = createLogger({
    level: "info",
    write: (line) => void lines.push(JSON.parse(line) as { level: string; msg: string; code: string }),
  });
  const observed: (Code | "ok")[] = [];
  const intercept = loggingInterceptor(logger, { observe: ({ code }) => observed.push(code) });
  const failing = async () => {
    throw new ConnectError("premature close", Code.Unknown);
  };
  const request = {
    header: new Headers(),
    contextValues: createContextValues(),
    service: Health,
    method: Health.method.watch,
    signal,
  };
  const error = await intercept(failing as never)(request as never).catch((e: unknown) => e);
  return { lines: lines.map(({ level, msg, code }) => ({ level, msg, code })), observed, error: error as ConnectError };
}

describe("logging interceptor", () => {
  it("logs an UNKNOWN failure of a call whose caller has gone as CANCELED at info", async () => {
    const gone = new AbortController();
    gone.abort();
    const { lines, observed, error } = await logOf(gone.signal);
    expect(lines).toEqual([{ level: "info", msg: "call", code: "Canceled" }]);
    expect(observed).toEqual([Code.Canceled]);
    expect(error.code).toBe(Code.Unknown); // the caller is gone; what it would have been told is unchanged
  });

  it("keeps an UNKNOWN failure of a caller still there at error", async () => {
    const { lines, observed } = await logOf(new AbortController().signal);
    expect(lines).toEqual([{ level: "error", msg: "call failed", code: "Unknown" }]);
    expect(observed).toEqual([Code.Unknown]);
  });

  it("writes a success's line at debug only, and counts it in the metrics at every level", async () => {
    for (const level of ["debug", "info"] as const) {
      const lines: { level: string; msg: string; code: string }[] = [];
      const logger = createLogger({ level, write: (line) => void lines.push(JSON.parse(line) as never) });
      const observed: (Code | "ok")[] = [];
      const intercept = loggingInterceptor(logger, { observe: ({ code }) => observed.push(code) });
      const answering = async () => ({ header: new Headers(), trailer: new Headers() });
      const request = {
        header: new Headers(),
        contextValues: createContextValues(),
        service: Health,
        method: Health.method.check,
        requestMethod: "POST",
        url: "/grpc.health.v1.Health/Check",
        signal: new AbortController().signal,
      };
      await intercept(answering as never)(request as never);
      expect(observed).toEqual(["ok"]);
      expect(lines.map(({ level, msg, code }) => ({ level, msg, code }))).toEqual(
        level === "debug" ? [{ level: "debug", msg: "call", code: "ok" }] : [],
      );
    }
  });
});
