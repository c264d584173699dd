// Who may call: the full-access API keys, the scoped key file and signed
// tokens behind one authenticator, with failed tries counted per client
// address (the one a trusted proxy names, else the peer).
import {
  type Authenticator,
  createAuthenticator,
  createTokenVerifier,
  keyDigest,
  openKeyFile,
  type TokenVerifierOptions,
} from "../auth/index.js";
import type { EndpointRegistry } from "../endpoints/index.js";
import { ConnectError } from "@connectrpc/connect";
import type { Clock, Logger, Tracing } from "../observability/index.js";
import {
  clientAddress,
  codeName,
  recordCallOutcome,
  type RevocableKeys,
  type TrustedProxies,
} from "../transport/index.js";

export interface AuthenticationOptions {
  /** The saved queries: a scope naming anything else is refused. */
  registry: EndpointRegistry;
  apiKeys: readonly string[];
  keyFile?: { path: string; pollMs?: number };
  tokens?: Pick<TokenVerifierOptions, "secret" | "publicKeyPem" | "jwks">;
  rateLimit?: { perSecond: number; burst: number };
  authFailures?: { perSecond: number; burst: number };
  trustedProxies?: TrustedProxies;
  clock: Clock;
  logger: Logger;
  /** Tells the current call's span who called, or why not (docs/observability.md). Default: none. */
  tracing?: Tracing;
}

export interface Authentication {
  authenticate: Authenticator;
  /** Reads the key file again; false, with the keys in force kept, when it does not read. True without a key file. */
  reloadKeyFile(): boolean;
  /** The key file's keys, for ending the watch streams of a key it drops; undefined without a key file. */
  revocableKeys?: RevocableKeys;
  /** Stops the key file's polling and the throttles' timers. */
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
  const verifyToken =
    options.tokens === undefined
      ? undefined
      : createTokenVerifier({ ...options.tokens, knownEndpoints, knownParameters, clock });
  const { authenticate: authenticateFrom, close } = createAuthenticator({
    apiKeys: options.apiKeys,
    keyFile,
    verifyToken,
    rateLimit: options.rateLimit,
    authFailures: options.authFailures,
    clock,
    logger,
  });
  // Failed authentications are counted per client: the peer, or the client a trusted proxy names.
  const trusted = options.trustedProxies;
  const authenticateClient: Authenticator =
    trusted === undefined || trusted.empty
      ? authenticateFrom
      : (headers, peer) => authenticateFrom(headers, clientAddress(peer, headers.get("x-forwarded-for"), trusted));
  const { tracing } = options;
  const authenticate = tracing === undefined ? authenticateClient : tracedAuthenticator(authenticateClient, tracing);
  const revocableKeys: RevocableKeys | undefined =
    keyFile === undefined
      ? undefined
      : {
          holds: (secret) => keyFile.lookup(keyDigest(secret)) !== undefined,
          onChange(listener) {
            keyChanges.add(listener);
            return () => keyChanges.delete(listener);
          },
        };
  return { authenticate, revocableKeys, reloadKeyFile: () => keyFile?.reload() ?? true, close };
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
