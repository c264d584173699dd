// Per-call values shared by the gate, the interceptors and the handlers: the
// request id and the caller's credential.
import { type ContextValues, createContextKey, createContextValues } from "@connectrpc/connect";
import type { Credential } from "../../auth/index.js";

/** The id of the call (requestIdFrom), set by the logging interceptor. */
export const requestIdKey = createContextKey<string>("", { description: "request id" });

/** The credential of the call, set by the gate. */
export const credentialKey = createContextKey<Credential | undefined>(undefined, { description: "credential" });

/** Whether CORS decided that the call's answer varies by Origin (call.cors.varyOrigin). */
export const varyOriginKey = createContextKey<boolean>(false, { description: "vary by origin" });

/** The context values a call starts with in the router: its credential, when it has one, and CORS's Vary. */
export function contextFor(credential: Credential | undefined, varyOrigin = false): ContextValues {
  const values = createContextValues();
  if (varyOrigin) values.set(varyOriginKey, true);
  return credential === undefined ? values : values.set(credentialKey, credential);
}
