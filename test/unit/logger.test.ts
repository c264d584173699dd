import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/index.js";

type Line = Record<string, unknown>;

function capture() {
  const lines: Line[] = [];
  const logger = createLogger({ write: (line) => lines.push(JSON.parse(line) as Line), now: () => 0 });
  return { logger, lines };
}

describe("logger", () => {
  it("writes an error field with its name, message, code and stack", () => {
    const { logger, lines } = capture();
    const error = Object.assign(new TypeError("bad row"), { code: "E_ROW" });
    logger.error("failed", { error });
    expect(lines[0]).toEqual({
      time: "1970-01-01T00:00:00.000Z",
      level: "error",
      msg: "failed",
      error: { name: "TypeError", message: "bad row", code: "E_ROW", stack: error.stack },
    });
    expect(error.stack).toContain("logger.test.ts");
  });

  it("writes the cause chain, an Error cause with its own stack and a non-Error cause as it is", () => {
    const { logger, lines } = capture();
    const root = { errno: -104, syscall: "read" };
    const inner = new Error("socket closed", { cause: root });
    const outer = new Error("query failed", { cause: inner });
    logger.warn("failed", { error: outer });
    expect(lines[0]!.error).toEqual({
      name: "Error",
      message: "query failed",
      stack: outer.stack,
      cause: { name: "Error", message: "socket closed", stack: inner.stack, cause: { errno: -104, syscall: "read" } },
    });
  });

  it("writes a string cause as the string", () => {
    const { logger, lines } = capture();
    logger.error("failed", { error: new Error("timed out", { cause: "deadline" }) });
    expect((lines[0]!.error as Line).cause).toBe("deadline");
  });

  it("finds errors anywhere in the fields: nested objects, arrays and a child logger's fields", () => {
    const { logger, lines } = capture();
    const first = new Error("first");
    const second = new RangeError("second");
    logger.child({ bound: first }).info("batch", { request: { failures: [1, second] } });
    expect(lines[0]!.bound).toEqual({ name: "Error", message: "first", stack: first.stack });
    expect(lines[0]!.request).toEqual({
      failures: [1, { name: "RangeError", message: "second", stack: second.stack }],
    });
  });

  it("cuts a cause cycle where it comes back", () => {
    const { logger, lines } = capture();
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    a.cause = b;
    logger.error("failed", { error: a });
    expect(lines[0]!.error).toEqual({
      name: "Error",
      message: "a",
      stack: a.stack,
      cause: { name: "Error", message: "b", stack: b.stack, cause: "[circular]" },
    });
  });

  it("cuts an error that is its own cause and an object that contains itself", () => {
    const { logger, lines } = capture();
    const error = new Error("self");
    error.cause = error;
    const holder: Record<string, unknown> = { name: "holder" };
    holder.self = holder;
    logger.error("failed", { error, holder });
    expect((lines[0]!.error as Line).cause).toBe("[circular]");
    expect(lines[0]!.holder).toEqual({ name: "holder", self: "[circular]" });
  });

  it("writes the same error twice when two fields hold it, which is no cycle", () => {
    const { logger, lines } = capture();
    const error = new Error("shared");
    logger.error("failed", { error, again: error });
    expect(lines[0]!.again).toEqual(lines[0]!.error);
  });

  it("writes at most nine errors of a long cause chain, then marks it truncated", () => {
    const { logger, lines } = capture();
    // e0 caused by e1 caused by ... e19.
    let error: Error | undefined;
    for (let i = 19; i >= 0; i -= 1) error = new Error(`e${i}`, { cause: error });
    logger.error("failed", { error });
    // The field is one level below the line's top, e1 two, ... e8 nine; level ten is cut.
    const messages: string[] = [];
    let written: unknown = lines[0]!.error;
    while (typeof written === "object" && written !== null) {
      messages.push((written as Line).message as string);
      written = (written as Line).cause;
    }
    expect(messages).toEqual(["e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8"]);
    expect(written).toBe("[truncated]");
  });

  it("writes bigints as text and dates as JSON writes them", () => {
    const { logger, lines } = capture();
    logger.info("sizes", { bytes: 12345678901234567890n, at: new Date(0) });
    expect(lines[0]).toMatchObject({ bytes: "12345678901234567890", at: "1970-01-01T00:00:00.000Z" });
  });
});
