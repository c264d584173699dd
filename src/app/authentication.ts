// Who may call: the full-access API keys, the scoped key file and signed
// tokens behind one authenticator, with failed tries counted per client
// address (the one a trusted proxy names, else the peer).
import {
  type Authenticator,
  createAuthenticator,
  createTokenVerifier,
  openKeyFile,
  type TokenVerifierOptions,
} from "../auth/index.js";
import type { EndpointRegistry } from "../endpoints/index.js";
import type { Clock, Logger } from "../observability/index.js";
import { clientAddress, type TrustedProxies } from "../transport/index.js";

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
}

export interface Authentication {
  authenticate: Authenticator;
  /** Reads the key file again; false, with the keys in force kept, when it does not read. True without a key file. */
  reloadKeyFile(): boolean;
  /** Stops the key file's polling and the throttles' timers. */
  close(): void;
}

export function createAuthentication(options: AuthenticationOptions): Authentication {
  const { registry, clock, logger } = options;
  const knownEndpoints = new Set(registry.endpoints.map((e) => e.definition.name));
  const knownParameters = new Set(registry.endpoints.flatMap((e) => e.parameters.map((p) => p.name)));
  const keyFile =
    options.keyFile === undefined
      ? undefined
      : openKeyFile({
          path: options.keyFile.path,
          pollMs: options.keyFile.pollMs,
          knownEndpoints,
          knownParameters,
          logger,
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
  const authenticate: Authenticator =
    trusted === undefined || trusted.empty
      ? authenticateFrom
      : (headers, peer) => authenticateFrom(headers, clientAddress(peer, headers.get("x-forwarded-for"), trusted));
  return { authenticate, reloadKeyFile: () => keyFile?.reload() ?? true, close };
}
