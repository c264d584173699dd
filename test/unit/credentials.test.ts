// Scoped credentials without a server: the key file's rules, tokens and their
// claims, and a scope applied to a request.
import { create } from "@bufbuild/protobuf";
import { Code, type ConnectError } from "@connectrpc/connect";
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import {
  assertImportScope,
  createApiKeyCheck,
  createTokenVerifier,
  InvalidTokenError,
  issueToken,
  keyDigest,
  parseKeyFile,
  parseDuration,
} from "../../src/auth/index.js";
import { createEndpointRegistry, savedQueryServices } from "../../src/endpoints/index.js";
import { applyScope } from "../../src/endpoints/scope.js";
import { fieldViolationsOf } from "../../src/errors/index.js";
import { fixedClock } from "../../src/observability/index.js";

const known = {
  knownEndpoints: new Set(["logs.all", "usage.api-counts", "functions.invocation-stats"]),
  knownParameters: new Set([
    "project",
    "interval",
    "function_id",
    "project_tier",
    "iso_timestamp_start",
    "iso_timestamp_end",
  ]),
};
const digest = keyDigest("studio-key-0123456789");
const secret = "a-secret-of-at-least-32-characters!";

describe("parseKeyFile", () => {
  it("reads entries by digest, with scope and limits", () => {
    const keys = parseKeyFile(
      JSON.stringify({
        keys: [
          {
            id: "studio",
            sha256: digest.toUpperCase(),
            endpoints: ["logs.all"],
            fixed: { project: "abc" },
            rate_limit_per_second: 50,
            rate_limit_burst: 100,
          },
          { id: "ops", sha256: keyDigest("ops-key-0123456789abc") },
        ],
      }),
      known,
    );
    expect(keys.get(digest)).toEqual({
      id: "studio",
      endpoints: new Set(["logs.all"]),
      fixed: { project: "abc" },
      rateLimit: { perSecond: 50, burst: 100 },
    });
    expect(keys.get(keyDigest("ops-key-0123456789abc"))).toEqual({ id: "ops" });
    // Worked out independently: `printf %s studio-key-0123456789 | sha256sum`.
    expect(digest).toBe("d8cfa8b6399e8cb9383f819118a394dd56d84d758f45c4fb4bfb469e59a2d65e");
  });

  it.each([
    ["not json", "not JSON"],
    [JSON.stringify([]), 'expected {"keys": [...]}'],
    [JSON.stringify({ keys: [{ id: "a b", sha256: digest }] }), "keys[0].id must be"],
    [JSON.stringify({ keys: [{ id: "a", sha256: "abc" }] }), "keys[0].sha256 must be 64 hex digits"],
    [
      JSON.stringify({ keys: [{ id: "token:probe", sha256: digest }] }),
      "keys[0].id token:probe must not start with token:",
    ],
    [
      JSON.stringify({ keys: [{ id: "api-key:0123456789ab", sha256: digest }] }),
      "keys[0].id api-key:0123456789ab must not start with api-key:",
    ],
    [
      JSON.stringify({
        keys: [
          { id: "a", sha256: digest },
          { id: "a", sha256: keyDigest("x") },
        ],
      }),
      "keys[1].id a is used twice",
    ],
    [
      JSON.stringify({
        keys: [
          { id: "a", sha256: digest },
          { id: "b", sha256: digest },
        ],
      }),
      "keys[1].sha256 is the digest of another entry's key",
    ],
    [
      JSON.stringify({ keys: [{ id: "a", sha256: digest, endpoints: ["logs.none"] }] }),
      "keys[0].endpoints names no endpoint: logs.none",
    ],
    [
      JSON.stringify({ keys: [{ id: "a", sha256: digest, fixed: { tenant: "x" } }] }),
      "keys[0].fixed names no parameter: tenant",
    ],
    [
      JSON.stringify({ keys: [{ id: "a", sha256: digest, fixed: { project: 5 } }] }),
      "keys[0].fixed must map parameter names to strings",
    ],
    [JSON.stringify({ keys: [{ id: "a", sha256: digest, key: "plain" }] }), "keys[0] has unknown field key"],
    [
      JSON.stringify({ keys: [{ id: "a", sha256: digest, rate_limit_per_second: -1 }] }),
      "rate_limit_per_second must be a number of at least 0",
    ],
  ])("refuses %s", (text, problem) => {
    expect(() => parseKeyFile(text, known)).toThrow(problem);
  });
});

