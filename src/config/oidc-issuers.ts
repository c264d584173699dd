// OIDC_ISSUERS read: comma-separated issuer URLs, or a JSON list of issuers
// each with its own audience, caller name, algorithms and claim mapping
// (docs/credentials.md#openid-connect-issuers). Every problem is a line
// naming the variable and the issuer.
import { mappedFields } from "../auth/claim-mapping.js";
import { urlProblem } from "../auth/fetch-json.js";
import { asymmetricAlgorithms, type OidcIssuer } from "../auth/oidc-verifier.js";
import { ConfigError } from "./config.js";
import type { Parser } from "./parsers.js";

/** An issuer as written: the audience may come from OIDC_AUDIENCE, the name from its URL's host. */
export type OidcIssuerSetting = Omit<OidcIssuer, "audience" | "name"> & { audience?: string; name?: string };

const issuerFields = ["issuer", "audience", "name", "algorithms", "claims"];

export const oidcIssuers: Parser<OidcIssuerSetting[]> = {
  read(value, name) {
    const problems: string[] = [];
    let entries: unknown[];
    if (value.startsWith("[")) {
      try {
        entries = JSON.parse(value) as unknown[];
      } catch {
        throw new ConfigError([`${name} starting with [ must be a JSON list of issuers`]);
      }
      if (!Array.isArray(entries)) throw new ConfigError([`${name} starting with [ must be a JSON list of issuers`]);
    } else {
      entries = value
        .split(",")
        .map((url) => url.trim())
        .filter((url) => url !== "")
        .map((issuer) => ({ issuer }));
    }
    const issuers = entries.flatMap((entry, index) => {
      const issuer = issuerOf(entry, `${name} issuer ${index + 1}`, problems);
      return issuer === undefined ? [] : [issuer];
    });
    const seen = new Set<string>();
    for (const { issuer } of issuers) {
      if (seen.has(issuer)) problems.push(`${name} lists ${issuer} twice`);
      seen.add(issuer);
    }
    if (problems.length > 0) throw new ConfigError(problems);
    if (issuers.length === 0) throw new ConfigError([`${name} lists no issuer`]);
    return issuers;
  },
  show: (issuers) =>
    issuers.every((i) => i.audience === undefined && i.name === undefined && i.claims === undefined)
      ? issuers.map((i) => i.issuer).join(",")
      : JSON.stringify(issuers),
};

/** The issuer `entry` describes, or undefined with its problems pushed, each starting with `at`. */
function issuerOf(entry: unknown, at: string, problems: string[]): OidcIssuerSetting | undefined {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    problems.push(`${at} must be an object with an issuer URL`);
    return undefined;
  }
  const fields = entry as Record<string, unknown>;
  const { issuer, audience, name, algorithms, claims } = fields;
  if (typeof issuer !== "string") {
    problems.push(`${at}: issuer must be a URL`);
    return undefined;
  }
  const before = problems.length;
  const where = `${at} (${issuer})`;
  const urlIssue = urlProblem(issuer);
  if (urlIssue !== undefined) problems.push(`${where}: issuer ${urlIssue}`);
  for (const field of Object.keys(fields)) {
    if (!issuerFields.includes(field))
      problems.push(`${where}: unknown field ${field}; known: ${issuerFields.join(", ")}`);
  }
  if (audience !== undefined && (typeof audience !== "string" || audience === ""))
    problems.push(`${where}: audience must be a string`);
  if (name !== undefined && (typeof name !== "string" || !/^[\w.:-]+$/.test(name)))
    problems.push(`${where}: name must be letters, digits and . _ : -`);
  const allowed = algorithms === undefined ? [...asymmetricAlgorithms] : algorithms;
  if (!Array.isArray(allowed) || allowed.length === 0 || !allowed.every((a) => typeof a === "string")) {
    problems.push(`${where}: algorithms must be a list of ${asymmetricAlgorithms.join(", ")}`);
  } else {
    for (const alg of allowed as string[]) {
      if (!(asymmetricAlgorithms as readonly string[]).includes(alg))
        problems.push(`${where}: algorithm ${alg} is not allowed; only ${asymmetricAlgorithms.join(", ")}`);
    }
  }
  if (claims !== undefined) claimProblems(claims, where, problems);
  if (problems.length > before) return undefined;
  return {
    issuer,
    algorithms: allowed as string[],
    ...(audience === undefined ? {} : { audience: audience as string }),
    ...(name === undefined ? {} : { name: name as string }),
    ...(claims === undefined ? {} : { claims: claims as OidcIssuer["claims"] }),
  };
}

function claimProblems(claims: unknown, where: string, problems: string[]): void {
  if (typeof claims !== "object" || claims === null || Array.isArray(claims)) {
    problems.push(`${where}: claims must map ${mappedFields.join(", ")} to claim names`);
    return;
  }
  for (const [field, claim] of Object.entries(claims)) {
    if (!(mappedFields as readonly string[]).includes(field)) {
      problems.push(`${where}: claims.${field} is unknown; known: ${mappedFields.join(", ")}`);
    } else if (field === "fixed") {
      const fixed = claim as Record<string, unknown>;
      if (typeof fixed !== "object" || fixed === null || Array.isArray(fixed) || !Object.values(fixed).every(isName))
        problems.push(`${where}: claims.fixed must map parameter names to claim names`);
    } else if (!isName(claim)) {
      problems.push(`${where}: claims.${field} must be a claim name`);
    }
  }
}

const isName = (value: unknown) => typeof value === "string" && value !== "";
