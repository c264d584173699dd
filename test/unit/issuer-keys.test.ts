// The keys of an OpenID Connect issuer (discovery, JWKS cache, refresh and cooldown) and the bounded fetch of its documents, with fake providers.
import { afterEach, describe, expect, it, vi } from "vitest";
import { cacheLifetimeMs, createJsonFetcher, type FetchedJson, urlProblem } from "../../src/auth/fetch-json.js";
import { createIssuerKeys } from "../../src/auth/issuer-keys.js";
import { silentLogger } from "../../src/observability/index.js";

const issuer = "https://idp.example.com";
const jwksUri = "https://idp.example.com/keys";
const discovery = { issuer, jwks_uri: jwksUri };
const key = (kid: string) => ({ kty: "EC", crv: "P-256", x: "x", y: "y", kid });

/** A provider whose JWKS answers come from `jwks` in turn; counts the JWKS fetches. */
function fakeProvider(jwks: (() => FetchedJson)[]) {
  let served = 0;
  const fetched: string[] = [];
  const fetchJson = async (url: string): Promise<FetchedJson> => {
    fetched.push(url);
    if (url.endsWith("/.well-known/openid-configuration")) return { value: discovery };
    const answer = jwks[Math.min(served, jwks.length - 1)]!;
    served += 1;
    return answer();
  };
  return { fetchJson, jwksFetches: () => fetched.filter((u) => u === jwksUri).length, fetched };
}

afterEach(() => vi.useRealTimers());

