// The two JSON documents made from the registry: the OpenAPI document
// (GET /openapi.json, needing no key) and the listing of the saved queries
// (GET /api/endpoints, for an authenticated caller), each made once; a
// scoped caller's listing, which names only what it may call, is made anew.
import { isScoped, type Credential } from "../../auth/index.js";
import type { EndpointRegistry } from "../../endpoints/index.js";
import type { Call } from "../node-http/index.js";
import { endpointListing } from "./endpoint-listing.js";
import { openApiDocument } from "./openapi.js";
import { sendBytes } from "./respond.js";

export interface DocumentRoutes {
  /** GET /openapi.json. */
  openapi(call: Call): void;
  /** GET /api/endpoints, its caller authenticated as `credential`. */
  listing(call: Call, credential: Credential): void;
}

export function createDocumentRoutes(registry: EndpointRegistry): DocumentRoutes {
  const openapi = Buffer.from(JSON.stringify(openApiDocument(registry)));
  const listing = Buffer.from(JSON.stringify(endpointListing(registry)));
  return {
    openapi: (call) => sendBytes(call.exchange(), 200, openapi),
    listing(call, credential) {
      const body = isScoped(credential) ? Buffer.from(JSON.stringify(endpointListing(registry, credential))) : listing;
      sendBytes(call.exchange(), 200, body);
    },
  };
}
