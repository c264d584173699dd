// The `import` scope: what the import route asks of a credential before it
// reads the body (key-file field `"import": true`, token claim `import: true`,
// every full-access key of API_KEYS).
import { Code, ConnectError } from "@connectrpc/connect";
import type { Credential } from "./credential.js";

/** Throws PERMISSION_DENIED unless `credential` has the `import` scope. */
export function assertImportScope(credential: Credential): void {
  if (credential.mayImport !== true)
    throw new ConnectError("this credential may not import rows: it needs the import scope", Code.PermissionDenied);
}
