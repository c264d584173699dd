// The Connect interceptor that checks the API key of every procedure call.
import type { Interceptor } from "@connectrpc/connect";
import type { ApiKeyCheck } from "./api-key-check.js";

/** Runs `check` on the request headers before the handler; a failure is UNAUTHENTICATED. */
export function authInterceptor(check: ApiKeyCheck): Interceptor {
  return (next) => async (request) => {
    check(request.header);
    return next(request);
  };
}
