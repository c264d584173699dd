// The one value a call carries into the Connect router: the call itself
// (node-http/call.ts), which the interceptors, the saved queries' routes,
// health and reflection read as every step before the router does.
import { Code, ConnectError, type ContextValues, createContextKey, createContextValues } from "@connectrpc/connect";
import { type AuthenticatedCall, type Call, isAuthenticated } from "../node-http/index.js";

const callKey = createContextKey<Call | undefined>(undefined, { description: "call" });

/** The context values `call` enters the router with. */
export function callValues(call: Call): ContextValues {
  return createContextValues().set(callKey, call);
}

/** The call a router context came with; undefined for a context made elsewhere (a test's own router). */
export function callOf(values: ContextValues): Call | undefined {
  return values.get(callKey);
}

/** The authenticated call of a saved query's route: one the gate did not admit is refused, never run unscoped. */
export function authenticatedCallOf(values: ContextValues): AuthenticatedCall {
  const call = values.get(callKey);
  if (call === undefined || !isAuthenticated(call))
    throw new ConnectError("missing or invalid API key", Code.Unauthenticated);
  return call;
}
