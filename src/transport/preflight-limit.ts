// CORS preflights counted per client address as requests needing no key
// (transport/http/keyless-limit.ts, the kind "other"): they are answered
// before any route or authentication, and would otherwise be a flood nothing
// bounds. Past the bound: 429 `resource_exhausted` with Retry-After.
import { clientAddress, type TrustedProxies } from "./node-http/client-address.js";
import { headerReader, type HttpRequest, type HttpResponse, requestIdFrom } from "./node-http/index.js";
import { type KeylessLimit, sendError } from "./http/index.js";

export interface PreflightLimitOptions {
  /** The buckets of the requests needing no key, shared with the routes. */
  keylessLimit: KeylessLimit;
  /** Proxies whose X-Forwarded-For names the client (TRUSTED_PROXIES). Default: none, the peer is the client. */
  trustedProxies?: TrustedProxies;
}

/** True when the client of `request` is past its bound: the 429 is written, with `headers` (Vary) added. */
export type PreflightLimit = (request: HttpRequest, response: HttpResponse, headers: Record<string, string>) => boolean;

/** Takes a keyless request's token for each preflight, from its client address (IPv6 by its /64). */
export function createPreflightLimit(options: PreflightLimitOptions): PreflightLimit {
  const { keylessLimit, trustedProxies } = options;
  const noHeaders = { get: () => null };
  return (request, response, headers) => {
    const peer = request.socket?.remoteAddress ?? "";
    const forwardedFor = request.headers["x-forwarded-for"];
    const client =
      trustedProxies === undefined
        ? peer
        : clientAddress(peer, Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor, trustedProxies);
    try {
      // The client is worked out here: the limit reads no header of its own.
      keylessLimit("other", noHeaders, client);
      return false;
    } catch (error) {
      const requestId = requestIdFrom(headerReader(request.headers));
      sendError([request, response], requestId, error, { headers });
      return true;
    }
  };
}
