// The JSON error body of GET responses (CONTRACT.md section 4):
// {"error": {"code", "message", "details": [{"field", "description"}]}}.
import { Code, ConnectError } from "@connectrpc/connect";
import { fieldViolationsOf } from "../../errors/index.js";
import { codeName, httpStatusFromCode } from "./http-status.js";

export interface ErrorResponse {
  status: number;
  body: { error: { code: string; message: string; details: { field: string; description: string }[] } };
}

/** Any thrown value as status and body; non-Connect errors become a bare `internal error`. */
export function errorResponse(error: unknown): ErrorResponse {
  const e = error instanceof ConnectError ? error : new ConnectError("internal error", Code.Internal);
  return {
    status: httpStatusFromCode(e.code),
    body: { error: { code: codeName(e.code), message: e.rawMessage, details: fieldViolationsOf(e) } },
  };
}
