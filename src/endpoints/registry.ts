// The endpoint registry: every saved query, found by name or id, built by
// reflection from the Protobuf services and their options.
import {
  getOption,
  hasOption,
  ScalarType,
  type DescField,
  type DescMessage,
  type DescMethod,
  type DescMethodServerStreaming,
  type DescService,
} from "@bufbuild/protobuf";
import {
  endpoint as endpointOption,
  parameter as parameterOption,
  ParameterFormat,
  type EndpointDefinition,
} from "../gen/endpoints/v1/endpoint_options_pb.js";
import type { ReadLimitValues, SavedQuery } from "../executor/index.js";
import { readSavedQuerySql } from "../warehouse/index.js";
import { allowedValueProblems, sandboxProblem } from "./definition-checks.js";
import { cursorPlaceholders } from "./page-token.js";
import { pagingProblems } from "./paging-checks.js";
import { personalDataProblems, readsUnmasked } from "./personal-data.js";
import { placeholderProblems } from "./sql-placeholders.js";
import { tablesReadBy } from "./tables-read.js";
import { type Deprecation, deprecationOf } from "./version-lifecycle.js";
import { isWatchMethod, watchMethodOf } from "./watch-methods.js";

/** One request parameter: a string field of the request message and its rules. */
export interface ParameterSpec {
  /** The proto field name, which is also the query-string name, e.g. `function_id`. */
  name: string;
  field: DescField;
  required: boolean;
  /** Empty when any value is accepted. */
  allowedValues: readonly string[];
  /** Used when the parameter is absent or empty (and for unknown values when `unknownIsDefault`). */
  defaultValue: string;
  unknownIsDefault: boolean;
  format: ParameterFormat;
  /** The longest value accepted, in characters. */
  maxLength: number;
  /** Rows per page when the parameter is a page token (result-page.ts); 0 when it is not one. */
  pageSize: number;
}

/** A saved query with everything the transports need to serve it. */
export interface Endpoint {
  definition: EndpointDefinition;
  service: DescService;
  /** The unary method that runs it once: the registry refuses any other kind. */
  method: DescMethod;
  /** Full gRPC method name, `functions.v1.FunctionsService/GetInvocationStats`. */
  grpcMethod: string;
  /** Its watch (watch-methods.ts): server streaming, named `Watch<X>` beside `Get<X>`; undefined when the service has none. */
  watchMethod?: DescMethodServerStreaming;
  /** Full gRPC name of the watch method, `usage.v1.UsageService/WatchApiCounts`. */
  grpcWatchMethod?: string;
  parameters: readonly ParameterSpec[];
  /** The row message of the response's repeated `result` field. */
  rowSchema: DescMessage;
  savedQuery: SavedQuery;
  /** The tables its SQL reads (tables-read.ts): rows imported into one refresh its cached results. */
  tablesRead: ReadonlySet<string>;
  /** The saved query's own read limits (`max_rows_to_read`, `max_bytes_to_read` options; 0 is none). */
  readLimits: ReadLimitValues;
  /** Set when this version is deprecated (`deprecated`, `sunset`, `successor` options; version-lifecycle.ts). */
  deprecation?: Deprecation;
  /**
   * Whether its rows hold personal data that its SQL masks unless the caller
   * may see it (personal-data.ts): its result then depends on the credential.
   */
  masksPersonalData: boolean;
}

export interface EndpointRegistry {
  readonly endpoints: readonly Endpoint[];
  /** By name (`usage.api-counts`) or by id (UUID, any letter case). */
  find(nameOrId: string): Endpoint | undefined;
}

/** The longest value of any parameter, in characters, when the options do not say. */
export const defaultMaxParameterLength = 1024;

export interface EndpointRegistryOptions {
  services: readonly DescService[];
  /** Loads the SQL of a saved query by name. Default: `sql/<name>.sql`. */
  readSql?: (name: string) => string;
  /** The longest value of any parameter, in characters. Default 1,024. */
  maxParameterLength?: number;
}

/**
 * Builds the registry. Throws when a method lacks the endpoint option (a
 * watch method, watch-methods.ts, goes with its saved query's), a name
 * or id repeats, a request field is not a string, the SQL's placeholders and
 * the request fields do not match one for one (`now` is the service's, and a
 * page token's are its cursor's), an allowed value of a parameter is not a
 * quoted literal of the SQL, a deprecation's options do not hold together
 * (version-lifecycle.ts), a saved query is declared sandboxed
 * (definition-checks.ts), one with a page token cannot page
 * (paging-checks.ts), or personal data marked on a row field is not masked
 * by the SQL (personal-data.ts): a mistake in `proto/` or `sql/` must stop start-up, not
 * surface at the first request.
 */