describe("token verifier", () => {
  const now = Date.UTC(2026, 10, 20, 12, 0, 0);
  const verifier = (clock = fixedClock(now)) => createTokenVerifier({ secret, ...known, clock });
  const outcome = async (verify: ReturnType<typeof verifier>, token: string) => {
    try {
      return await verify(token);
    } catch (error) {
      return (error as Error).name;
    }
  };

  it("reads sub, endpoints, fixed and rps of a valid token", async () => {
    const token = await issueToken(
      { sub: "tenant-a", endpoints: ["logs.all"], fixed: { project: "abc" }, rps: 5 },
      { secret, ttlSeconds: 3600, now },
    );
    expect(await verifier()(token)).toEqual({
      id: "token:tenant-a",
      endpoints: new Set(["logs.all"]),
      fixed: { project: "abc" },
      rateLimit: { perSecond: 5, burst: 10 },
    });
  });

  it("keeps a verified token until it expires, then refuses it", async () => {
    const clock = fixedClock(now);
    const verify = verifier(clock);
    const token = await issueToken({ sub: "t" }, { secret, ttlSeconds: 60, now });
    await verify(token);
    expect(verify(token)).not.toBeInstanceOf(Promise); // the second time needs no signature check
    clock.advance(59_999);
    expect(await outcome(verify, token)).toEqual({ id: "token:t" });
    clock.advance(1);
    expect(await outcome(verify, token)).toBe("InvalidTokenError");
  });

  it.each([
    ["expired", async () => issueToken({ sub: "t" }, { secret, ttlSeconds: 60, now: now - 61_000 })],
    ["not yet valid", async () => issueToken({ sub: "t" }, { secret, ttlSeconds: 600, now, notBeforeSeconds: 60 })],
    ["signed with another secret", async () => issueToken({ sub: "t" }, { secret: `${secret}x`, ttlSeconds: 60, now })],
    [
      "tampered with (its claims changed after signing)",
      async () => {
        const [head, , signature] = (
          await issueToken({ sub: "t", fixed: { project: "abc" } }, { secret, ttlSeconds: 60, now })
        ).split(".");
        const claims = Buffer.from(
          JSON.stringify({ sub: "t", fixed: { project: "xyz" }, exp: now / 1000 + 60 }),
        ).toString("base64url");
        return `${head}.${claims}.${signature}`;
      },
    ],
    [
      "without exp",
      async () => new SignJWT({ sub: "t" }).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode(secret)),
    ],
    [
      "unsigned (alg none)",
      async () =>
        `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(JSON.stringify({ sub: "t", exp: now / 1000 + 60 })).toString("base64url")}.`,
    ],
    [
      "with an endpoint that does not exist",
      async () =>
        new SignJWT({ endpoints: ["logs.none"] })
          .setProtectedHeader({ alg: "HS256" })
          .setExpirationTime(now / 1000 + 60)
          .sign(new TextEncoder().encode(secret)),
    ],
    ["malformed", async () => "abc.def.ghi"],
  ])("refuses a token %s", async (_label, make) => {
    expect(await outcome(verifier(), await make())).toBe("InvalidTokenError");
  });

  it.each(["RS256", "ES256", "EdDSA"] as const)(
    "verifies %s tokens with a PEM public key and with a JWKS",
    async (alg) => {
      const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
      const token = await new SignJWT({})
        .setProtectedHeader({ alg, kid: "k1" })
        .setSubject("signed")
        .setExpirationTime(now / 1000 + 60)
        .sign(privateKey);
      const pem = await exportSPKI(publicKey);
      expect(await createTokenVerifier({ publicKeyPem: pem, ...known, clock: fixedClock(now) })(token)).toEqual({
        id: "token:signed",
      });
      const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: "k1", alg }] };
      expect(await createTokenVerifier({ jwks, ...known, clock: fixedClock(now) })(token)).toEqual({
        id: "token:signed",
      });
      // An HS256 token made with the PEM text as its secret is refused (no algorithm confusion).
      const confused = await new SignJWT({})
        .setProtectedHeader({ alg: "HS256" })
        .setExpirationTime(now / 1000 + 60)
        .sign(new TextEncoder().encode(pem));
      await expect(
        Promise.resolve().then(() =>
          createTokenVerifier({ publicKeyPem: pem, ...known, clock: fixedClock(now) })(confused),
        ),
      ).rejects.toBeInstanceOf(InvalidTokenError);
    },
  );

  it("names a token without a subject by its signed part, whichever way its signature is written", async () => {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(now / 1000 + 60)
      .sign(new TextEncoder().encode(secret));
    const verify = verifier();
    const id = ((await verify(token)) as { id: string }).id;
    expect(id).toMatch(/^token:[0-9a-f]{12}$/);
    // The last base64url character of a 32-byte signature carries 4 unused bits: another writing of the same signature.
    const last = token.at(-1)!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const sibling = token.slice(0, -1) + alphabet[(alphabet.indexOf(last) & ~3) | ((alphabet.indexOf(last) + 1) & 3)]!;
    const other = await outcome(verify, sibling);
    // Either jose refuses the other writing, or it is the same caller.
    expect(other === "InvalidTokenError" || (other as { id: string }).id === id).toBe(true);
  });

  it.each([
    ["90s", 90],
    ["15m", 900],
    ["1h", 3600],
    ["7d", 604_800],
    ["0h", undefined],
    ["1 h", undefined],
    ["1w", undefined],
  ])("reads the duration %s as %s seconds", (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });
});

