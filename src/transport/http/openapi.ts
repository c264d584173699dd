// GET /openapi.json: an OpenAPI 3.1 description of the GET API, generated
// from the same descriptors as the routes.
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { ParameterFormat } from "../../gen/endpoints/v1/endpoint_options_pb.js";
import type { Endpoint, EndpointRegistry } from "../../endpoints/index.js";
import { bodyFormats } from "./body-formats.js";
import { JSON_FORMAT } from "./content-negotiation.js";
import {
  corsHeaders,
  dryRunParameter,
  formatParameter,
  nextPageHeaders,
  nextPageToken,
  otherBodies,
  truncationFields,
} from "./response-documentation.js";

type Schema = Record<string, unknown>;

const errorStatuses: Record<string, string> = {
  "400": "Invalid parameters: every problem listed, each naming its field",
  "401": "Missing or wrong API key, or a bad, expired or not yet valid token",
  "403": "The credential may not call this endpoint, or fixes a parameter to another value",
  "404": "No endpoint of that name or id",
  "429": "Too many requests",
  "500": "Internal error",
  "503": "Warehouse unavailable",
  "504": "Query ran past its deadline",
};

export function openApiDocument(registry: EndpointRegistry): Schema {
  const paths: Record<string, Schema> = {};
  const schemas: Record<string, Schema> = {
    Error: {
      type: "object",
      required: ["error"],
      properties: {
        error: {
          type: "object",
          required: ["code", "message", "details"],
          properties: {
            code: { type: "string", examples: ["invalid_argument"] },
            message: { type: "string" },
            details: {
              type: "array",
              items: {
                type: "object",
                properties: { field: { type: "string" }, description: { type: "string" } },
              },
            },
          },
        },
      },
    },
  };
  // The parameters every endpoint takes, at the path level.
  const parameters = [formatParameter, dryRunParameter];
  for (const endpoint of registry.endpoints) {
    schemas[endpoint.rowSchema.name] = rowSchema(endpoint.rowSchema);
    paths[`/api/endpoints/${endpoint.definition.name}`] = { get: operation(endpoint, "ByName"), parameters };
    paths[`/api/endpoints/query/${endpoint.definition.id}`] = { get: operation(endpoint, "ById"), parameters };
  }
  paths["/api/endpoints"] = {
    get: {
      operationId: "listEndpoints",
      summary: "The definitions of the saved queries",
      description: "Only the endpoints the credential may call, each with the parameters it fixes (fixed_parameters).",
      responses: { "200": { description: "Endpoint definitions" }, "401": errorResponse("401") },
    },
  };
  return {
    openapi: "3.1.0",
    info: { title: "Saved-query endpoints", version: "1.0.0" },
    security: [{ ApiKey: [] }, { Bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        ApiKey: { type: "apiKey", in: "header", name: "X-API-KEY", description: "An API key, or a signed token (JWT)" },
        Bearer: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "A signed token (JWT), or an API key",
        },
      },
      schemas,
    },
  };
}

function operation(endpoint: Endpoint, suffix: string): Schema {
  const { definition } = endpoint;
  const paged = endpoint.parameters.some((p) => p.pageSize > 0);
  const headers = definition.cacheTtlSeconds > 0 ? { ...corsHeaders, ...cacheHeaders } : corsHeaders;
  const responses: Record<string, Schema> = {
    "200": {
      description: `At most ${definition.maxRows} rows`,
      headers: paged ? { ...headers, ...nextPageHeaders } : headers,
      content: {
        [bodyFormats[JSON_FORMAT]!.mediaType]: {
          schema: {
            type: "object",
            required: ["result", "truncated", "rows_before_limit_at_least"],
            properties: {
              result: { type: "array", items: { $ref: `#/components/schemas/${endpoint.rowSchema.name}` } },
              ...truncationFields,
              ...(paged ? { next_page_token: nextPageToken } : {}),
            },
          },
        },
        ...otherBodies,
      },
    },
  };
  for (const status of Object.keys(errorStatuses)) responses[status] = errorResponse(status);
  return {
    operationId: `${camel(definition.name)}${suffix}`,
    summary: `Run the saved query ${definition.name}`,
    ...(endpoint.deprecation === undefined
      ? {}
      : {
          deprecated: true,
          description: `Deprecated since ${definition.deprecated}${definition.sunset === "" ? "" : `, retired on ${definition.sunset} (410)`}: call ${endpoint.deprecation.successor}`,
        }),
    "x-grpc-method": endpoint.grpcMethod,
    "x-cache-ttl-seconds": definition.cacheTtlSeconds,
    parameters: endpoint.parameters.map((p) => ({
      name: p.name,
      in: "query",
      required: p.required,
      schema: {
        type: "string",
        maxLength: p.maxLength,
        ...(p.allowedValues.length > 0 && !p.unknownIsDefault ? { enum: [...p.allowedValues] } : {}),
        ...(p.allowedValues.length > 0 && p.unknownIsDefault ? { examples: [...p.allowedValues] } : {}),
        ...(p.defaultValue !== "" ? { default: p.defaultValue } : {}),
        ...(p.format === ParameterFormat.ISO8601 ? { format: "date-time" } : {}),
        ...(p.format === ParameterFormat.RE2 ? { format: "regex" } : {}),
      },
    })),
    responses,
  };
}

const cacheHeaders = {
  "X-Cache": { schema: { type: "string", enum: ["HIT", "MISS"] } },
  Age: { schema: { type: "integer" }, description: "Seconds since the result was computed" },
};

function errorResponse(status: string): Schema {
  return {
    description: errorStatuses[status],
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  };
}

function rowSchema(message: DescMessage): Schema {
  const properties: Record<string, Schema> = {};
  for (const field of message.fields) properties[field.name] = fieldSchema(field);
  return { type: "object", required: message.fields.map((f) => f.name), properties };
}

function fieldSchema(field: DescField): Schema {
  if (field.fieldKind === "scalar") {
    switch (field.scalar) {
      case ScalarType.STRING:
        return { type: "string" };
      case ScalarType.DOUBLE:
      case ScalarType.FLOAT:
        return { type: "number" };
      case ScalarType.BOOL:
        return { type: "boolean" };
      default:
        return { type: "integer" };
    }
  }
  if (field.fieldKind === "message" && field.message.typeName === "google.protobuf.Timestamp") {
    return { type: "string", format: "date-time" };
  }
  if (
    field.fieldKind === "list" &&
    field.listKind === "message" &&
    field.message.typeName === "google.protobuf.Struct"
  ) {
    return { type: "array", items: { type: "object" } };
  }
  return {};
}

function camel(name: string): string {
  return name.replace(/[.-](\w)/g, (_, c: string) => c.toUpperCase());
}
