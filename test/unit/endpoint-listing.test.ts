// GET /api/endpoints: the definitions as the proto options state them, and
// for a scoped credential only its endpoints, with the parameters it fixes.
import { describe, expect, it } from "vitest";
import { createEndpointRegistry, savedQueryServices } from "../../src/endpoints/index.js";
import { endpointListing } from "../../src/transport/http/endpoint-listing.js";

const registry = createEndpointRegistry({ services: savedQueryServices });
const formats = ["json", "csv", "ndjson"];

describe("endpointListing", () => {
  it("lists functions.invocation-stats as proto/functions/v1/functions.proto defines it", () => {
    const listed = endpointListing(registry).result.find((e) => e.name === "functions.invocation-stats");
    expect(listed).toEqual({
      name: "functions.invocation-stats",
      id: "1f3a6c2e-5b7d-4e8f-9a0b-2c4d6e8f0a1b",
      max_rows: 1000,
      cache_ttl_seconds: 900,
      cache_warming_seconds: 300,
      sandboxed: false,
      grpc_method: "functions.v1.FunctionsService/GetInvocationStats",
      grpc_watch_method: "functions.v1.FunctionsService/WatchInvocationStats",
      paths: ["/api/endpoints/functions.invocation-stats", "/api/endpoints/query/1f3a6c2e-5b7d-4e8f-9a0b-2c4d6e8f0a1b"],
      formats,
      parameters: [
        { name: "project", required: true, allowed_values: [], default: null, max_length: 1024 },
        { name: "function_id", required: false, allowed_values: [], default: null, max_length: 1024 },
        {
          name: "interval",
          required: false,
          allowed_values: ["5min", "15min", "1hr", "1day", "7day"],
          default: "1day",
          max_length: 1024,
        },
      ],
    });
  });

  it.each([
    ["usage.api-counts", "usage.v1.UsageService/GetApiCounts", 900, 300, ["project", "interval"]],
    [
      "logs.all",
      "logs.v1.LogsService/GetAllLogs",
      0,
      0,
      ["project", "project_tier", "iso_timestamp_start", "iso_timestamp_end", "page_token"],
    ],
  ])("lists %s with its method, cache, warming and parameters", (name, method, ttl, warming, parameters) => {
    const listed = endpointListing(registry).result.find((e) => e.name === name)!;
    expect([listed.grpc_method, listed.cache_ttl_seconds, listed.cache_warming_seconds]).toEqual([
      method,
      ttl,
      warming,
    ]);
    expect(listed.parameters.map((p) => p.name)).toEqual(parameters);
  });

  it("lists every saved query, in the order of the services, with no fixed parameters", () => {
    const { result } = endpointListing(registry);
    expect(result.map((e) => e.name)).toEqual([
      "functions.invocation-stats",
      "usage.api-counts",
      "usage.api-counts.v2",
      "logs.all",
      "service.call-stats",
    ]);
    for (const listed of result) expect(listed).not.toHaveProperty("fixed_parameters");
  });

  it("shows a deprecated version's day, sunset and successor, and nothing on the others", () => {
    const { result } = endpointListing(registry);
    expect(result.find((e) => e.name === "usage.api-counts")?.deprecated).toEqual({
      since: "2026-12-01",
      sunset: "2027-12-31",
      successor: "usage.api-counts.v2",
    });
    expect(result.filter((e) => "deprecated" in e).map((e) => e.name)).toEqual(["usage.api-counts"]);
  });

  it("lists only the endpoints a scope allows", () => {
    const { result } = endpointListing(registry, { endpoints: new Set(["logs.all", "usage.api-counts"]) });
    expect(result.map((e) => e.name)).toEqual(["usage.api-counts", "logs.all"]);
  });

  it("lists nothing for a scope of no endpoints", () => {
    expect(endpointListing(registry, { endpoints: new Set() }).result).toEqual([]);
  });

  it("shows each endpoint only the fixed parameters it has", () => {
    const { result } = endpointListing(registry, { fixed: { project: "p", project_tier: "PRO" } });
    expect(result.map((e) => [e.name, e.fixed_parameters])).toEqual([
      ["functions.invocation-stats", { project: "p" }],
      ["usage.api-counts", { project: "p" }],
      ["usage.api-counts.v2", { project: "p" }],
      ["logs.all", { project: "p", project_tier: "PRO" }],
      ["service.call-stats", undefined],
    ]);
  });

  it("leaves fixed_parameters out where a scope fixes none of the endpoint's", () => {
    const { result } = endpointListing(registry, { fixed: { project_tier: "PRO" } });
    expect(result.map((e) => "fixed_parameters" in e)).toEqual([false, false, false, true, false]);
  });

  it("states the registry's longest parameter value", () => {
    const short = createEndpointRegistry({ services: savedQueryServices, maxParameterLength: 8 });
    const lengths = endpointListing(short).result.flatMap((e) => e.parameters.map((p) => p.max_length));
    expect(new Set(lengths)).toEqual(new Set([8]));
  });
});
