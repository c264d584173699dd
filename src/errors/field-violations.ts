// INVALID_ARGUMENT errors that list every bad field at once, readable by
// clients as google.rpc.BadRequest field violations.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequestSchema, BadRequest_FieldViolationSchema } from "../gen/google/rpc/error_details_pb.js";

export interface FieldViolation {
  /** The request field (query-string parameter) at fault, e.g. `interval`. */
  field: string;
  /** Lowercase, naming the field: `interval must be one of hourly, daily, minutely`. */
  description: string;
}

/** One INVALID_ARGUMENT error for all the violations, the message joining their descriptions. */
export function invalidArgument(violations: FieldViolation[], cause?: unknown): ConnectError {
  const detail = create(BadRequestSchema, {
    fieldViolations: violations.map((v) => create(BadRequest_FieldViolationSchema, v)),
  });
  const message = violations.map((v) => v.description).join("; ");
  return new ConnectError(message, Code.InvalidArgument, undefined, [{ desc: BadRequestSchema, value: detail }], cause);
}

/** The field violations an error carries, or none. */
export function fieldViolationsOf(error: ConnectError): FieldViolation[] {
  return error
    .findDetails(BadRequestSchema)
    .flatMap((d) => d.fieldViolations.map(({ field, description }) => ({ field, description })));
}
