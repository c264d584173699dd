// A credential's scope applied to a request, before anything else reads it:
// an endpoint the credential may not call is PERMISSION_DENIED; a fixed
// parameter absent from the request takes its fixed value, and one given
// another value is PERMISSION_DENIED naming it. What follows (validation, the
// cache key, the query) sees the effective parameters only.
import { clone, create, type Message } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequestSchema, BadRequest_FieldViolationSchema } from "../gen/google/rpc/error_details_pb.js";
import type { ReadLimitValues } from "../executor/index.js";
import type { Endpoint } from "./registry.js";

/**
 * What a credential limits: the endpoints it may call (undefined: all), the
 * parameters it fixes, what the warehouse may read for it, and whether it
 * sees personal data as stored (undefined: masked).
 */
export interface Scope {
  endpoints?: ReadonlySet<string>;
  fixed?: Readonly<Record<string, string>>;
  readLimits?: ReadLimitValues;
  unmasked?: true;
}

/** `request` as `scope` lets it run: the same message when nothing is fixed, else a copy with the fixed values. */
export function applyScope(endpoint: Endpoint, request: Message, scope: Scope): Message {
  const name = endpoint.definition.name;
  if (scope.endpoints !== undefined && !scope.endpoints.has(name)) {
    throw new ConnectError(`this credential may not call ${name}`, Code.PermissionDenied);
  }
  if (scope.fixed === undefined) return request;
  const values = request as unknown as Record<string, unknown>;
  let scoped: Record<string, unknown> | undefined;
  for (const parameter of endpoint.parameters) {
    const fixed = scope.fixed[parameter.name];
    if (fixed === undefined) continue;
    const given = values[parameter.field.localName];
    if (given === "" || given === undefined) {
      scoped ??= clone(endpoint.method.input, request) as unknown as Record<string, unknown>;
      scoped[parameter.field.localName] = fixed;
    } else if (given !== fixed) {
      throw permissionDenied(parameter.name);
    }
  }
  return (scoped as unknown as Message | undefined) ?? request;
}

function permissionDenied(field: string): ConnectError {
  const description = `${field} is fixed for this credential and may not be given another value`;
  const detail = create(BadRequestSchema, {
    fieldViolations: [create(BadRequest_FieldViolationSchema, { field, description })],
  });
  return new ConnectError(description, Code.PermissionDenied, undefined, [{ desc: BadRequestSchema, value: detail }]);
}
