// Parameter rules of the three endpoints (docs/endpoints.md, Parameter
// rules), read from the proto options: required, allowed values, defaults,
// formats.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createEndpointRegistry, savedQueryServices } from "../../src/endpoints/index.js";
import { bindParameters } from "../../src/endpoints/parameters.js";
import { fieldViolationsOf } from "../../src/errors/index.js";

const registry = createEndpointRegistry({ services: savedQueryServices });

function bind(name: string, fields: Record<string, string>) {
  const endpoint = registry.find(name)!;
  return bindParameters(endpoint, create(endpoint.method.input, fields as never));
}

function violations(name: string, fields: Record<string, string>) {
  try {
    bind(name, fields);
  } catch (error) {
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
    return fieldViolationsOf(error as ConnectError);
  }
  throw new Error("expected INVALID_ARGUMENT");
}

describe("bindParameters", () => {
  it.each([
    ["functions.invocation-stats", { project: "p" }, { project: "p", function_id: "", interval: "1day" }],
    [
      "functions.invocation-stats",
      { project: "p", interval: "weekly" },
      { project: "p", function_id: "", interval: "1day" },
    ],
    [
      "functions.invocation-stats",
      { project: "p", interval: "5min", functionId: "f" },
      { project: "p", function_id: "f", interval: "5min" },
    ],
    ["usage.api-counts", { project: "a|b", interval: "daily" }, { project: "a|b", interval: "daily" }],
    [
      "logs.all",
      { project: "p" },
      { project: "p", project_tier: "FREE", iso_timestamp_start: "", iso_timestamp_end: "" },
    ],
    [
      "logs.all",
      { project: "p", projectTier: "gold" },
      { project: "p", project_tier: "FREE", iso_timestamp_start: "", iso_timestamp_end: "" },
    ],
    [
      "logs.all",
      { project: "p", projectTier: "PRO", isoTimestampStart: "2026-11-20T10:00:00+02:00" },
      { project: "p", project_tier: "PRO", iso_timestamp_start: "2026-11-20 08:00:00.000000", iso_timestamp_end: "" },
    ],
  ])("%s with %j normalises to %j", (name, fields, normalized) => {
    expect(bind(name, fields).normalized).toEqual(normalized);
  });

  it("hands absent bounds to the SQL as NULL", () => {
    const { queryParams } = bind("logs.all", { project: "p", isoTimestampEnd: "2026-01-01" });
    expect(queryParams).toEqual({
      project: "p",
      project_tier: "FREE",
      iso_timestamp_start: null,
      iso_timestamp_end: "2026-01-01 00:00:00.000000",
    });
  });

  it.each([
    ["functions.invocation-stats", {}, [["project", "project is required"]]],
    [
      "usage.api-counts",
      {},
      [
        ["project", "project is required"],
        ["interval", "interval is required"],
      ],
    ],
    [
      "usage.api-counts",
      { project: "p", interval: "weekly" },
      [["interval", "interval must be one of hourly, daily, minutely"]],
    ],
    [
      "logs.all",
      { isoTimestampStart: "soon", isoTimestampEnd: "later" },
      [
        ["project", "project is required"],
        ["iso_timestamp_start", "iso_timestamp_start must be an ISO 8601 date or date-time, e.g. 2026-11-20T21:59:00Z"],
        ["iso_timestamp_end", "iso_timestamp_end must be an ISO 8601 date or date-time, e.g. 2026-11-20T21:59:00Z"],
      ],
    ],
    [
      "logs.all",
      { project: "p", isoTimestampStart: "0050-01-01T00:00:00Z", isoTimestampEnd: "2300-01-01" },
      [
        ["iso_timestamp_start", "iso_timestamp_start must be between 1900-01-01 and 2299-12-31"],
        ["iso_timestamp_end", "iso_timestamp_end must be between 1900-01-01 and 2299-12-31"],
      ],
    ],
  ])("%s with %j lists every violation", (name, fields, expected) => {
    expect(violations(name, fields).map((v) => [v.field, v.description])).toEqual(expected);
  });
});

describe("parameter length bound", () => {
  const short = createEndpointRegistry({ services: savedQueryServices, maxParameterLength: 8 });
  const bindShort = (name: string, fields: Record<string, string>) => {
    const endpoint = short.find(name)!;
    return bindParameters(endpoint, create(endpoint.method.input, fields as never));
  };

  it("accepts a value of exactly the bound and refuses one character more, naming each field", () => {
    expect(bindShort("logs.all", { project: "12345678" }).normalized.project).toBe("12345678");
    let error: ConnectError | undefined;
    try {
      bindShort("logs.all", { project: "123456789", projectTier: "ENTERPRISE" });
    } catch (e) {
      error = e as ConnectError;
    }
    expect(fieldViolationsOf(error!)).toEqual([
      { field: "project", description: "project is longer than 8 characters" },
      { field: "project_tier", description: "project_tier is longer than 8 characters" },
    ]);
  });

  it("is 1,024 characters by default", () => {
    expect(registry.endpoints.flatMap((e) => e.parameters.map((p) => p.maxLength))).toEqual(Array(15).fill(1024));
  });

  it("refuses a usage pattern with a Unicode class before it reaches the warehouse", () => {
    expect(violations("usage.api-counts", { project: "\\pL{30}", interval: "daily" })).toEqual([
      { field: "project", description: "project must not use Unicode classes (\\p, \\P): request URLs are ASCII" },
    ]);
  });
});
