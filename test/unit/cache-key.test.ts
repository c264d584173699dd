// The cache key: one entry for equal requests whatever the order of their
// parameters, distinct entries for anything else.
import { describe, expect, it } from "vitest";
import { cacheKey } from "../../src/cache/cache-key.js";

describe("cacheKey", () => {
  it.each([
    ["no parameters", "e", {}, "e\n[]"],
    ["one parameter", "e", { project: "p" }, 'e\n[["project","p"]]'],
    ["parameters in name order", "e", { b: "2", a: "1" }, 'e\n[["a","1"],["b","2"]]'],
    ["a value with quotes", "e", { a: 'x"y' }, 'e\n[["a","x\\"y"]]'],
  ])("%s", (_case, endpoint, normalized, expected) => {
    expect(cacheKey(endpoint, normalized)).toBe(expected);
  });

  it("is the same for the same parameters given in another order", () => {
    expect(cacheKey("usage.api-counts", { project: "p", interval: "daily" })).toBe(
      cacheKey("usage.api-counts", { interval: "daily", project: "p" }),
    );
  });

  it.each([
    ["another endpoint", ["a", { project: "p" }], ["b", { project: "p" }]],
    ["another value", ["a", { project: "p" }], ["a", { project: "q" }]],
    ["a value moved to another name", ["a", { x: "1", y: "" }], ["a", { x: "", y: "1" }]],
    // A separator inside a value cannot forge a second pair: values are JSON-quoted.
    ["a value holding a separator", ["a", { x: '1","y' }], ["a", { x: "1", y: "" }]],
    ["an endpoint name holding a newline", ["a\nb", {}], ["a", { b: "" }]],
  ] as const)("differs for %s", (_case, [e1, p1], [e2, p2]) => {
    expect(cacheKey(e1, p1)).not.toBe(cacheKey(e2, p2));
  });
});
