// Runs one saved query for a request, whatever transport it came on:
// parameters bound and checked, then the executor, then row messages.
import { create, type Message } from "@bufbuild/protobuf";
import type { QueryExecutor } from "../executor/index.js";
import { bindParameters } from "./parameters.js";
import type { Endpoint } from "./registry.js";
import { rowMessageFromWarehouse } from "./row-message.js";

export interface CallContext {
  /** Aborts when the caller goes away. */
  signal?: AbortSignal;
  /** Remaining time the caller allows, in milliseconds. */
  timeoutMs?: number;
  requestId?: string;
}

export interface EndpointResult {
  /** The method's response message: `{ result: [rows] }`. */
  response: Message;
}

export interface EndpointService {
  /** Throws only ConnectError. */
  run(endpoint: Endpoint, request: Message, context?: CallContext): Promise<EndpointResult>;
}

export interface EndpointServiceOptions {
  executor: QueryExecutor;
}

export function createEndpointService(options: EndpointServiceOptions): EndpointService {
  const { executor } = options;
  return {
    async run(endpoint, request, context = {}) {
      const { queryParams } = bindParameters(endpoint, request);
      const { rows } = await executor.execute(endpoint.savedQuery, queryParams, context);
      const result = rows.map((row) => rowMessageFromWarehouse(endpoint.rowSchema, row));
      return { response: create(endpoint.method.output, { result } as never) };
    },
  };
}