export function createEndpointRegistry(options: EndpointRegistryOptions): EndpointRegistry {
  const readSql = options.readSql ?? readSavedQuerySql;
  const maxLength = options.maxParameterLength ?? defaultMaxParameterLength;
  const endpoints: Endpoint[] = [];
  const byKey = new Map<string, Endpoint>();

  for (const service of options.services) {
    for (const method of service.methods) {
      if (isWatchMethod(service, method)) continue;
      if (!hasOption(method, endpointOption)) {
        throw new Error(`${service.typeName}.${method.name} has no (endpoints.v1.endpoint) option`);
      }
      if (method.methodKind !== "unary") throw new Error(`${method.name}: saved queries are unary`);
      const definition = getOption(method, endpointOption);
      const watchMethod = watchMethodOf(service, method);
      const sql = readSql(definition.name);
      const parameters = method.input.fields.map((field) => parameterSpec(field, maxLength));
      const rowSchema = rowSchemaOf(method.output);
      const problems = [
        ...placeholderProblems(
          definition.name,
          sql,
          parameters.flatMap((p) => (p.pageSize > 0 ? cursorPlaceholders : [p.name])),
        ),
        ...allowedValueProblems(definition.name, sql, parameters),
        ...pagingProblems(definition, parameters, method.output),
        ...personalDataProblems(definition.name, sql, rowSchema),
      ];
      const sandbox = sandboxProblem(definition);
      if (sandbox !== undefined) problems.push(sandbox);
      if (problems.length > 0) throw new Error(problems.join("; "));
      const endpoint: Endpoint = {
        definition,
        service,
        method,
        grpcMethod: `${service.typeName}/${method.name}`,
        ...(watchMethod === undefined
          ? {}
          : { watchMethod, grpcWatchMethod: `${service.typeName}/${watchMethod.name}` }),
        parameters,
        rowSchema,
        tablesRead: tablesReadBy(sql),
        readLimits: {
          maxRowsToRead: readLimitOption(definition.name, "max_rows_to_read", definition.maxRowsToRead),
          maxBytesToRead: readLimitOption(definition.name, "max_bytes_to_read", definition.maxBytesToRead),
        },
        masksPersonalData: readsUnmasked(sql),
        savedQuery: {
          name: definition.name,
          sql,
          maxRows: definition.maxRows,
          regexpParameter: method.input.fields.find(
            (f) => hasOption(f, parameterOption) && getOption(f, parameterOption).format === ParameterFormat.RE2,
          )?.name,
        },
      };
      for (const key of [definition.name, definition.id.toLowerCase()]) {
        if (byKey.has(key)) throw new Error(`endpoint name or id ${key} is used twice`);
        byKey.set(key, endpoint);
      }
      endpoints.push(endpoint);
    }
  }
  const names = new Set(endpoints.map((e) => e.definition.name));
  for (const endpoint of endpoints) {
    const { deprecation, problems } = deprecationOf(endpoint.definition, names);
    if (problems.length > 0) throw new Error(problems.join("; "));
    if (deprecation !== undefined) endpoint.deprecation = deprecation;
  }

  return {
    endpoints,
    find: (nameOrId) => byKey.get(nameOrId) ?? byKey.get(nameOrId.toLowerCase()),
  };
}

/** A read limit option as a number; one past what a number holds exactly is a mistake of `proto/`. */
function readLimitOption(name: string, option: string, value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER))
    throw new Error(`${name}: ${option} is larger than ${Number.MAX_SAFE_INTEGER}`);
  return Number(value);
}

function parameterSpec(field: DescField, maxLength: number): ParameterSpec {
  if (field.fieldKind !== "scalar" || field.scalar !== ScalarType.STRING) {
    throw new Error(`${field.parent.typeName}.${field.name}: request parameters are strings`);
  }
  const rule = getOption(field, parameterOption);
  return {
    name: field.name,
    field,
    required: rule.required,
    allowedValues: rule.allowedValues,
    defaultValue: rule.defaultValue,
    unknownIsDefault: rule.unknownIsDefault,
    format: rule.format,
    maxLength,
    pageSize: rule.pageSize,
  };
}

function rowSchemaOf(response: DescMessage): DescMessage {
  const result = response.fields.find((f) => f.name === "result");
  if (result?.fieldKind !== "list" || result.listKind !== "message") {
    throw new Error(`${response.typeName} must have a repeated message field named result`);
  }
  return result.message;
}
