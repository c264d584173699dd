// `npm run import`'s address of the configured service: HOST and PORT as a
// URL a client reaches (its talk with the route is tested against the real
// server, test/integration/http/import-client.test.ts).
import { describe, expect, it } from "vitest";
import { configuredServiceUrl } from "../../src/cli/import-through-service.js";

describe("the configured service's URL", () => {
  it.each([
    ["127.0.0.1", "http://127.0.0.1:8080"],
    ["0.0.0.0", "http://127.0.0.1:8080"],
    ["::", "http://[::1]:8080"],
    ["fd00::5", "http://[fd00::5]:8080"],
  ])("reaches HOST %s at %s", (host, expected) => {
    expect(configuredServiceUrl({ host, port: 8080 })).toBe(expected);
  });
});
