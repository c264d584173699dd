// The banner over a deprecated saved query, from its listing's `deprecated`
// object (docs/endpoints.md, Versions and deprecation): since when, its
// sunset if set, and its successor; and the mark on its option in the
// endpoint selector. Written with textContent only.
import type { ListedEndpoint } from "./listing.js";

/** The option's text in the endpoint selector: the name, marked when deprecated. */
export function optionLabel(endpoint: ListedEndpoint): string {
  return endpoint.deprecated === undefined ? endpoint.name : `${endpoint.name} (deprecated)`;
}

/** The banner's sentence for `endpoint`, or `undefined` when it is not deprecated. */
export function deprecationText(endpoint: ListedEndpoint | undefined): string | undefined {
  const deprecated = endpoint?.deprecated;
  if (endpoint === undefined || deprecated === undefined) return undefined;
  const sunset =
    deprecated.sunset === undefined ? "no sunset date is set" : `it will be refused from ${deprecated.sunset}`;
  return `${endpoint.name} is deprecated since ${deprecated.since}; ${sunset}. Use ${deprecated.successor} instead.`;
}

/** Shows the banner of `endpoint` in `element`, or hides it when it is not deprecated. */
export function showDeprecation(element: HTMLElement, endpoint: ListedEndpoint | undefined): void {
  const text = deprecationText(endpoint);
  element.textContent = text ?? "";
  element.hidden = text === undefined;
}
