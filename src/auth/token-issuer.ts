// Issues signed tokens (HS256 with the service's JWT_SECRET) with the claims
// the token verifier reads: for `npm run token` and for tests.

export interface TokenClaims {
  /** The caller's id in logs, metrics and rate limits. */
  sub: string;
  /** Endpoint names the token may call; undefined: all. */
  endpoints?: readonly string[];
  /** Parameters the token fixes. */
  fixed?: Readonly<Record<string, string>>;
  /** Its own rate limit, calls a second. */
  rps?: number;
  /** The `import` scope. Default: without it. */
  import?: boolean;
  /** Personal data as stored (docs/credentials.md#personal-data). Default: masked. */
  unmasked?: boolean;
  /** Rows the warehouse may read for one of its calls. */
  max_rows_to_read?: number;
  /** Bytes the warehouse may read for one of its calls. */
  max_bytes_to_read?: number;
}

export interface IssueOptions {
  secret: string;
  /** Lifetime from `now`. */
  ttlSeconds: number;
  /** Default: the current time, in ms. */
  now?: number;
  /** Seconds from `now` before which the token is not valid. Default: none. */
  notBeforeSeconds?: number;
}

export async function issueToken(claims: TokenClaims, options: IssueOptions): Promise<string> {
  const { SignJWT } = await import("jose"); // loaded when a token is made, not at start
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  const payload: Record<string, unknown> = {};
  if (claims.endpoints !== undefined) payload.endpoints = [...claims.endpoints];
  if (claims.fixed !== undefined) payload.fixed = { ...claims.fixed };
  if (claims.rps !== undefined) payload.rps = claims.rps;
  if (claims.import === true) payload.import = true;
  if (claims.unmasked === true) payload.unmasked = true;
  if (claims.max_rows_to_read !== undefined) payload.max_rows_to_read = claims.max_rows_to_read;
  if (claims.max_bytes_to_read !== undefined) payload.max_bytes_to_read = claims.max_bytes_to_read;
  const token = new SignJWT(payload)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.sub)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + options.ttlSeconds);
  if (options.notBeforeSeconds !== undefined) token.setNotBefore(nowSeconds + options.notBeforeSeconds);
  return token.sign(new TextEncoder().encode(options.secret));
}

/** `90s`, `15m`, `1h`, `7d` as seconds; undefined when it is none of these. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)(s|m|h|d)$/.exec(text);
  if (match === null) return undefined;
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as "s" | "m" | "h" | "d"];
  const seconds = Number(match[1]) * unit;
  return seconds > 0 ? seconds : undefined;
}
