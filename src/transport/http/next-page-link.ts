// The `Link: <…>; rel="next"` header (RFC 8288) of a GET answer with a next
// page: the target the caller asked, its other parameters as sent, with the
// page token parameter set to the next page's token. CSV and NDJSON bodies
// carry no token, so this header is how they page.
import { pathOf, queryOf } from "../node-http/index.js";
import { decode } from "./query-string.js";

/**
 * The Link header value for the page after the one `url` asked for: a
 * relative reference keeping `url`'s path and every parameter but
 * `parameter` as written, with `parameter=token` where the caller's was (else
 * last).
 */
export function nextPageLink(url: string, parameter: string, token: string): string {
  const pair = `${encodeURIComponent(parameter)}=${encodeURIComponent(token)}`;
  const pairs: string[] = [];
  let placed = false;
  for (const sent of queryOf(url).split("&")) {
    if (sent === "") continue;
    // Its decoded name as query-string.ts reads it (undefined when malformed).
    const eq = sent.indexOf("=");
    if (decode(eq < 0 ? sent : sent.slice(0, eq)) !== parameter) pairs.push(sent);
    else if (!placed) {
      pairs.push(pair);
      placed = true;
    }
  }
  if (!placed) pairs.push(pair);
  return `<${pathOf(url)}?${pairs.join("&")}>; rel="next"`;
}
