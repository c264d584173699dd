// The tag of a computed result's rows: a short strong hash of its JSON body,
// the same for the same rows whatever form or compression a caller reads, so
// that a transport makes each form's entity tag from it.
import { createHash } from "node:crypto";

/** Characters kept of the base64url SHA-256: 132 bits, plenty against collisions among one key's results. */
const tagLength = 22;

/** base64url of the SHA-256 of `json` (the GET body of the rows), cut to 22 characters. */
export function rowsTagOf(json: Buffer): string {
  return createHash("sha256").update(json).digest("base64url").slice(0, tagLength);
}
