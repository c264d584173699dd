// The one place where failures of the warehouse become ConnectErrors. Warehouse
// text stays in `cause` (and so in the log), never in the client's message.
import { Code, ConnectError } from "@connectrpc/connect";
import { invalidArgument } from "../errors/index.js";

export interface ClickHouseErrorContext {
  /** The query parameter that is a regular expression, named when it fails to compile. */
  regexpParameter?: string;
  /** Why the query's abort signal fired, when it did. */
  aborted?: "deadline" | "caller";
}

/** Network failures that mean the warehouse cannot be reached at all. */
const unreachableCodes = new Set([
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

/** ClickHouse error types, by name, and the code each one is for a caller. */
const codeByClickHouseType: Record<string, Code> = {
  TIMEOUT_EXCEEDED: Code.DeadlineExceeded,
  TOO_SLOW: Code.DeadlineExceeded,
  TOO_MANY_SIMULTANEOUS_QUERIES: Code.Unavailable,
  ALL_CONNECTION_TRIES_FAILED: Code.Unavailable,
  NETWORK_ERROR: Code.Unavailable,
  SOCKET_TIMEOUT: Code.Unavailable,
  TABLE_IS_READ_ONLY: Code.Unavailable,
};

const messages: Partial<Record<Code, string>> = {
  [Code.DeadlineExceeded]: "query ran past its deadline",
  [Code.Canceled]: "query was cancelled by the caller",
  [Code.Unavailable]: "warehouse unavailable, try again later",
  [Code.Internal]: "internal error",
};

/**
 * Translates anything a warehouse query threw into a ConnectError:
 * an uncompilable regular expression is INVALID_ARGUMENT naming the parameter,
 * an unreachable warehouse UNAVAILABLE, a deadline DEADLINE_EXCEEDED, and
 * everything else INTERNAL with a fixed message.
 */
export function connectErrorFromClickHouse(error: unknown, context: ClickHouseErrorContext = {}): ConnectError {
  if (error instanceof ConnectError) return error;
  if (context.aborted === "deadline") return withCode(Code.DeadlineExceeded, error);
  if (context.aborted === "caller") return withCode(Code.Canceled, error);

  const type = clickHouseErrorType(error);
  if (type !== undefined) {
    if (type === "CANNOT_COMPILE_REGEXP" && context.regexpParameter !== undefined) {
      const field = context.regexpParameter;
      return invalidArgument([{ field, description: `${field} is not a valid RE2 regular expression` }], error);
    }
    return withCode(codeByClickHouseType[type] ?? Code.Internal, error);
  }
  if (isUnreachable(error)) return withCode(Code.Unavailable, error);
  return withCode(Code.Internal, error);
}

function withCode(code: Code, cause: unknown): ConnectError {
  const error = new ConnectError(messages[code] ?? "internal error", code, undefined, undefined, cause);
  if (code === Code.Unavailable) error.metadata.set("retry-after", String(unavailableRetryAfterSeconds));
  return error;
}

/** UNAVAILABLE without trying the warehouse, while it is known to be unreachable. */
export function unavailableError(): ConnectError {
  return withCode(Code.Unavailable, undefined);
}

/** What an UNAVAILABLE answer tells the caller to wait before trying again. */
export const unavailableRetryAfterSeconds = 2;

/**
 * The ClickHouse error type (e.g. `TIMEOUT_EXCEEDED`) of an error the
 * warehouse raised. Read by shape, not by class: the embedded connection
 * throws ClickHouseError from its own copy of @clickhouse/client-common.
 */
function clickHouseErrorType(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, type } = error as { code?: unknown; type?: unknown };
  if (typeof code !== "string" || !/^\d+$/.test(code)) return undefined;
  return typeof type === "string" ? type : "UNKNOWN";
}

function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && unreachableCodes.has(code)) return true;
  if (error.name === "ChdbConnectionError") return true;
  // clickhouse-js: "Timeout error." when the server never answered, "socket hang up" when it went away.
  return /^Timeout error|socket hang up/i.test(error.message);
}