describe("applyScope", () => {
  const registry = createEndpointRegistry({ services: savedQueryServices });
  const logs = registry.find("logs.all")!;
  const request = (fields: Record<string, string>) => create(logs.method.input, fields as never);
  const denied = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      const e = error as ConnectError;
      return { code: e.code, message: e.rawMessage, fields: fieldViolationsOf(e).map((v) => v.field) };
    }
    return undefined;
  };

  it("gives an absent fixed parameter its value, and leaves a request without fixed parameters as it is", () => {
    const scoped = applyScope(logs, request({ projectTier: "PRO" }), {
      fixed: { project: "abc" },
    }) as unknown as Record<string, string>;
    expect([scoped.project, scoped.projectTier]).toEqual(["abc", "PRO"]);
    const same = request({ project: "abc" });
    expect(applyScope(logs, same, { fixed: { project: "abc" } })).toBe(same);
    expect(applyScope(logs, same, {})).toBe(same);
  });

  it("refuses another value of a fixed parameter, naming it, and an endpoint out of scope", () => {
    expect(denied(() => applyScope(logs, request({ project: "xyz" }), { fixed: { project: "abc" } }))).toEqual({
      code: Code.PermissionDenied,
      message: "project is fixed for this credential and may not be given another value",
      fields: ["project"],
    });
    expect(
      denied(() => applyScope(logs, request({ project: "abc" }), { endpoints: new Set(["usage.api-counts"]) })),
    ).toEqual({
      code: Code.PermissionDenied,
      message: "this credential may not call logs.all",
      fields: [],
    });
  });
});

describe("the import scope", () => {
  const now = Date.UTC(2026, 10, 20, 12, 0, 0);
  const denied = (credential: Parameters<typeof assertImportScope>[0]) => {
    try {
      assertImportScope(credential);
      return undefined;
    } catch (error) {
      return (error as ConnectError).code;
    }
  };

  it("is the key file's import field, a token's import claim, and every full-access key's", async () => {
    const keys = parseKeyFile(
      JSON.stringify({
        keys: [
          { id: "shipper", sha256: digest, import: true },
          { id: "reader", sha256: keyDigest("reader-key-0123456789"), import: false },
        ],
      }),
      known,
    );
    const verify = createTokenVerifier({ secret, ...known, clock: fixedClock(now) });
    const withClaim = await verify(await issueToken({ sub: "s", import: true }, { secret, ttlSeconds: 60, now }));
    const without = await verify(await issueToken({ sub: "r" }, { secret, ttlSeconds: 60, now }));
    const fullAccess = createApiKeyCheck(["full-access-key-0123456789"])("full-access-key-0123456789")!;
    expect(keys.get(digest)).toEqual({ id: "shipper", mayImport: true });
    expect([keys.get(digest)!, withClaim, fullAccess].map(denied)).toEqual([undefined, undefined, undefined]);
    expect([keys.get(keyDigest("reader-key-0123456789"))!, without].map(denied)).toEqual([
      Code.PermissionDenied,
      Code.PermissionDenied,
    ]);
  });

  it("refuses an import field or claim that is not true or false", async () => {
    expect(() => parseKeyFile(JSON.stringify({ keys: [{ id: "a", sha256: digest, import: "yes" }] }), known)).toThrow(
      "keys[0].import must be true or false",
    );
    const token = await new SignJWT({ import: 1 })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(now / 1000 + 60)
      .sign(new TextEncoder().encode(secret));
    const verify = createTokenVerifier({ secret, ...known, clock: fixedClock(now) });
    await expect(async () => verify(token)).rejects.toThrow("claim import must be true or false");
  });
});
