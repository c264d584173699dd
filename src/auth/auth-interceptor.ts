// The Connect interceptor that checks the API key of every procedure call
// except those of the keyless services (reflection, health).
import type { Interceptor } from "@connectrpc/connect";
import type { ApiKeyCheck } from "./api-key-check.js";
import { keylessServices } from "./keyless.js";

/** Runs `check` on the request headers before the handler; a failure is UNAUTHENTICATED. */
export function authInterceptor(check: ApiKeyCheck): Interceptor {
  return (next) => async (request) => {
    if (!keylessServices.has(request.service.typeName)) check(request.header);
    return next(request);
  };
}
