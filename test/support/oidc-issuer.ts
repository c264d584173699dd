// A real OpenID Provider (panva's oidc-provider) on a loopback port, issuing
// JWT access tokens by the client credentials grant with a resource
// indicator. Tests choose each token's extra claims and audience, rotate its
// signing key, take it down, and count the JWKS fetches it answers.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import Provider from "oidc-provider";

/** The audience tokens get unless a test asks for another resource. */
export const SERVICE_AUDIENCE = "https://logs.example.test";
/** Another resource server the provider issues tokens for. */
export const OTHER_AUDIENCE = "https://other.example.test";
/** The scopes a token may be given: endpoint names, as the service's claim mapping reads `scope`. */
export const RESOURCE_SCOPES = "logs.all functions.invocation-stats usage.api-counts";

const clientId = "dashboard";
const clientSecret = "dashboard-secret-0123456789-abcdef";

export interface TestIssuer {
  /** The issuer URL, `http://127.0.0.1:<port>`. */
  issuer: string;
  /** An access token for `scope`, carrying `claims` besides the provider's own. */
  token(options?: { claims?: Record<string, unknown>; scope?: string; audience?: string }): Promise<string>;
  /** Publishes a new signing key, first (new tokens are signed with it), keeping the old one published. */
  rotate(): Promise<void>;
  /** The kids published now, newest first. */
  kids(): string[];
  /** Requests for the JWKS so far, answered or (while down) not. */
  jwksFetches(): number;
  /** While true, every request is answered 503, as by a provider that is down. */
  setDown(down: boolean): void;
  /** The Cache-Control the JWKS is served with; undefined: none (the provider's own). */
  setJwksCacheControl(value: string | undefined): void;
  close(): Promise<void>;
}

async function signingKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
}

export async function startTestIssuer(): Promise<TestIssuer> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let keys = [await signingKey("key-1")];
  let nextClaims: Record<string, unknown> = {};
  let fetches = 0;
  let down = false;
  let cacheControl: string | undefined;

  const providerWith = (jwks: JWK[]) => {
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          grant_types: ["client_credentials"],
          redirect_uris: [],
          response_types: [],
        },
      ],
      jwks: { keys: jwks },
      cookies: { keys: ["test-issuer-cookie-key-0123456789"] },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => SERVICE_AUDIENCE,
          getResourceServerInfo: (_ctx: unknown, resource: string) => ({
            scope: RESOURCE_SCOPES,
            audience: resource,
            accessTokenFormat: "jwt",
            accessTokenTTL: 300,
            jwt: { sign: { alg: "RS256" } },
          }),
        },
      },
      ttl: { ClientCredentials: 300 },
      extraTokenClaims: () => nextClaims,
    });
    provider.use(async (ctx, next) => {
      if (ctx.path === "/jwks") fetches += 1;
      if (down) {
        ctx.status = 503;
        ctx.body = "down";
        return;
      }
      await next();
      if (ctx.path === "/jwks" && cacheControl !== undefined) ctx.set("cache-control", cacheControl);
    });
    return provider.callback();
  };
  let handle = providerWith(keys);
  server.on("request", (request, response) => handle(request, response));

  return {
    issuer,
    async token(options = {}) {
      nextClaims = options.claims ?? {};
      const body = new URLSearchParams({
        grant_type: "client_credentials",
        resource: options.audience ?? SERVICE_AUDIENCE,
        scope: options.scope ?? "logs.all",
      });
      const response = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}` },
        body,
      });
      const answer = (await response.json()) as { access_token?: string };
      if (answer.access_token === undefined) throw new Error(`no token: ${JSON.stringify(answer)}`);
      return answer.access_token;
    },
    async rotate() {
      keys = [await signingKey(`key-${keys.length + 1}`), ...keys];
      handle = providerWith(keys);
    },
    kids: () => keys.map((k) => k.kid!),
    jwksFetches: () => fetches,
    setDown(value) {
      down = value;
    },
    setJwksCacheControl(value) {
      cacheControl = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
