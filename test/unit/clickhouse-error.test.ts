// Translation of warehouse failures into ConnectError codes, in one function.
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { fieldViolationsOf } from "../../src/errors/index.js";
import { connectErrorFromClickHouse } from "../../src/executor/clickhouse-error.js";
import type { ReadLimits } from "../../src/executor/read-limits.js";
import { WarehouseClosedError } from "../../src/warehouse/index.js";

/** An error shaped like ClickHouseError: numeric code as text, and the type name. */
function clickhouse(type: string, code: string, message = `warehouse says ${type}`) {
  return Object.assign(new Error(message), { code, type });
}
function network(code: string) {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:8123`), { code });
}
/** An error shaped like chDB's: a string `code` of its own and the ClickHouse code as a number. */
function chdb(code: string, clickhouseCode?: number) {
  return Object.assign(new Error(`chdb says ${code}`), { code, clickhouseCode });
}
/** A plain error wrapping `cause`, as the embedded connection wraps chDB's errors. */
function wrapping(cause: unknown) {
  return new Error("Failed to create connection", { cause });
}

describe("connectErrorFromClickHouse", () => {
  it.each([
    ["TIMEOUT_EXCEEDED", clickhouse("TIMEOUT_EXCEEDED", "159"), Code.DeadlineExceeded],
    ["TOO_MANY_SIMULTANEOUS_QUERIES", clickhouse("TOO_MANY_SIMULTANEOUS_QUERIES", "202"), Code.Unavailable],
    ["UNKNOWN_TABLE", clickhouse("UNKNOWN_TABLE", "60"), Code.Internal],
    ["SYNTAX_ERROR", clickhouse("SYNTAX_ERROR", "62"), Code.Internal],
    ["ECONNREFUSED", network("ECONNREFUSED"), Code.Unavailable],
    ["ENOTFOUND", network("ENOTFOUND"), Code.Unavailable],
    ["ECONNRESET", network("ECONNRESET"), Code.Unavailable],
    ["TIMEOUT_EXCEEDED below a wrapper", wrapping(clickhouse("TIMEOUT_EXCEEDED", "159")), Code.DeadlineExceeded],
    ["chDB's TIMEOUT_EXCEEDED by its numeric code", wrapping(chdb("CHDB_QUERY", 159)), Code.DeadlineExceeded],
    ["chDB's UNKNOWN_TABLE by its numeric code", wrapping(chdb("CHDB_QUERY", 60)), Code.Internal],
    [
      "a ClickHouse error whose type name says timeout but whose code does not",
      clickhouse("TIMEOUT_EXCEEDED", "60"),
      Code.Internal,
    ],
    ["a chDB session that cannot open", wrapping(chdb("CHDB_CONNECTION")), Code.Unavailable],
    ["a closed chDB session", chdb("CHDB_CLOSED"), Code.Unavailable],
    ["an embedded warehouse that is not open", new WarehouseClosedError(new Error("held elsewhere")), Code.Unavailable],
    ["a reset socket below a wrapper", wrapping(network("ECONNRESET")), Code.Unavailable],
    [
      "an error named like chDB's connection error but without its code",
      Object.assign(new Error("x"), { name: "ChdbConnectionError" }),
      Code.Internal,
    ],
    ["a message that only reads like a timeout", new Error("Timeout error."), Code.Internal],
    ["anything else", new TypeError("boom"), Code.Internal],
    ["a non-error", "boom", Code.Internal],
  ])("maps %s to its code", (_label, error, code) => {
    expect(connectErrorFromClickHouse(error).code).toBe(code);
  });

  it("names the regular-expression parameter when the pattern does not compile", () => {
    const error = connectErrorFromClickHouse(clickhouse("CANNOT_COMPILE_REGEXP", "427"), {
      regexpParameter: "project",
    });
    expect(error.code).toBe(Code.InvalidArgument);
    expect(fieldViolationsOf(error)).toEqual([
      { field: "project", description: "project is not a valid RE2 regular expression" },
    ]);
  });

  it("names the regular-expression parameter when chDB's uncompilable-pattern code is further down the chain", () => {
    const error = connectErrorFromClickHouse(wrapping(chdb("CHDB_QUERY", 427)), { regexpParameter: "project" });
    expect(error.code).toBe(Code.InvalidArgument);
  });

  it("treats an uncompilable pattern with no regular-expression parameter as internal", () => {
    expect(connectErrorFromClickHouse(clickhouse("CANNOT_COMPILE_REGEXP", "427")).code).toBe(Code.Internal);
  });

  it.each([
    ["deadline", Code.DeadlineExceeded],
    ["caller", Code.Canceled],
  ] as const)("reports an abort by the %s as its code whatever was thrown", (aborted, code) => {
    expect(connectErrorFromClickHouse(new Error("The user aborted a request."), { aborted }).code).toBe(code);
  });

  it("keeps warehouse text out of the message and in the cause", () => {
    const original = clickhouse("UNKNOWN_TABLE", "60", "Table secret.thing does not exist");
    const error = connectErrorFromClickHouse(original);
    expect(error.rawMessage).toBe("internal error");
    expect(error.cause).toBe(original);
  });

  it("passes a ConnectError through unchanged", () => {
    const error = new ConnectError("x", Code.NotFound);
    expect(connectErrorFromClickHouse(error)).toBe(error);
  });
});

describe("connectErrorFromClickHouse and resource limits", () => {
  const limits: ReadLimits = {
    max_rows_to_read: { value: 1000, source: "credential" },
    max_bytes_to_read: { value: 1048576, source: "saved query" },
  };

  it.each([
    ["TOO_MANY_ROWS", clickhouse("TOO_MANY_ROWS", "158"), "rows to read past the limit of 1000 set by the credential"],
    [
      "TOO_MANY_BYTES",
      clickhouse("TOO_MANY_BYTES", "307"),
      "bytes to read past the limit of 1048576 set by the saved query",
    ],
    [
      "chDB's TOO_MANY_ROWS, down the chain",
      wrapping(chdb("CHDB_QUERY", 158)),
      "rows to read past the limit of 1000 set by the credential",
    ],
  ])("names the read limit a query ran past (%s), with no Retry-After", (_label, error, message) => {
    const translated = connectErrorFromClickHouse(error, { readLimits: limits });
    expect(translated.code).toBe(Code.ResourceExhausted);
    expect(translated.rawMessage).toBe(message);
    expect(translated.metadata.get("retry-after")).toBeNull();
  });

  it.each([
    ["MEMORY_LIMIT_EXCEEDED", clickhouse("MEMORY_LIMIT_EXCEEDED", "241")],
    ["TOO_MANY_ROWS_OR_BYTES", clickhouse("TOO_MANY_ROWS_OR_BYTES", "396")],
    ["LIMIT_EXCEEDED", clickhouse("LIMIT_EXCEEDED", "290")],
    ["TOO_MANY_ROWS without a read limit of the call", clickhouse("TOO_MANY_ROWS", "158")],
    ["chDB's MEMORY_LIMIT_EXCEEDED", chdb("CHDB_QUERY", 241)],
  ])("answers another resource limit (%s) as resource_exhausted with a fixed message", (_label, error) => {
    const translated = connectErrorFromClickHouse(error);
    expect(translated.code).toBe(Code.ResourceExhausted);
    expect(translated.rawMessage).toBe("the query ran past a resource limit of the warehouse");
    expect(translated.message).not.toContain("warehouse says");
    expect(translated.metadata.get("retry-after")).toBeNull();
  });

  it("names the row limit only for TOO_MANY_ROWS, the byte limit only for TOO_MANY_BYTES", () => {
    const rowsOnly: ReadLimits = { max_rows_to_read: { value: 5, source: "default" } };
    expect(connectErrorFromClickHouse(clickhouse("TOO_MANY_BYTES", "307"), { readLimits: rowsOnly }).rawMessage).toBe(
      "the query ran past a resource limit of the warehouse",
    );
    expect(connectErrorFromClickHouse(clickhouse("TOO_MANY_ROWS", "158"), { readLimits: rowsOnly }).rawMessage).toBe(
      "rows to read past the limit of 5 set by the service's default",
    );
  });
});
