// A failure repeated on every retry is logged once at warn, then at debug
// with a count; a new failure is warned again; the streak's end says how
// many tries failed.
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/index.js";
import { createFailureStreak, describeFailure } from "../../src/warehouse/failure-streak.js";

function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: "debug",
    write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { logger, lines };
}

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });

describe("createFailureStreak", () => {
  it("warns once with the error, then logs the same failure at debug with a count and no stack", () => {
    const { logger, lines } = recordingLogger();
    const streak = createFailureStreak(logger);
    for (let i = 0; i < 3; i++)
      streak.failed(refused(), { msg: "warehouse not reachable yet", fields: { retryInMs: 100 } });
    expect(lines.map((l) => l.level)).toEqual(["warn", "debug", "debug"]);
    expect(lines[0]).toMatchObject({
      msg: "warehouse not reachable yet",
      retryInMs: 100,
      error: { name: "Error", message: "connect ECONNREFUSED 127.0.0.1:9" },
    });
    expect((lines[0]!.error as { stack?: string }).stack).toContain("failure-streak.test.ts");
    expect(lines[2]).toMatchObject({
      msg: "warehouse not reachable yet",
      failures: 3,
      error: "Error: connect ECONNREFUSED 127.0.0.1:9",
    });
    expect(streak.failures).toBe(3);
  });

  it("warns again when the failure changes, and again after the streak ended", () => {
    const { logger, lines } = recordingLogger();
    const streak = createFailureStreak(logger);
    streak.failed(refused(), { msg: "down" });
    streak.failed(new Error("Code: 60. Table default.x does not exist"), { msg: "down" });
    streak.failed(new Error("Code: 60. Table default.x does not exist"), { msg: "down" });
    expect(streak.end()).toBe(3);
    expect(streak.end()).toBe(0);
    streak.failed(refused(), { msg: "down" });
    expect(lines.map((l) => l.level)).toEqual(["warn", "warn", "debug", "warn"]);
  });

  it("logs a failure another part reported only at debug, and counts it as the last failure", () => {
    const { logger, lines } = recordingLogger();
    const streak = createFailureStreak(logger);
    const closed = () => new Error("the embedded warehouse is not open", { cause: refused() });
    streak.failed(closed(), { msg: "down", reportedElsewhere: true });
    streak.failed(closed(), { msg: "down" });
    expect(lines.map((l) => l.level)).toEqual(["debug", "debug"]);
  });

  it("leaves the error out of the warn line when asked to", () => {
    const { logger, lines } = recordingLogger();
    createFailureStreak(logger).failed(refused(), { msg: "held", fields: { path: "/d", pid: 7 }, withError: false });
    expect(lines).toEqual([{ time: expect.any(String), level: "warn", msg: "held", path: "/d", pid: 7 }]);
  });
});

describe("describeFailure", () => {
  it("names each error of the cause chain", () => {
    const error = new TypeError("outer", { cause: new RangeError("inner", { cause: "text" }) });
    expect(describeFailure(error)).toBe("TypeError: outer; caused by RangeError: inner; caused by text");
  });
});
