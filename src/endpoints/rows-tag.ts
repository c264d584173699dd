// The tag of a computed result's rows: a short strong hash of its JSON body,
// the same for the same rows whatever form or compression a caller reads, so
// that a transport makes each form's entity tag from it; an unmasked result
// (personal data as stored) has a tag of its own even for the same body.
import { createHash } from "node:crypto";

/** Characters kept of the base64url SHA-256: 132 bits, plenty against collisions among one key's results. */
const tagLength = 22;

/**
 * base64url of the SHA-256 of `json` (the GET body of the rows), cut to 22
 * characters; when `unmasked`, of the body after a line saying so, so that a
 * masked and an unmasked result never share an entity tag.
 */
export function rowsTagOf(json: Buffer, unmasked = false): string {
  const hash = createHash("sha256");
  if (unmasked) hash.update("unmasked\n");
  return hash.update(json).digest("base64url").slice(0, tagLength);
}
