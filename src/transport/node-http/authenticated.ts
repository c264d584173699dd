// The one "authenticate, then go on" step of every keyed request, GET or
// RPC, on a Node request or a bare HTTP/2 stream: the credential from the
// headers alone (auth/authenticate.ts), before any body is read.
import type { Authenticator, Credential, HeaderReader } from "../../auth/index.js";

export interface AuthenticatedSteps {
  /** Goes on with the caller's credential. */
  admitted(credential: Credential): void;
  /** Answers the refusal (UNAUTHENTICATED, RESOURCE_EXHAUSTED for a throttled address or caller). */
  refuse(error: unknown): void;
  /** What `admitted` threw after a new token's signature check, which no server guard sees: a 500 and an error line. */
  failed(error: unknown): void;
}

/**
 * Authenticates a request from `headers` and `address`, then goes on: at
 * once for a key or a token verified before, after the signature check for
 * a token seen for the first time.
 */
export function authenticateThen(
  authenticate: Authenticator,
  headers: HeaderReader,
  address: string,
  steps: AuthenticatedSteps,
): void {
  let credential: Credential | Promise<Credential>;
  try {
    credential = authenticate(headers, address);
  } catch (error) {
    return steps.refuse(error);
  }
  if (credential instanceof Promise) {
    credential.then(steps.admitted, steps.refuse).catch(steps.failed);
  } else {
    steps.admitted(credential);
  }
}
