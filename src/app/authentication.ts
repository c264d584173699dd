// Who may call: the full-access API keys, the scoped key file and signed
// tokens behind one authenticator, with failed tries counted per client
// address (the call's: the one a trusted proxy names, else the peer).
import {
  type Authenticator,
  createAuthenticator,
  createOidcVerifier,
  createTokenVerifier,
  keyDigest,
  type OidcVerifierOptions,
  openKeyFile,
  routeTokens,
  seeingOwnCallsOnly,
  type TokenVerifierOptions,
} from "../auth/index.js";
import type { EndpointRegistry } from "../endpoints/index.js";
import { ConnectError } from "@connectrpc/connect";
import type { Clock, Logger, Tracing } from "../observability/index.js";
import { codeName, recordCallOutcome, type RevocableKeys } from "../transport/index.js";

export interface AuthenticationOptions {
  /** The saved queries: a scope naming anything else is refused. */
  registry: EndpointRegistry;
  apiKeys: readonly string[];
  keyFile?: { path: string; pollMs?: number };
  tokens?: TokenSources;
  rateLimit?: { perSecond: number; burst: number };
  authFailures?: { perSecond: number; burst: number };
  clock: Clock;
  logger: Logger;
  /** Tells the current call's span who called, or why not (docs/observability.md). Default: none. */
  tracing?: Tracing;
}

/** Where signed tokens are verified: the service's own key (one of secret, publicKeyPem, jwks), OpenID Connect issuers, or both. */
export type TokenSources = Pick<TokenVerifierOptions, "secret" | "publicKeyPem" | "jwks"> & {
  /** OIDC_ISSUERS and its settings. */
  oidc?: Pick<OidcVerifierOptions, "issuers" | "clockSkewMs" | "minRefreshMs" | "fetchJson">;
};

export interface Authentication {
  authenticate: Authenticator;
  /** Reads the key file again; false, with the keys in force kept, when it does not read. True without a key file. */
  reloadKeyFile(): boolean;
  /** The key file's keys, for ending the watch streams of a key it drops; undefined without a key file. */
  revocableKeys?: RevocableKeys;
  /** Whether tokens can be checked: every OpenID Connect issuer's keys were fetched at least once. True without issuers. */
  tokenKeysFetched(): boolean;
  /** Stops the key file's polling, the issuers' key refreshes and the throttles' timers. */
  close(): void;
}

export function createAuthentication(options: AuthenticationOptions): Authentication {
  const { registry, clock, logger } = options;
  const knownEndpoints = new Set(registry.endpoints.map((e) => e.definition.name));
  const knownParameters = new Set(registry.endpoints.flatMap((e) => e.parameters.map((p) => p.name)));
  const keyChanges = new Set<() => void>();
  const keyFile =
    options.keyFile === undefined
      ? undefined
      : openKeyFile({
          path: options.keyFile.path,
          pollMs: options.keyFile.pollMs,
          knownEndpoints,
          knownParameters,
          logger,
          onChange: () => {
            for (const listener of keyChanges) listener();
          },
        });
  const { oidc: oidcOptions, ...ownKeys } = options.tokens ?? {};
  const ownKeyVerifier =
    ownKeys.secret === undefined && ownKeys.publicKeyPem === undefined && ownKeys.jwks === undefined
      ? undefined
      : createTokenVerifier({ ...ownKeys, knownEndpoints, knownParameters, clock });
  const oidc =
    oidcOptions === undefined
      ? undefined
      : createOidcVerifier({ ...oidcOptions, knownEndpoints, knownParameters, clock, logger });
  const verifyToken =
    oidc === undefined && ownKeyVerifier === undefined ? undefined : routeTokens(oidc, ownKeyVerifier);
  const { authenticate: authenticateFrom, close: closeAuthenticator } = createAuthenticator({
    apiKeys: options.apiKeys,
    keyFile,
    verifyToken,
    rateLimit: options.rateLimit,
    authFailures: options.authFailures,
    clock,
    logger,
  });
  const { tracing } = options;
  const authenticate = tracing === undefined ? authenticateFrom : tracedAuthenticator(authenticateFrom, tracing);
  const revocableKeys: RevocableKeys | undefined =
    keyFile === undefined
      ? undefined
      : {
          credentialOf: (secret) => {
            const fileKey = keyFile.lookup(keyDigest(secret));
            return fileKey === undefined ? undefined : seeingOwnCallsOnly(fileKey);
          },
          onChange(listener) {
            keyChanges.add(listener);
            return () => keyChanges.delete(listener);
          },
        };
  return {
    authenticate,
    revocableKeys,
    reloadKeyFile: () => keyFile?.reload() ?? true,
    tokenKeysFetched: () => oidc?.hasKeys() ?? true,
    close() {
      closeAuthenticator();
      oidc?.close();
    },
  };
}

/** `authenticate`, telling the current call's span who called (a key id or token subject, never a secret) or why not. */
function tracedAuthenticator(authenticate: Authenticator, tracing: Tracing): Authenticator {
  const refused = (error: unknown): never => {
    recordCallOutcome(tracing, { code: codeName(ConnectError.from(error).code) });
    throw error;
  };
  return (headers, peer) => {
    let credential: ReturnType<Authenticator>;
    try {
      credential = authenticate(headers, peer);
    } catch (error) {
      return refused(error);
    }
    if (credential instanceof Promise)
      return credential.then((verified) => {
        recordCallOutcome(tracing, { caller: verified.id });
        return verified;
      }, refused);
    recordCallOutcome(tracing, { caller: credential.id });
    return credential;
  };
}
