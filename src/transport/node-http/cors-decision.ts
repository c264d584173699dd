// What CORS decided for every answer to a request (transport/cors.ts): its headers and its whole Vary.
import type { CorsHeaders } from "./request-handler.js";

export interface CorsDecision {
  readonly headers: CorsHeaders;
  /** True with a list of origins: the answer's Vary names Origin. */
  readonly varyOrigin: boolean;
  /**
   * The answer's whole Vary given its own fields `own` (a constant of the
   * answer's kind): `own`, after Origin when varyOrigin. Made once per `own`.
   */
  vary(own: string): string;
}

/** The decision to answer with `headers`, whose answers vary by Origin when `varyOrigin`. */
export function corsDecision(headers: CorsHeaders, varyOrigin: boolean): CorsDecision {
  if (!varyOrigin) return Object.freeze({ headers, varyOrigin, vary: ownOnly });
  const withOrigin = new Map<string, string>();
  const vary = (own: string): string => {
    let whole = withOrigin.get(own);
    if (whole === undefined) withOrigin.set(own, (whole = `Origin, ${own}`));
    return whole;
  };
  return Object.freeze({ headers, varyOrigin, vary });
}

const ownOnly = (own: string): string => own;

/** CORS that adds nothing (the metrics port, tests). */
export const noCors: CorsDecision = corsDecision(Object.freeze({}), false);
