// `npm run token`: prints a signed token (JWT, HS256 with JWT_SECRET) for a
// dashboard or a tenant: who it is, the endpoints it may call, the
// parameters it may not change, and how long it lasts.
import { rateProblem, readLimitsOf } from "../auth/credential-limits.js";
import { issueToken, parseDuration } from "../auth/token-issuer.js";
import { createEndpointRegistry, savedQueryServices } from "../endpoints/index.js";
import { readCommandLine } from "./command-line.js";
import { runCli } from "./run-cli.js";

// Read before the command line, whose check names unknown endpoints and parameters.
const registry = createEndpointRegistry({ services: savedQueryServices });
const parameters = new Set(registry.endpoints.flatMap((e) => e.parameters.map((p) => p.name)));

const { values } = readCommandLine({
  usage: `usage: npm run token -- --sub ID [--endpoints NAME,...] [--fixed NAME=VALUE]... [--ttl 1h] [--rps N] [--import]
       [--unmasked] [--max-rows-to-read N] [--max-bytes-to-read N]

Prints a token signed with JWT_SECRET (HS256), which the service accepts in
X-API-KEY or Authorization: Bearer like a key.

options:
  --sub ID             who the token is: its id in logs, metrics and rate limits (required)
  --endpoints NAMES    comma-separated endpoint names it may call (default: all)
  --fixed NAME=VALUE   a parameter it may not change; repeat for several
                       (for usage.api-counts, project is the whole URL pattern: anchor it,
                       e.g. --fixed 'project=^https://abc\\.')
  --ttl DURATION       how long it lasts: 90s, 15m, 1h, 7d (default 1h)
  --rps N              its own rate limit, calls a second, from one a day to 1000000
                       (default: the service's)
  --import             the import scope: it may post rows to POST /api/import/<table>
  --unmasked           it sees personal data (IP addresses, marked metadata) as stored
  --max-rows-to-read N   rows the warehouse may read for one of its calls (default: no limit of its own)
  --max-bytes-to-read N  bytes the warehouse may read for one of its calls (default: no limit of its own)
  -h, --help           print this and exit`,
  options: {
    sub: { type: "string" },
    endpoints: { type: "string" },
    fixed: { type: "string", multiple: true },
    ttl: { type: "string", default: "1h" },
    rps: { type: "string" },
    import: { type: "boolean", default: false },
    unmasked: { type: "boolean", default: false },
    "max-rows-to-read": { type: "string" },
    "max-bytes-to-read": { type: "string" },
  },
  check: ({ values }) => {
    const problems: string[] = [];
    if (values.sub === undefined || values.sub === "") problems.push("--sub is required");
    if (parseDuration(values.ttl) === undefined)
      problems.push(`--ttl must be a duration such as 90s, 15m, 1h or 7d, got "${values.ttl}"`);
    for (const name of endpointNames(values.endpoints) ?? []) {
      if (registry.find(name) === undefined) problems.push(`--endpoints names no endpoint: ${name}`);
    }
    for (const pair of values.fixed ?? []) {
      if (fixedPair(pair) === undefined)
        problems.push(`--fixed must be NAME=VALUE with a parameter name, got "${pair}"`);
    }
    // The checks the service makes when it reads the token, so that it never refuses one made here.
    if (values.rps !== undefined && !(Number(values.rps) > 0))
      problems.push(`--rps must be a positive number, got "${values.rps}"`);
    else if (values.rps !== undefined) {
      const problem = rateProblem(Number(values.rps), false);
      if (problem !== undefined) problems.push(`--rps ${problem}, got "${values.rps}"`);
    }
    const { problem } = readLimitsOf(readLimitClaims(values));
    if (problem !== undefined) {
      const option = `--${problem.field.replaceAll("_", "-")}`;
      problems.push(`${option} ${problem.description}, got "${values[option.slice(2) as keyof typeof values]}"`);
    }
    return problems;
  },
});

await runCli(async () => {
  const secret = process.env.JWT_SECRET;
  if (secret === undefined || secret.length < 32)
    throw new Error("JWT_SECRET must be set to the service's secret (at least 32 characters)");
  const fixedPairs = (values.fixed ?? []).map((pair) => fixedPair(pair)!);
  const fixed = fixedPairs.length === 0 ? undefined : Object.fromEntries(fixedPairs);
  const rps = values.rps === undefined ? undefined : Number(values.rps);
  const ttlSeconds = parseDuration(values.ttl)!;
  process.stdout.write(
    `${await issueToken({ sub: values.sub!, endpoints: endpointNames(values.endpoints), fixed, rps, import: values.import, unmasked: values.unmasked, ...readLimitClaims(values) }, { secret, ttlSeconds })}\n`,
  );
});

/** The names of `--endpoints`, or undefined (every endpoint) when it is not given. */
function endpointNames(list: string | undefined): string[] | undefined {
  return list
    ?.split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
}

/** `NAME=VALUE` of `--fixed` as [name, value], or undefined when NAME is not a parameter. */
function fixedPair(pair: string): [string, string] | undefined {
  const at = pair.indexOf("=");
  const name = pair.slice(0, at);
  return at < 1 || !parameters.has(name) ? undefined : [name, pair.slice(at + 1)];
}

/** `--max-rows-to-read` and `--max-bytes-to-read` as the claims of their names, those given only. */
function readLimitClaims(options: { "max-rows-to-read"?: string; "max-bytes-to-read"?: string }): {
  max_rows_to_read?: number;
  max_bytes_to_read?: number;
} {
  const claims: { max_rows_to_read?: number; max_bytes_to_read?: number } = {};
  if (options["max-rows-to-read"] !== undefined) claims.max_rows_to_read = Number(options["max-rows-to-read"]);
  if (options["max-bytes-to-read"] !== undefined) claims.max_bytes_to_read = Number(options["max-bytes-to-read"]);
  return claims;
}
