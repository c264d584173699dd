// What an issuer's token may do, read from its claims by the issuer's mapping, and the claim named when one is missing or malformed.
import { describe, expect, it } from "vitest";
import { type ClaimMapping, mappedCredential } from "../../src/auth/claim-mapping.js";
import { createOidcVerifier } from "../../src/auth/oidc-verifier.js";

const known = {
  knownEndpoints: new Set(["logs.all", "usage.api-counts"]),
  knownParameters: new Set(["project", "project_tier"]),
};
const mapping: ClaimMapping = {
  endpoints: "scope",
  fixed: { project: "org_id", project_tier: "https://logs.example.com/tier" },
  rps: "https://logs.example.com/rps",
  max_rows_to_read: "max_rows",
  import: "may_import",
};
const claims = {
  scope: "openid logs.all profile",
  org_id: "acme",
  "https://logs.example.com/tier": "PRO",
  "https://logs.example.com/rps": 5,
  max_rows: 1000,
};

describe("a claim mapping", () => {
  it("maps scopes, a tenant claim, a namespaced claim and limits onto the credential", () => {
    expect(mappedCredential("token:idp/c1", { ...claims, may_import: true }, mapping, known)).toEqual({
      id: "token:idp/c1",
      endpoints: new Set(["logs.all"]),
      fixed: { project: "acme", project_tier: "PRO" },
      rateLimit: { perSecond: 5, burst: 10 },
      readLimits: { maxRowsToRead: 1000 },
      mayImport: true,
    });
  });

  it("takes an absent import claim as no", () => {
    expect(mappedCredential("token:idp/c1", claims, mapping, known).mayImport).toBeUndefined();
  });

  it.each([
    [{ org_id: undefined }, "claim org_id is missing"],
    [{ scope: undefined }, "claim scope is missing"],
    [{ "https://logs.example.com/rps": undefined }, "claim https://logs.example.com/rps is missing"],
    [{ org_id: ["acme"] }, "claim org_id must be a string"],
    [{ scope: ["logs.all", "profile"] }, "claim scope must list endpoint names"],
    [{ "https://logs.example.com/rps": "fast" }, "claim https://logs.example.com/rps must be a number"],
    [{ max_rows: 1.5 }, "claim max_rows must be a whole number of at least 1"],
    [{ may_import: "yes" }, "claim may_import must be true or false"],
  ])("refuses claims changed by %j, naming the claim", (change, message) => {
    expect(() => mappedCredential("token:idp/c1", { ...claims, ...change }, mapping, known)).toThrow(message);
  });

  it("without a mapping reads the service's own claims, each optional", () => {
    expect(mappedCredential("token:idp/c1", {}, undefined, known)).toEqual({ id: "token:idp/c1" });
    expect(
      mappedCredential(
        "token:idp/c1",
        { endpoints: ["usage.api-counts"], fixed: { project: "p" }, rps: 2 },
        undefined,
        known,
      ),
    ).toEqual({
      id: "token:idp/c1",
      endpoints: new Set(["usage.api-counts"]),
      fixed: { project: "p" },
      rateLimit: { perSecond: 2, burst: 4 },
    });
    expect(() => mappedCredential("token:idp/c1", { fixed: { region: "eu" } }, undefined, known)).toThrow(
      "claim fixed names no parameter region",
    );
  });

  it("stops start-up when it fixes a parameter no endpoint has, naming OIDC_ISSUERS", () => {
    const issuer = { issuer: "https://idp.example.com", audience: "a", name: "idp", algorithms: ["RS256"] };
    expect(() =>
      createOidcVerifier({ ...known, issuers: [{ ...issuer, claims: { fixed: { tenant: "org_id" } } }] }),
    ).toThrow(
      "OIDC_ISSUERS: issuer https://idp.example.com fixes tenant from claim org_id, but no endpoint has a parameter tenant",
    );
  });
});
