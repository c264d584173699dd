// Connect code -> HTTP status for GET responses (docs/http-api.md, Errors;
// the mapping of connect's protocol-connect/http-status.ts), and the code's wire name.
import { Code } from "@connectrpc/connect";

/** By code, 1 (canceled) to 16 (unauthenticated), 0 being none; test/unit/http-status.test.ts pins each. */
const statusByCode = [500, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401];

export function httpStatusFromCode(code: Code): number {
  return statusByCode[code] ?? 500;
}

/** The lowercase snake_case name Connect uses on the wire, e.g. `invalid_argument`. */
export function codeName(code: Code): string {
  return Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}
