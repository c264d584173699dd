// The call-log record of a saved query's call refused by its caller's rate limit (the only refusal naming a caller).
import { ConnectError } from "@connectrpc/connect";
import { rateLimitedCallerOf } from "../../auth/index.js";
import type { CallProtocol } from "../../warehouse/index.js";
import type { Call } from "./call.js";
import type { RecordCall } from "./call-record.js";
import { codeName } from "./http-status.js";

/** What a refused call was: its saved query's name (when known) and protocol. */
export interface RefusedCall {
  endpoint: string | undefined;
  protocol: CallProtocol;
}

/** Records `call` of `refused`'s saved query refused with `error`, when a rate limit refused a known caller. */
export function recordRateLimited(
  record: RecordCall | undefined,
  call: Call,
  { endpoint, protocol }: RefusedCall,
  error: unknown,
): void {
  if (record === undefined || endpoint === undefined) return;
  const credential = rateLimitedCallerOf(error);
  if (credential === undefined) return;
  // Refused from its headers: its answer is begun now, unless a step before began it.
  const started = call.started === 0 ? performance.now() : call.started;
  const code = codeName(ConnectError.from(error).code);
  record(
    { requestId: call.requestId, credential, started },
    { endpoint, protocol, code, result: undefined, responseBytes: 0, cache: "none" },
  );
}
