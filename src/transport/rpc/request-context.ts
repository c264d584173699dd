// Per-call values shared by the gate, the interceptors and the handlers: the
// request id and the caller's credential.
import { type ContextValues, createContextKey, createContextValues } from "@connectrpc/connect";
import type { Credential } from "../../auth/index.js";

/** The id of the call (requestIdFrom), set by the logging interceptor. */
export const requestIdKey = createContextKey<string>("", { description: "request id" });

/** The credential of the call, set by the gate. */
export const credentialKey = createContextKey<Credential | undefined>(undefined, { description: "credential" });

/** The context values a call starts with in the router: its credential, when it has one. */
export function contextFor(credential: Credential | undefined): ContextValues {
  const values = createContextValues();
  return credential === undefined ? values : values.set(credentialKey, credential);
}