describe("the keys of one issuer", () => {
  it("reads the discovery document, then the JWKS it names, keeping signing keys only", async () => {
    const provider = fakeProvider([
      () => ({
        value: { keys: [key("a"), { kty: "oct", k: "c2VjcmV0", kid: "s" }, { ...key("e"), use: "enc" }, key("b")] },
      }),
    ]);
    let now = 0;
    const keys = createIssuerKeys({
      issuer,
      ...provider,
      minRefreshMs: 30_000,
      clock: () => now,
      logger: silentLogger,
    });
    expect(await keys.keyFor("a")).toMatchObject({ kid: "a" });
    expect(await keys.keyFor("b")).toMatchObject({ kid: "b" });
    now += 30_000; // each unknown kid below may fetch again, once
    expect(await keys.keyFor("s")).toBeUndefined(); // symmetric keys are never used
    expect(await keys.keyFor("e")).toBeUndefined(); // nor encryption keys
    expect(provider.fetched).toEqual([`${issuer}/.well-known/openid-configuration`, jwksUri, jwksUri]);
    keys.close();
  });

  it("fetches again for an unknown kid at most once per minimum interval, however many arrive", async () => {
    const provider = fakeProvider([() => ({ value: { keys: [key("a")] } })]);
    let now = 0;
    const keys = createIssuerKeys({
      issuer,
      ...provider,
      minRefreshMs: 30_000,
      clock: () => now,
      logger: silentLogger,
    });
    await keys.keyFor("a");
    expect(provider.jwksFetches()).toBe(1);
    // 1,000 made-up kids over 59 s: one more fetch, at 30 s.
    for (let i = 0; i < 1_000; i += 1) {
      now = i * 59;
      expect(await keys.keyFor(`made-up-${i}`)).toBeUndefined();
    }
    expect(provider.jwksFetches()).toBe(2);
    keys.close();
  });

  it("picks up a key published since, on its first token after the interval", async () => {
    const provider = fakeProvider([
      () => ({ value: { keys: [key("a")] } }),
      () => ({ value: { keys: [key("b"), key("a")] } }),
    ]);
    let now = 0;
    const keys = createIssuerKeys({
      issuer,
      ...provider,
      minRefreshMs: 30_000,
      clock: () => now,
      logger: silentLogger,
    });
    expect(await keys.keyFor("b")).toBeUndefined();
    now = 30_000;
    expect(await keys.keyFor("b")).toMatchObject({ kid: "b" });
    keys.close();
  });

  it("keeps the keys it has while the provider fails, and says whether it ever had keys", async () => {
    const down = () => {
      throw new Error(`${jwksUri} answered 503`);
    };
    const provider = fakeProvider([down, () => ({ value: { keys: [key("a")] } }), down]);
    let now = 0;
    const keys = createIssuerKeys({
      issuer,
      ...provider,
      minRefreshMs: 30_000,
      clock: () => now,
      logger: silentLogger,
    });
    expect(await keys.keyFor("a")).toBeUndefined();
    expect(keys.hasKeys()).toBe(false);
    now = 30_000;
    expect(await keys.keyFor("a")).toMatchObject({ kid: "a" });
    now = 60_000;
    expect(await keys.keyFor("new")).toBeUndefined(); // fetched, failed
    expect(provider.jwksFetches()).toBe(3);
    expect(await keys.keyFor("a")).toMatchObject({ kid: "a" });
    expect(keys.hasKeys()).toBe(true);
    keys.close();
  });

  it.each([
    ["max-age=120", 120_000],
    ["no Cache-Control", 300_000],
    ["max-age=5, below the minimum", 30_000],
    ["no-store", 30_000],
  ])("refreshes in the background as the JWKS's %s says", async (_label, refreshMs) => {
    vi.useFakeTimers();
    const maxAgeMs = _label.startsWith("max-age=") ? Number(/\d+/.exec(_label)![0]) * 1000 : undefined;
    const lifetime = _label === "no-store" ? 0 : maxAgeMs;
    const provider = fakeProvider([
      () => (lifetime === undefined ? { value: { keys: [] } } : { value: { keys: [] }, maxAgeMs: lifetime }),
    ]);
    const keys = createIssuerKeys({ issuer, ...provider, minRefreshMs: 30_000, clock: Date.now, logger: silentLogger });
    await vi.advanceTimersByTimeAsync(0);
    expect(provider.jwksFetches()).toBe(1);
    await vi.advanceTimersByTimeAsync(refreshMs - 1);
    expect(provider.jwksFetches()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(provider.jwksFetches()).toBe(2);
    keys.close();
  });

  it.each([
    ["names another issuer", { issuer: "https://evil.example.com", jwks_uri: jwksUri }],
    ["names a JWKS over plain http", { issuer, jwks_uri: "http://idp.example.com/keys" }],
    ["names no JWKS", { issuer }],
  ])("fetches no key when the discovery document %s", async (_label, document) => {
    const fetched: string[] = [];
    const keys = createIssuerKeys({
      issuer,
      fetchJson: async (url) => {
        fetched.push(url);
        return { value: url.endsWith("configuration") ? document : { keys: [key("a")] } };
      },
      minRefreshMs: 30_000,
      clock: () => 0,
      logger: silentLogger,
    });
    expect(await keys.keyFor("a")).toBeUndefined();
    expect(fetched).toEqual([`${issuer}/.well-known/openid-configuration`]);
    keys.close();
  });
});

describe("fetching a provider's document", () => {
  it.each([
    ["https://idp.example.com", undefined],
    ["http://127.0.0.1:8080", undefined],
    ["http://localhost/realms/a", undefined],
    ["http://[::1]:9000", undefined],
    ["http://idp.example.com", "must be https (plain http only for a loopback host)"],
    ["ftp://idp.example.com", "must be https (plain http only for a loopback host)"],
    ["not a url", "is not a URL"],
  ])("takes %s: %s", (url, problem) => {
    expect(urlProblem(url)).toBe(problem);
  });

  it.each([
    ["max-age=600", 600_000],
    ["public, max-age=60, must-revalidate", 60_000],
    ["no-store", 0],
    ["no-cache", 0],
    ["public", undefined],
  ])("reads Cache-Control %s as %s ms", (header, ms) => {
    expect(cacheLifetimeMs(header)).toBe(ms);
  });

  it("refuses a body past its bound, announced or not", async () => {
    const body = JSON.stringify({ keys: [], pad: "x".repeat(200) });
    const announced = createJsonFetcher({ maxBytes: 100, fetch: async () => new Response(body) });
    await expect(announced(jwksUri)).rejects.toThrow(`${jwksUri} is larger than 100 bytes`);
    const streamed = createJsonFetcher({
      maxBytes: 100,
      fetch: async () =>
        new Response(
          new ReadableStream({
            start(controller) {
              for (let i = 0; i < 10; i += 1) controller.enqueue(new TextEncoder().encode("x".repeat(30)));
              controller.close();
            },
          }),
        ),
    });
    await expect(streamed(jwksUri)).rejects.toThrow(`${jwksUri} is larger than 100 bytes`);
  });

  it("gives up on a provider that does not answer within the timeout", async () => {
    const silent = createJsonFetcher({
      timeoutMs: 50,
      fetch: (_url, init) =>
        new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(new Error("aborted")))),
    });
    await expect(silent(jwksUri)).rejects.toThrow(`${jwksUri} did not answer within 50 ms`);
  });

  it("refuses another status, a body that is not JSON, a plain http URL, and asks for no redirect", async () => {
    let init: RequestInit | undefined;
    const answer = (response: Response) =>
      createJsonFetcher({
        fetch: async (_url, given) => {
          init = given;
          return response;
        },
      });
    await expect(answer(new Response("{}", { status: 404 }))(jwksUri)).rejects.toThrow(`${jwksUri} answered 404`);
    expect(init?.redirect).toBe("error");
    await expect(answer(new Response("<html>"))(jwksUri)).rejects.toThrow(`${jwksUri} is not JSON`);
    await expect(answer(new Response("{}"))("http://idp.example.com/keys")).rejects.toThrow("must be https");
    const fresh = answer(new Response('{"keys":[]}', { headers: { "cache-control": "max-age=90" } }));
    expect(await fresh(jwksUri)).toEqual({ value: { keys: [] }, maxAgeMs: 90_000 });
  });
});
