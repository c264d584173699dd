// Connect code -> HTTP status of a GET error, and the code's wire name, for
// every code (docs/http-api.md, Errors).
import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { codeName, httpStatusFromCode } from "../../src/transport/call/http-status.js";

// Connect's protocol mapping, written out here from its specification's table.
const table: [Code, number, string][] = [
  [Code.Canceled, 499, "canceled"],
  [Code.Unknown, 500, "unknown"],
  [Code.InvalidArgument, 400, "invalid_argument"],
  [Code.DeadlineExceeded, 504, "deadline_exceeded"],
  [Code.NotFound, 404, "not_found"],
  [Code.AlreadyExists, 409, "already_exists"],
  [Code.PermissionDenied, 403, "permission_denied"],
  [Code.ResourceExhausted, 429, "resource_exhausted"],
  [Code.FailedPrecondition, 400, "failed_precondition"],
  [Code.Aborted, 409, "aborted"],
  [Code.OutOfRange, 400, "out_of_range"],
  [Code.Unimplemented, 501, "unimplemented"],
  [Code.Internal, 500, "internal"],
  [Code.Unavailable, 503, "unavailable"],
  [Code.DataLoss, 500, "data_loss"],
  [Code.Unauthenticated, 401, "unauthenticated"],
];

describe("httpStatusFromCode", () => {
  it.each(table)("code %i is HTTP %i (%s)", (code, status) => {
    expect(httpStatusFromCode(code)).toBe(status);
  });

  it("covers every code Connect defines, none answered 200", () => {
    const codes = Object.values(Code).filter((v): v is Code => typeof v === "number");
    expect(codes.sort((a, b) => a - b)).toEqual(table.map(([code]) => code).sort((a, b) => a - b));
    for (const code of codes) expect(httpStatusFromCode(code)).toBeGreaterThanOrEqual(400);
  });
});

describe("codeName", () => {
  it.each(table)("code %i is named %s on the wire", (code, _status, name) => {
    expect(codeName(code)).toBe(name);
  });
});
