// Access tokens of a real OpenID Provider (oidc-provider on a loopback port)
// through the real server: accepted on GET and every RPC client with the
// issuer's claim mapping applied; refused with 401 and the reason when of
// another audience or issuer, expired, signed by an unpublished key, with
// `alg` switched, or missing a mapped claim; a rotated key picked up with no
// restart; a flood of made-up `kid`s costing the provider a handful of JWKS
// fetches; /readyz waiting for the first key set only.
import { createHmac } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { edgeRow, insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";
import { OTHER_AUDIENCE, SERVICE_AUDIENCE, startTestIssuer, type TestIssuer } from "../../support/oidc-issuer.js";
import { allClients, type RpcClient } from "../../support/rpc-clients.js";
import { startTestServer, type TestServer } from "../../support/test-server.js";

const MINUTE = 60_000;
const minRefreshMs = 30_000;
const start = Date.now();

let provider: TestIssuer;
let stranger: TestIssuer;
let warehouse: Warehouse;
let server: TestServer;
let clients: RpcClient[];
beforeAll(async () => {
  provider = await startTestIssuer();
  stranger = await startTestIssuer();
  // Down at first: the service starts, but is not ready until it has the keys.
  provider.setDown(true);
  warehouse = await openTestWarehouse();
  await insertRows(warehouse, "edge_logs", [
    edgeRow({ project: "acme", id: "a1", timestamp: ts(start - 5 * MINUTE) }),
    edgeRow({ project: "acme", id: "a2", timestamp: ts(start - 15 * MINUTE) }),
    edgeRow({ project: "other", id: "o1", timestamp: ts(start - 5 * MINUTE) }),
  ]);
  server = await startTestServer(warehouse, start, {
    readinessReuseMs: 0,
    tokens: {
      oidc: {
        issuers: [
          {
            issuer: provider.issuer,
            audience: SERVICE_AUDIENCE,
            name: "idp",
            algorithms: ["RS256", "ES256"],
            claims: { endpoints: "scope", fixed: { project: "org_id" } },
          },
        ],
        minRefreshMs,
      },
    },
  });
  clients = allClients(server.url, server.address);
});
afterAll(async () => {
  for (const client of clients ?? []) client.close();
  await server?.close();
  await warehouse?.close();
  await provider?.close();
  await stranger?.close();
});

async function get(path: string, token: string) {
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  // biome-ignore lint/suspicious/noExplicitAny: the tests read fields of several response shapes
  return { status: response.status, json: (await response.json()) as any };
}
const readyz = async () => (await fetch(`${server.url}/readyz`)).status;
const acmeToken = () => provider.token({ claims: { org_id: "acme" } });
const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString());
const headerOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString());

/** A token with the provider's claims, signed by a key the provider never published. */
async function signedByStranger(kid: string): Promise<string> {
  const { privateKey } = await generateKeyPair("RS256");
  const claims = claimsOf(await acmeToken());
  return new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid }).sign(privateKey);
}

describe("before the issuer's keys are first fetched", () => {
  it("is not ready, and becomes ready once the provider answers", async () => {
    expect(await readyz()).toBe(503);
    provider.setDown(false);
    // The failed first fetch is tried again after the minimum interval, or at the next token once it has passed.
    server.clock.advance(minRefreshMs);
    expect((await get("/api/endpoints/logs.all", await acmeToken())).status).toBe(200);
    expect(await readyz()).toBe(200);
  });
});

describe("a token of the provider", () => {
  it("reads its own project on GET, its org_id claim fixing project", async () => {
    const token = await acmeToken();
    const { status, json } = await get("/api/endpoints/logs.all", token);
    expect(status).toBe(200);
    expect(json.result.map((r: { id: string }) => r.id)).toEqual(["a1", "a2"]);
    const listing = await get("/api/endpoints", token);
    expect(listing.json.result).toMatchObject([{ name: "logs.all", fixed_parameters: { project: "acme" } }]);
  });

  it("reads its own project over Connect, gRPC-Web, gRPC and @grpc/grpc-js", async () => {
    const token = await acmeToken();
    const request = create(LogsService.method.getAllLogs.input, {});
    for (const client of clients) {
      const outcome = await client.call(LogsService, LogsService.method.getAllLogs, request, {
        headers: { authorization: `Bearer ${token}` },
      });
      const ids = outcome.ok && (outcome.message as unknown as { result: { id: string }[] }).result.map((r) => r.id);
      expect(ids, client.name).toEqual(["a1", "a2"]);
    }
  });

  it("is refused another project and an endpoint outside its scope with 403", async () => {
    const token = await acmeToken();
    expect((await get("/api/endpoints/logs.all?project=other", token)).status).toBe(403);
    const stats = "/api/endpoints/functions.invocation-stats?function_id=f&interval=1hr";
    expect((await get(stats, token)).status).toBe(403);
    // The same endpoint, once the scope names it.
    const wider = await provider.token({ claims: { org_id: "acme" }, scope: "logs.all functions.invocation-stats" });
    expect((await get(stats, wider)).status).toBe(200);
  });
});

