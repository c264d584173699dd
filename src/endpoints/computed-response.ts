// A response as the warehouse rows make it: the message for Connect and gRPC
// callers and the JSON body for GET callers, each made on first use, and the
// other bodies made from them kept by name (kept-bodies.ts).
import { create, type Message } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { QueryStatistics, Truncation, WarehouseRow } from "../executor/index.js";
import { KeptBodies, type BodyName } from "./kept-bodies.js";
import type { Endpoint } from "./registry.js";
import { responseJsonBytes } from "./response-json.js";
import { rowMessageFromWarehouse } from "./row-message.js";
import { rowsTagOf } from "./rows-tag.js";

/**
 * A computed response, as cached: the response message for Connect and gRPC
 * callers and the JSON body for GET callers, each made from the warehouse
 * rows on first use and kept. Either throws INTERNAL (the converter's error
 * as its cause) if the rows do not fit the row message: a mismatch of `sql/`
 * and `proto/`, a bug of the service rather than of the caller.
 */
export interface ComputedResponse {
  message(): Message;
  /**
   * The GET body `{"result": [...], "truncated", "rows_before_limit_at_least"}`,
   * with `"next_page_token"` beside them when there is one.
   */
  json(): Buffer;
  /** The token of the next page, set when a paged call's older rows remain (result-page.ts). */
  readonly nextPageToken?: string;
  /** Another body of the same rows kept under `name`, or undefined before `keepBody` put one there. */
  body(name: BodyName): Buffer | undefined;
  /** Keeps `body` under `name` for later callers; a cached result counts its bytes in the cache's bound. */
  keepBody(name: BodyName, body: Buffer): void;
  /**
   * A short strong hash of the rows (rows-tag.ts), made once per computation
   * from the JSON body: the same rows have the same tag whatever the form or
   * compression, so a transport makes an entity tag per form from it.
   */
  rowsTag(): string;
  /** What computing it took; a cached result keeps the figures of its computation. */
  readonly computation: Computation;
}

export interface Computation {
  /** Wall time of the warehouse query. */
  warehouseMs: number;
  /** Time spent writing the JSON body when the result was computed (0 when it is written later, on first use). */
  serializeMs: number;
  /** Rows and bytes the query read, when the warehouse reports them. */
  statistics?: QueryStatistics;
  /** When it was computed, by the service's clock: a cached result's Age counts from it. */
  computedAt: number;
  /** Whether rows were left out (past max_rows, or past the page) and how many there were at least. */
  truncation: Truncation;
}

/** What a response says besides its rows. */
export interface ResponseLabels {
  /** The token of the next page (result-page.ts). Default: none. */
  nextPageToken?: string;
  /** Its rows hold personal data as stored (prepare-call.ts): its rows tag is its own. Default: false. */
  unmasked?: boolean;
}

/** The response of freshly read rows, which are let go once both the message and the JSON body are made. */
export function computedResponse(
  endpoint: Endpoint,
  warehouseRows: WarehouseRow[],
  computation: Computation,
  labels: ResponseLabels = {},
): ComputedResponse {
  const { nextPageToken, unmasked } = labels;
  let rows: WarehouseRow[] | undefined = warehouseRows;
  let message: Message | undefined;
  let json: Buffer | undefined;
  const release = () => {
    if (message !== undefined && json !== undefined) rows = undefined;
  };
  const bodies = new KeptBodies();
  let rowsTag: string | undefined;
  const response: ComputedResponse = {
    computation,
    nextPageToken,
    body: (name) => bodies.get(name),
    keepBody: (name, body) => void bodies.keep(name, body),
    rowsTag: () => (rowsTag ??= rowsTagOf(response.json(), unmasked)),
    message() {
      if (message === undefined) {
        const result = converting(() => rows!.map((row) => rowMessageFromWarehouse(endpoint.rowSchema, row)));
        const { truncated, rowsBeforeLimitAtLeast } = computation.truncation;
        const fields = { result, nextPageToken, truncated, rowsBeforeLimitAtLeast: BigInt(rowsBeforeLimitAtLeast) };
        message = create(endpoint.method.output, fields as never);
        release();
      }
      return message;
    },
    json() {
      if (json === undefined) {
        json = converting(() => responseJsonBytes(rows!, endpoint.rowSchema, computation.truncation, nextPageToken));
        release();
      }
      return json;
    },
  };
  return response;
}

/** Runs a conversion of warehouse rows; its failure becomes INTERNAL with a fixed message. */
export function converting<T>(convert: () => T): T {
  try {
    return convert();
  } catch (error) {
    // The converter's error names the column and the row message; the log line names the endpoint.
    throw new ConnectError("internal error", Code.Internal, undefined, undefined, error);
  }
}
