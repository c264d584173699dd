// OIDC_ISSUERS and its companions read from the environment: both shapes of
// the list, audiences and names filled in, and one line naming the variable
// for each bad setting.
import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../../src/config/index.js";

const allAlgorithms = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

function problemsOf(env: Record<string, string>): string[] {
  try {
    readConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("OIDC_ISSUERS", () => {
  it("reads comma-separated issuers, each with OIDC_AUDIENCE and its host as its name", () => {
    const { oidc } = readConfig({
      OIDC_ISSUERS: "https://a.example.com/, https://login.example.org/realms/x",
      OIDC_AUDIENCE: "https://logs.example.com",
    }).credentials;
    expect(oidc).toEqual({
      clockSkewMs: 60_000,
      minRefreshMs: 30_000,
      issuers: [
        {
          issuer: "https://a.example.com/",
          audience: "https://logs.example.com",
          name: "a.example.com",
          algorithms: allAlgorithms,
        },
        {
          issuer: "https://login.example.org/realms/x",
          audience: "https://logs.example.com",
          name: "login.example.org",
          algorithms: allAlgorithms,
        },
      ],
    });
  });

  it("reads a JSON list with an audience, name, algorithms and claim mapping per issuer", () => {
    const issuers = [
      {
        issuer: "https://kc.example.com/realms/a",
        audience: "logs-api",
        name: "kc-a",
        algorithms: ["ES256"],
        claims: { endpoints: "scope", fixed: { project: "org_id" }, rps: "https://logs/rps", import: "may_import" },
      },
      { issuer: "https://kc.example.com/realms/b", name: "kc-b" },
    ];
    const { oidc } = readConfig({
      OIDC_ISSUERS: JSON.stringify(issuers),
      OIDC_AUDIENCE: "default-audience",
      OIDC_CLOCK_SKEW_SECONDS: "5",
      OIDC_JWKS_MIN_REFRESH_SECONDS: "10",
    }).credentials;
    expect(oidc).toEqual({
      clockSkewMs: 5_000,
      minRefreshMs: 10_000,
      issuers: [
        issuers[0],
        {
          issuer: "https://kc.example.com/realms/b",
          name: "kc-b",
          audience: "default-audience",
          algorithms: allAlgorithms,
        },
      ],
    });
  });

  it("may be set with a JWT key and counts as a credential beside a ClickHouse server", () => {
    const config = readConfig({
      OIDC_ISSUERS: "https://a.example.com",
      OIDC_AUDIENCE: "x",
      JWT_SECRET: "s".repeat(32),
      CLICKHOUSE_URL: "http://localhost:8123",
    });
    expect([config.credentials.jwtSecret?.length, config.credentials.oidc?.issuers.length]).toEqual([32, 1]);
  });

  it.each([
    [
      { OIDC_ISSUERS: "http://idp.example.com" },
      "OIDC_ISSUERS issuer 1 (http://idp.example.com): issuer must be https (plain http only for a loopback host)",
    ],
    [
      { OIDC_ISSUERS: "https://idp.example.com" },
      'OIDC_ISSUERS issuer https://idp.example.com has no audience: set OIDC_AUDIENCE or its "audience"',
    ],
    [{ OIDC_ISSUERS: "[{issuer}]" }, "OIDC_ISSUERS starting with [ must be a JSON list of issuers"],
    [
      { OIDC_ISSUERS: '[{"issuer":"https://a","audience":"x","algorithms":["HS256"]}]' },
      "OIDC_ISSUERS issuer 1 (https://a): algorithm HS256 is not allowed; only RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA",
    ],
    [
      { OIDC_ISSUERS: '[{"issuer":"https://a","audience":"x","algorithms":["none"]}]' },
      "OIDC_ISSUERS issuer 1 (https://a): algorithm none is not allowed; only RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA",
    ],
    [
      { OIDC_ISSUERS: '[{"issuer":"https://a","audience":"x","claims":{"project":"org_id"}}]' },
      "OIDC_ISSUERS issuer 1 (https://a): claims.project is unknown; known: endpoints, fixed, rps, max_rows_to_read, max_bytes_to_read, import, unmasked",
    ],
    [
      { OIDC_ISSUERS: '[{"issuer":"https://a","audience":"x","claims":{"fixed":{"project":7}}}]' },
      "OIDC_ISSUERS issuer 1 (https://a): claims.fixed must map parameter names to claim names",
    ],
    [
      { OIDC_ISSUERS: '[{"issuer":"https://a","audiences":"x"}]' },
      "OIDC_ISSUERS issuer 1 (https://a): unknown field audiences; known: issuer, audience, name, algorithms, claims",
    ],
    [
      { OIDC_ISSUERS: "https://a.example.com,https://a.example.com", OIDC_AUDIENCE: "x" },
      "OIDC_ISSUERS lists https://a.example.com twice",
    ],
    [
      { OIDC_ISSUERS: "https://kc.example.com/realms/a,https://kc.example.com/realms/b", OIDC_AUDIENCE: "x" },
      'OIDC_ISSUERS issuers https://kc.example.com/realms/a and https://kc.example.com/realms/b are both named kc.example.com: give each a "name"',
    ],
    [{ OIDC_AUDIENCE: "x" }, "OIDC_AUDIENCE needs OIDC_ISSUERS"],
    [
      { OIDC_ISSUERS: "https://a", OIDC_AUDIENCE: "x", OIDC_JWKS_MIN_REFRESH_SECONDS: "0" },
      'OIDC_JWKS_MIN_REFRESH_SECONDS must be a whole number of at least 1, got "0"',
    ],
  ])("stops start-up for %j with one line naming it", (env, problem) => {
    expect(problemsOf(env)).toEqual([problem]);
  });
});
