// The one place where failures of the warehouse become ConnectErrors. Warehouse
// text stays in `cause` (and so in the log), never in the client's message.
import { Code, ConnectError } from "@connectrpc/connect";
import { callerGoneError, causeChain, deadlineError, invalidArgument } from "../errors/index.js";
import { isEmbeddedEngineGone, WarehouseClosedError } from "../warehouse/index.js";
import { passedReadLimit, readLimitError, type ReadLimitName, type ReadLimits } from "./read-limits.js";

export interface ClickHouseErrorContext {
  /** The query parameter that is a regular expression, named when it fails to compile. */
  regexpParameter?: string;
  /** Why the query's abort signal fired, when it did. */
  aborted?: "deadline" | "caller";
  /** The read limits the query ran under: one it ran past is named in the message. */
  readLimits?: ReadLimits;
}

/** Node system error codes that mean the warehouse cannot be reached at all. */
const unreachableSystemCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EPIPE",
  "UND_ERR_SOCKET",
]);

/** ClickHouse error codes, by number, and the code each one is for a caller. */
const codeByClickHouseCode = new Map<number, Code>([
  [158, Code.ResourceExhausted], // TOO_MANY_ROWS
  [159, Code.DeadlineExceeded], // TIMEOUT_EXCEEDED
  [160, Code.DeadlineExceeded], // TOO_SLOW
  [202, Code.Unavailable], // TOO_MANY_SIMULTANEOUS_QUERIES
  [209, Code.Unavailable], // SOCKET_TIMEOUT
  [210, Code.Unavailable], // NETWORK_ERROR
  [241, Code.ResourceExhausted], // MEMORY_LIMIT_EXCEEDED
  [242, Code.Unavailable], // TABLE_IS_READ_ONLY
  [279, Code.Unavailable], // ALL_CONNECTION_TRIES_FAILED
  [290, Code.ResourceExhausted], // LIMIT_EXCEEDED
  [307, Code.ResourceExhausted], // TOO_MANY_BYTES
  [396, Code.ResourceExhausted], // TOO_MANY_ROWS_OR_BYTES
]);

/** CANNOT_COMPILE_REGEXP: a pattern parameter RE2 cannot compile. */
const cannotCompileRegexp = 427;

const messages: Partial<Record<Code, string>> = {
  [Code.Unavailable]: "warehouse unavailable, try again later",
  [Code.ResourceExhausted]: "the query ran past a resource limit of the warehouse",
  [Code.Internal]: "internal error",
};

/**
 * Translates anything a warehouse query threw into a ConnectError:
 * an uncompilable regular expression is INVALID_ARGUMENT naming the parameter,
 * a read limit passed or another resource limit of the warehouse (memory, say)
 * RESOURCE_EXHAUSTED (naming the read limit when it is one of `readLimits`),
 * an unreachable warehouse UNAVAILABLE, a deadline DEADLINE_EXCEEDED, and
 * everything else INTERNAL with a fixed message.
 */
export function connectErrorFromClickHouse(error: unknown, context: ClickHouseErrorContext = {}): ConnectError {
  if (error instanceof ConnectError) return error;
  if (context.aborted === "deadline") return withCode(Code.DeadlineExceeded, error);
  if (context.aborted === "caller") return withCode(Code.Canceled, error);

  const chain = causeChain(error);
  const clickHouseCode = firstDefined(chain, clickHouseCodeOf);
  if (clickHouseCode !== undefined) {
    if (clickHouseCode === cannotCompileRegexp && context.regexpParameter !== undefined) {
      const field = context.regexpParameter;
      return invalidArgument([{ field, description: `${field} is not a valid RE2 regular expression` }], error);
    }
    const passed = passedReadLimit(clickHouseCode, context.readLimits);
    if (passed !== undefined) return readLimitError(passed, context.readLimits![passed]!, error);
    return withCode(codeByClickHouseCode.get(clickHouseCode) ?? Code.Internal, error);
  }
  if (chain.some(isUnreachable) || isEmbeddedEngineGone(error)) return withCode(Code.Unavailable, error);
  return withCode(Code.Internal, error);
}

/** The read limit of `limits` that the warehouse said `error`'s query ran past, if any. */
export function readLimitPassedBy(error: unknown, limits: ReadLimits | undefined): ReadLimitName | undefined {
  if (limits === undefined) return undefined;
  const clickHouseCode = firstDefined(causeChain(error), clickHouseCodeOf);
  return clickHouseCode === undefined ? undefined : passedReadLimit(clickHouseCode, limits);
}

function withCode(code: Code, cause: unknown): ConnectError {
  // A deadline and a caller gone read the same wherever they are noticed.
  if (code === Code.DeadlineExceeded) return deadlineError(cause);
  if (code === Code.Canceled) return callerGoneError(cause);
  const error = new ConnectError(messages[code] ?? "internal error", code, undefined, undefined, cause);
  if (code === Code.Unavailable) error.metadata.set("retry-after", String(unavailableRetryAfterSeconds));
  return error;
}

/** UNAVAILABLE without trying the warehouse, while it is known to be unreachable. */
export function unavailableError(): ConnectError {
  return withCode(Code.Unavailable, undefined);
}

/** What an UNAVAILABLE answer tells the caller to wait before trying again. */
const unavailableRetryAfterSeconds = 2;

function firstDefined<T>(items: readonly unknown[], read: (item: unknown) => T | undefined): T | undefined {
  for (const item of items) {
    const value = read(item);
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * The ClickHouse error code of an error the warehouse raised: clickhouse-js's
 * ClickHouseError carries it as numeric text in `code` (read by shape, since
 * the embedded connection throws it from its own copy of the library), chDB's
 * errors as the number `clickhouseCode`.
 */
function clickHouseCodeOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, clickhouseCode } = error as { code?: unknown; clickhouseCode?: unknown };
  if (typeof code === "string" && /^\d+$/.test(code)) return Number(code);
  if (typeof clickhouseCode === "number" && Number.isInteger(clickhouseCode)) return clickhouseCode;
  return undefined;
}

/** A socket-level failure of the server connection, or the embedded engine known not to be open. */
function isUnreachable(error: unknown): boolean {
  if (error instanceof WarehouseClosedError) return true;
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && unreachableSystemCodes.has(code);
}
