import { describe, expect, it } from "vitest";
import { type Credential, isScopedFor, seeingOwnCallsOnly } from "../../src/auth/index.js";

const callStats = { parameters: [{ name: "interval" }, { name: "endpoint" }, { name: "caller" }] };
const apiCounts = { parameters: [{ name: "interval" }, { name: "url_pattern" }] };
const key: Credential = { id: "tenant-a" };

describe("isScopedFor", () => {
  it.each([
    ["a full-access key, any endpoint", key, apiCounts, false],
    ["a key-file key, an endpoint without caller", seeingOwnCallsOnly(key), apiCounts, false],
    ["a key-file key, service.call-stats (its own caller fixed)", seeingOwnCallsOnly(key), callStats, true],
    ["a key fixing a parameter of the endpoint", { id: "k", fixed: { url_pattern: "/a%" } }, apiCounts, true],
    ["a key fixing a parameter of another endpoint", { id: "k", fixed: { project_tier: "FREE" } }, apiCounts, false],
    ["a key limited to some endpoints", { id: "k", endpoints: new Set(["usage.api-counts"]) }, apiCounts, true],
    ["a key with read limits", { id: "k", readLimits: { maxRowsToRead: 10, maxBytesToRead: 0 } }, apiCounts, true],
  ])("%s", (_name, credential, endpoint, scoped) => {
    expect(isScopedFor(credential as Credential, endpoint)).toBe(scoped);
  });
});
