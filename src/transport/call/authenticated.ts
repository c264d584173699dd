// The one "authenticate, then go on" step of every keyed request, from the headers alone, before any body is read.
import type { Authenticator, Credential } from "../../auth/index.js";
import type { Call } from "./call.js";

/** A call past authentication: its caller's credential known. */
export type AuthenticatedCall = Call & { readonly credential: Credential };

/** An authenticated call whose saved query's call is prepared (scope applied, parameters valid). */
export type ValidatedCall = AuthenticatedCall & { readonly prepared: NonNullable<Call["prepared"]> };

/** Whether `call` is past authentication. */
export function isAuthenticated(call: Call): call is AuthenticatedCall {
  return call.credential !== undefined;
}

/** `call` with its saved query's call prepared. */
export function validated(call: AuthenticatedCall, prepared: NonNullable<Call["prepared"]>): ValidatedCall {
  call.prepared = prepared;
  return call as ValidatedCall;
}

/** What comes after authentication; made once per route, each step handed its call. */
export interface AuthenticatedSteps {
  /** Goes on with the caller's credential, set on the call. */
  admitted(call: AuthenticatedCall): void;
  /** Answers the refusal (UNAUTHENTICATED, RESOURCE_EXHAUSTED for a throttled address or caller). */
  refuse(call: Call, error: unknown): void;
  /** What `admitted` threw after a new token's signature check, which no server guard sees: a 500 and an error line. */
  failed(call: Call, error: unknown): void;
}

/**
 * Authenticates `call` from its headers and address, then goes on: at once for a key or a token verified before,
 * after the signature check for a token seen for the first time.
 */
export function authenticateThen(authenticate: Authenticator, call: Call, steps: AuthenticatedSteps): void {
  let credential: Credential | Promise<Credential>;
  try {
    credential = authenticate(call, call.clientAddress);
  } catch (error) {
    return steps.refuse(call, error);
  }
  if (credential instanceof Promise) {
    credential
      .then(
        (admitted) => {
          call.credential = admitted;
          steps.admitted(call as AuthenticatedCall);
        },
        (error: unknown) => steps.refuse(call, error),
      )
      .catch((error: unknown) => steps.failed(call, error));
  } else {
    call.credential = credential;
    steps.admitted(call as AuthenticatedCall);
  }
}
