// Per-call values shared by the gate, the interceptors and the handlers: the
// request id and the caller's credential.
import { createContextKey } from "@connectrpc/connect";
import type { Credential } from "../../auth/index.js";

/** The id of the call (requestIdFrom), set by the logging interceptor. */
export const requestIdKey = createContextKey<string>("", { description: "request id" });

/** The credential of the call, set by the gate. */
export const credentialKey = createContextKey<Credential | undefined>(undefined, { description: "credential" });
