// A saved query's deprecation from its options: the Deprecation and Sunset
// headers (worked out by hand: 2026-12-01T00:00:00Z is 1,796,083,200 seconds
// after the epoch, 2027-12-31 a Friday), the options that do not hold
// together, and the answer past the sunset.
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createEndpointRegistry, savedQueryServices } from "../../src/endpoints/index.js";
import {
  deprecationOf,
  isPastSunset,
  isPastSunsetError,
  pastSunsetError,
} from "../../src/endpoints/version-lifecycle.js";
import { EndpointDefinitionSchema } from "../../src/gen/endpoints/v1/endpoint_options_pb.js";

const names = new Set(["old", "new"]);
const definition = (fields: { deprecated?: string; sunset?: string; successor?: string }) =>
  create(EndpointDefinitionSchema, { name: "old", ...fields });

describe("deprecationOf", () => {
  it("is none without options", () => {
    expect(deprecationOf(definition({}), names)).toEqual({ problems: [] });
  });

  it("makes the headers of a deprecated version with a sunset", () => {
    const { deprecation, problems } = deprecationOf(
      definition({ deprecated: "2026-12-01", sunset: "2027-12-31", successor: "new" }),
      names,
    );
    expect(problems).toEqual([]);
    expect(deprecation).toEqual({
      deprecatedAt: 1_796_083_200_000,
      sunsetAt: Date.UTC(2027, 11, 31),
      successor: "new",
      headers: { deprecation: "@1796083200", sunset: "Fri, 31 Dec 2027 00:00:00 GMT" },
    });
  });

  it("leaves Sunset out without a sunset", () => {
    const { deprecation } = deprecationOf(definition({ deprecated: "2026-12-01", successor: "new" }), names);
    expect(deprecation?.headers).toEqual({ deprecation: "@1796083200" });
  });

  it.each([
    [{ sunset: "2027-12-31" }, "old: sunset and successor need deprecated"],
    [{ deprecated: "2026-13-01", successor: "new" }, "old: deprecated must be an RFC 3339 date such as 2026-12-01"],
    [
      { deprecated: "2026-12-01T00:00:00Z", successor: "new" },
      "old: deprecated must be an RFC 3339 date such as 2026-12-01",
    ],
    [
      { deprecated: "2026-12-01", sunset: "2027-02-30", successor: "new" },
      "old: sunset must be an RFC 3339 date such as 2027-12-31",
    ],
    [{ deprecated: "2026-12-01", sunset: "2026-12-01", successor: "new" }, "old: sunset must be after deprecated"],
    [{ deprecated: "2026-12-01" }, "old: a deprecated saved query needs a successor"],
    [{ deprecated: "2026-12-01", successor: "gone" }, "old: successor gone is not another saved query"],
    [{ deprecated: "2026-12-01", successor: "old" }, "old: successor old is not another saved query"],
  ])("refuses %o", (fields, problem) => {
    expect(deprecationOf(definition(fields), names)).toEqual({ problems: [problem] });
  });
});

describe("the sunset", () => {
  const { deprecation } = deprecationOf(
    definition({ deprecated: "2026-12-01", sunset: "2027-12-31", successor: "new" }),
    names,
  );

  it("comes at the start of its day, UTC", () => {
    expect(isPastSunset(deprecation, Date.UTC(2027, 11, 30, 23, 59, 59, 999))).toBe(false);
    expect(isPastSunset(deprecation, Date.UTC(2027, 11, 31))).toBe(true);
    expect(isPastSunset(undefined, Date.UTC(2100, 0, 1))).toBe(false);
  });

  it("is answered UNIMPLEMENTED naming the successor", () => {
    const error = pastSunsetError("old", deprecation!);
    expect([error.code, error.rawMessage]).toEqual([
      Code.Unimplemented,
      "old was retired on 2027-12-31; call new instead",
    ]);
    expect(isPastSunsetError(error)).toBe(true);
  });
});

describe("the project's saved queries", () => {
  it("serve usage.api-counts.v2 beside usage.api-counts, the first deprecated in its favour", () => {
    const registry = createEndpointRegistry({ services: savedQueryServices });
    expect(registry.find("usage.api-counts")?.deprecation?.successor).toBe("usage.api-counts.v2");
    expect(registry.find("usage.api-counts.v2")?.deprecation).toBeUndefined();
    expect(registry.find("usage.api-counts.v2")?.parameters.find((p) => p.name === "interval")?.allowedValues).toEqual([
      "hourly",
      "daily",
      "minutely",
      "weekly",
    ]);
  });
});
