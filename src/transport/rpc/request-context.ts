// Per-call values shared by the gate, the interceptors and the handlers: the
// request id, the caller's credential, a keyless caller's address.
import { type ContextValues, createContextKey, createContextValues } from "@connectrpc/connect";
import type { Credential } from "../../auth/index.js";
import { type CorsDecision, noCors } from "../node-http/index.js";

/** The id of the call (requestIdFrom), set by the logging interceptor. */
export const requestIdKey = createContextKey<string>("", { description: "request id" });

/** The credential of the call, set by the gate. */
export const credentialKey = createContextKey<Credential | undefined>(undefined, { description: "credential" });

/** The client address of a keyless call or a watch stream (trusted proxies applied), for bounds per address such as health Watch's. */
export const clientAddressKey = createContextKey<string>("", { description: "client address" });

/** What CORS decided for the call's answers (call.cors), whose Vary the handler writes. */
export const corsKey = createContextKey<CorsDecision>(noCors, { description: "cors decision" });

/** What a call brings into the router besides its credential. */
export interface CallContextExtras {
  /** CORS's decision. Default noCors. */
  cors?: CorsDecision;
  /** The client address, set for keyless calls and watch streams. Default "". */
  clientAddress?: string;
}

/** The context values a call starts with in the router: its credential, or for a keyless call its client address, and CORS's decision. */
export function contextFor(credential: Credential | undefined, extras: CallContextExtras = {}): ContextValues {
  const values = createContextValues();
  if (extras.cors !== undefined) values.set(corsKey, extras.cors);
  if (extras.clientAddress) values.set(clientAddressKey, extras.clientAddress);
  return credential === undefined ? values : values.set(credentialKey, credential);
}
