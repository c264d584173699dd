// The GET query string read onto a saved query's request message: form
// decoding, each name at most once, no undeclared name, and `format=`.
import { describe, expect, it } from "vitest";
import { createEndpointRegistry, savedQueryServices } from "../../src/endpoints/index.js";
import { CSV_FORMAT, NDJSON_FORMAT } from "../../src/transport/http/content-negotiation.js";
import { requestFromQueryString } from "../../src/transport/http/query-string.js";

const registry = createEndpointRegistry({ services: savedQueryServices });
const stats = registry.find("functions.invocation-stats")!;

/** The request's set fields and the violations, for `search` on functions.invocation-stats. */
function read(search: string) {
  const { request, violations, format } = requestFromQueryString(stats, search);
  const { project, functionId, interval } = request as unknown as Record<string, string>;
  return { fields: { project, functionId, interval }, violations, format };
}

const none = { project: "", functionId: "", interval: "" };

describe("requestFromQueryString", () => {
  it.each([
    ["nothing", "", none],
    ["declared names", "project=p&interval=1hr", { ...none, project: "p", interval: "1hr" }],
    ["the proto's field names, not the JSON names", "function_id=f", { ...none, functionId: "f" }],
    ["+ as a space and percent-encoding", "project=a+b%2Fc%20d", { ...none, project: "a b/c d" }],
    ["an encoded + as itself", "project=a%2Bb", { ...none, project: "a+b" }],
    ["a name without = as an empty value", "project", none],
    ["empty pairs skipped", "&&project=p&", { ...none, project: "p" }],
    ["only the first = separating", "project=a=b", { ...none, project: "a=b" }],
  ])("reads %s", (_case, search, fields) => {
    expect(read(search)).toEqual({ fields, violations: [], format: undefined });
  });

  it.each([
    [
      "an undeclared name, naming the declared ones",
      "sql=SELECT%201",
      [
        {
          field: "sql",
          description: "sql is not a parameter of functions.invocation-stats (it takes project, function_id, interval)",
        },
      ],
    ],
    [
      "a repeated name, once however often",
      "project=a&project=b&project=c",
      [{ field: "project", description: "project is given more than once" }],
    ],
    [
      "a malformed value",
      "project=%E0%A4%A",
      [{ field: "project", description: "project has malformed percent-encoding" }],
    ],
    [
      "a malformed name",
      "%ZZ=1",
      [{ field: "query", description: "query string has a parameter name with malformed percent-encoding" }],
    ],
    ["a pair with no name", "=1", [{ field: "query", description: "query string has a parameter with no name" }]],
    ["an unknown format", "format=xml", [{ field: "format", description: "format must be one of json, csv, ndjson" }]],
    [
      "a repeated format",
      "format=csv&format=json",
      [{ field: "format", description: "format is given more than once" }],
    ],
  ])("reports %s", (_case, search, violations) => {
    expect(read(search).violations).toEqual(violations);
  });

  it("reports every problem of one query string, in order", () => {
    expect(read("a=1&project=x&b=2&project=y").violations.map((v) => v.field)).toEqual(["a", "b", "project"]);
  });

  it("leaves a repeated or malformed parameter out of the request, keeping the others", () => {
    expect(read("project=a&project=b&interval=1hr").fields).toEqual({ ...none, interval: "1hr" });
    expect(read("project=%E0&interval=1hr").fields).toEqual({ ...none, interval: "1hr" });
  });

  it.each([
    ["format=csv", CSV_FORMAT],
    ["format=ndjson&project=p", NDJSON_FORMAT],
    ["format=csv&format=json", CSV_FORMAT], // the first one stands beside its violation
    ["format=", undefined],
  ])("takes the body format from %s, never as a parameter", (search, format) => {
    expect(read(search).format).toBe(format);
    expect(read(search).fields.project).toBe(search.includes("project=p") ? "p" : "");
  });
});
