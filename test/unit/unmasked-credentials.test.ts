// Which credentials see personal data as stored: every API_KEYS key, a key
// file's `"unmasked": true`, a token's `unmasked: true` claim and an issuer's
// mapped claim; anything else is masked, and a malformed field or claim is
// refused naming it. A masked credential's call of a saved query that masks
// is never one of the prepared calls shared between callers.
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import {
  type Credential,
  createApiKeyCheck,
  createTokenVerifier,
  isScopedFor,
  issueToken,
  keyDigest,
  parseKeyFile,
  seeingOwnCallsOnly,
} from "../../src/auth/index.js";
import { type ClaimMapping, mappedCredential } from "../../src/auth/claim-mapping.js";
import { fixedClock } from "../../src/observability/index.js";

const known = { knownEndpoints: new Set(["logs.all"]), knownParameters: new Set(["project"]) };
const secret = "a-secret-of-at-least-32-characters!";
const now = Date.UTC(2026, 10, 20);
const verify = createTokenVerifier({ secret, ...known, clock: fixedClock(now) });

describe("an API_KEYS key", () => {
  it("sees personal data as stored", () => {
    expect(createApiKeyCheck(["full-access-key-0123456789"])("full-access-key-0123456789")?.unmasked).toBe(true);
  });
});

describe("a key file entry", () => {
  const entry = (fields: object) =>
    parseKeyFile(JSON.stringify({ keys: [{ id: "k", sha256: keyDigest("k-key"), ...fields }] }), known).get(
      keyDigest("k-key"),
    );

  it.each([
    ["unmasked: true", { unmasked: true }, true],
    ["unmasked: false", { unmasked: false }, undefined],
    ["no unmasked field", {}, undefined],
  ])("with %s is unmasked %s", (_label, fields, unmasked) => {
    expect(entry(fields)?.unmasked).toBe(unmasked);
  });

  it("keeps it when fixed to its own calls", () => {
    expect(seeingOwnCallsOnly(entry({ unmasked: true })!).unmasked).toBe(true);
  });

  it("refuses an unmasked field that is not true or false", () => {
    expect(() => entry({ unmasked: "yes" })).toThrow("keys[0].unmasked must be true or false");
  });
});

describe("a signed token", () => {
  it("with the claim unmasked: true sees personal data as stored; without it, masked", async () => {
    const unmasked = await verify(await issueToken({ sub: "a", unmasked: true }, { secret, ttlSeconds: 60, now }));
    const masked = await verify(await issueToken({ sub: "b" }, { secret, ttlSeconds: 60, now }));
    expect([unmasked.unmasked, masked.unmasked]).toEqual([true, undefined]);
  });

  it("is refused with an unmasked claim that is not true or false", async () => {
    const token = await new SignJWT({ unmasked: 1 })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(now / 1000 + 60)
      .sign(new TextEncoder().encode(secret));
    await expect(async () => verify(token)).rejects.toThrow("claim unmasked must be true or false");
  });
});

describe("an issuer's claim mapping", () => {
  const mapping: ClaimMapping = { fixed: { project: "org_id" }, unmasked: "https://logs.example.com/pii" };
  const claims = { org_id: "acme" };

  it.each([
    ["true", { "https://logs.example.com/pii": true }, true],
    ["false", { "https://logs.example.com/pii": false }, undefined],
    ["absent (no, as import)", {}, undefined],
  ])("maps the unmasked claim when %s", (_label, extra, unmasked) => {
    expect(mappedCredential("token:idp/c", { ...claims, ...extra }, mapping, known).unmasked).toBe(unmasked);
  });

  it("refuses a malformed unmasked claim, naming it", () => {
    expect(() =>
      mappedCredential("token:idp/c", { ...claims, "https://logs.example.com/pii": "yes" }, mapping, known),
    ).toThrow("claim https://logs.example.com/pii must be true or false");
  });

  it("without a mapping reads the service's own unmasked claim", () => {
    expect(mappedCredential("token:idp/c", { unmasked: true }, undefined, known).unmasked).toBe(true);
  });
});

describe("isScopedFor a saved query that masks personal data", () => {
  const logsAll = { parameters: [{ name: "project" }], masksPersonalData: true };
  const apiCounts = { parameters: [{ name: "project" }], masksPersonalData: false };
  it.each([
    ["an unmasked key, unscoped otherwise", { id: "k", unmasked: true }, logsAll, false],
    ["a masked key, unscoped otherwise", { id: "k" }, logsAll, true],
    ["a masked key, of a saved query that does not mask", { id: "k" }, apiCounts, false],
    [
      "an unmasked key limited to some endpoints",
      { id: "k", unmasked: true, endpoints: new Set(["logs.all"]) },
      logsAll,
      true,
    ],
  ])("%s", (_label, credential, endpoint, scoped) => {
    expect(isScopedFor(credential as Credential, endpoint)).toBe(scoped);
  });
});
