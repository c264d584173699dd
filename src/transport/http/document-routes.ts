// The two JSON documents made from the registry: the OpenAPI document
// (GET /openapi.json, needing no key) and the listing of the saved queries
// (GET /api/endpoints, for an authenticated caller), each made once; a
// scoped caller's listing, which names only what it may call, is made anew.
import { createHash } from "node:crypto";
import { isScoped, type Credential } from "../../auth/index.js";
import type { EndpointRegistry } from "../../endpoints/index.js";
import { type Call, notModified, varyCredential } from "../node-http/index.js";
import { endpointListing } from "./endpoint-listing.js";
import { openApiDocument } from "./openapi.js";
import { sendBytes, sendEmpty } from "./respond.js";

/** `openapi` answers GET /openapi.json; `listing` GET /api/endpoints, its caller authenticated as `credential`. */
export function createDocumentRoutes(registry: EndpointRegistry) {
  const openapi = Buffer.from(JSON.stringify(openApiDocument(registry)));
  const openapiEtag = `"${createHash("sha256").update(openapi).digest("base64url").slice(0, 22)}"`;
  const listing = Buffer.from(JSON.stringify(endpointListing(registry)));
  return {
    openapi(call: Call): void {
      // The same for every caller, but revalidated on every use: a new deployment is seen at once.
      const headers = { "cache-control": "no-cache", etag: openapiEtag };
      const exchange = call.exchange();
      const ifNoneMatch = call.head.headers["if-none-match"];
      if (ifNoneMatch !== undefined && notModified(call.head.headers, openapiEtag, 0))
        return sendEmpty(exchange[1], 304, headers);
      sendBytes(exchange, 200, openapi, headers);
    },
    listing(call: Call, credential: Credential): void {
      const body = isScoped(credential) ? Buffer.from(JSON.stringify(endpointListing(registry, credential))) : listing;
      // A scoped key's listing names its own fixed values: no shared cache may hand it to another caller.
      const headers = { "cache-control": "private, no-cache", vary: call.cors.vary(varyCredential) };
      sendBytes(call.exchange(), 200, body, headers);
    },
  };
}
