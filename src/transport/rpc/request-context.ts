// Per-call values shared by the gate, the interceptors and the handlers: the
// request id, the caller's credential, a keyless caller's address.
import { type ContextValues, createContextKey, createContextValues } from "@connectrpc/connect";
import type { Credential } from "../../auth/index.js";

/** The id of the call (requestIdFrom), set by the logging interceptor. */
export const requestIdKey = createContextKey<string>("", { description: "request id" });

/** The credential of the call, set by the gate. */
export const credentialKey = createContextKey<Credential | undefined>(undefined, { description: "credential" });

/** The client address of a keyless call (trusted proxies applied), for bounds per address such as health Watch's. */
export const clientAddressKey = createContextKey<string>("", { description: "client address" });

/** The context values a call starts with in the router: its credential, or for a keyless call its client address. */
export function contextFor(credential: Credential | undefined, clientAddress = ""): ContextValues {
  const values = createContextValues();
  return credential === undefined ? values.set(clientAddressKey, clientAddress) : values.set(credentialKey, credential);
}