describe("tokens refused with 401 and the reason", () => {
  /** The provider's token with `alg` HS256, keyed with the published public key (the classic confusion). */
  async function switchedToHmac(): Promise<string> {
    const token = await acmeToken();
    const jwks = (await (await fetch(`${provider.issuer}/jwks`)).json()) as { keys: object[] };
    const signingInput = `${part({ ...headerOf(token), alg: "HS256" })}.${token.split(".")[1]}`;
    const mac = createHmac("sha256", JSON.stringify(jwks.keys[0])).update(signingInput).digest("base64url");
    return `${signingInput}.${mac}`;
  }
  const cases: [string, () => Promise<string>, string][] = [
    ["of another audience", () => provider.token({ claims: { org_id: "acme" }, audience: OTHER_AUDIENCE }), '"aud"'],
    [
      "of another issuer",
      () => stranger.token({ claims: { org_id: "acme" } }),
      "is not trusted", // the stranger's iss
    ],
    ["signed by a key never published, under a published kid", () => signedByStranger("key-1"), "signature"],
    ["naming a kid never published", () => signedByStranger("made-up"), "kid made-up is not among the issuer's keys"],
    ["with alg switched to HS256", switchedToHmac, '"alg" (Algorithm) Header Parameter value not allowed'],
    [
      "with alg switched to none",
      async () => `${part({ alg: "none", kid: "key-1" })}.${(await acmeToken()).split(".")[1]}.`,
      '"alg" (Algorithm) Header Parameter value not allowed',
    ],
    [
      "with alg switched to another allowed one",
      async () => {
        const [header, payload, signature] = (await acmeToken()).split(".");
        return `${part({ ...JSON.parse(Buffer.from(header!, "base64url").toString()), alg: "ES256" })}.${payload}.${signature}`;
      },
      "kid key-1 is a key for RS256, not ES256",
    ],
    ["without the mapped org_id claim", () => provider.token(), "claim org_id is missing"],
    [
      "with an org_id that is not a string",
      () => provider.token({ claims: { org_id: 7 } }),
      "claim org_id must be a string",
    ],
  ];

  it.each(cases)("refuses a token %s on GET and every RPC client", async (_label, make, reason) => {
    const token = await make();
    const { status, json } = await get("/api/endpoints/logs.all", token);
    expect(status).toBe(401);
    expect(json.error.code).toBe("unauthenticated");
    expect(json.error.message).toContain(reason);
    const request = create(LogsService.method.getAllLogs.input, {});
    for (const client of clients) {
      const outcome = await client.call(LogsService, LogsService.method.getAllLogs, request, {
        headers: { "x-api-key": token },
      });
      expect(outcome.ok ? "ok" : Code[outcome.code], client.name).toBe("Unauthenticated");
      expect(!outcome.ok && outcome.message, client.name).toContain(reason);
    }
  });

  it("refuses an expired token, past its exp and the clock skew", async () => {
    const token = await acmeToken();
    expect((await get("/api/endpoints/logs.all", token)).status).toBe(200);
    const { exp } = claimsOf(token) as { exp: number };
    const at = server.clock();
    try {
      server.clock.set(exp * 1000 + 59_000); // within the default skew of 60 s
      expect((await get("/api/endpoints/logs.all", token)).status).toBe(200);
      server.clock.set(exp * 1000 + 61_000);
      const { status, json } = await get("/api/endpoints/logs.all", token);
      expect([status, json.error.message]).toEqual([401, 'invalid token: "exp" claim timestamp check failed']);
    } finally {
      server.clock.set(at);
    }
  });
});

describe("keys that rotate", () => {
  it("accepts tokens of a new key with no restart, fetching the JWKS once more", async () => {
    const fetchesBefore = provider.jwksFetches();
    await provider.rotate();
    const token = await acmeToken();
    expect(headerOf(token).kid).toBe("key-2");
    server.clock.advance(minRefreshMs);
    expect((await get("/api/endpoints/logs.all", token)).status).toBe(200);
    expect(provider.jwksFetches()).toBe(fetchesBefore + 1);
  });

  it("keeps serving the keys it has while the provider is down, and stays ready", async () => {
    const token = await acmeToken();
    const unknownKid = await signedByStranger("gone");
    provider.setDown(true);
    try {
      server.clock.advance(minRefreshMs);
      // An unknown kid makes it try the JWKS, which fails; the published keys stay in force.
      const fetchesBefore = provider.jwksFetches();
      const unknown = await get("/api/endpoints/logs.all", unknownKid);
      expect(provider.jwksFetches()).toBe(fetchesBefore + 1);
      expect(unknown.status).toBe(401);
      expect((await get("/api/endpoints/logs.all", token)).status).toBe(200);
      expect(await readyz()).toBe(200);
    } finally {
      provider.setDown(false);
    }
  });

  it("fetches the JWKS a handful of times for 10,000 calls with made-up kids", async () => {
    const fetchesBefore = provider.jwksFetches();
    // The signature is never checked: no published key has the kid. Made once, it keeps the client cheap.
    const [, payload, signature] = (await signedByStranger("any")).split(".");
    const statuses = new Map<number, number>();
    const calls = 10_000;
    // 10 ms of the service's clock pass with each call: 100 s in all, so at
    // most 4 fetches at one per 30 s (at 0, 30, 60 and 90 s).
    for (let sent = 0; sent < calls; sent += 100) {
      const batch = await Promise.all(
        Array.from({ length: 100 }, async () => {
          server.clock.advance(10);
          const token = `${part({ alg: "RS256", kid: crypto.randomUUID() })}.${payload}.${signature}`;
          return (await fetch(`${server.url}/api/endpoints/logs.all`, { headers: { "x-api-key": token } })).status;
        }),
      );
      for (const status of batch) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 401: calls });
    const fetched = provider.jwksFetches() - fetchesBefore;
    expect(fetched).toBeGreaterThanOrEqual(1);
    expect(fetched).toBeLessThanOrEqual(4);
  }, 120_000);
});
