// The CallContext of a GET call, read from its Call: who calls, with which
// request id and freshness, and an abort signal made only when the warehouse
// is asked.
import type { CallContext, Freshness } from "../../endpoints/index.js";
import type { AuthenticatedCall } from "../node-http/index.js";

/** The context of a GET call; its abort signal is made only if the warehouse asks for it. */
export class GetCallContext implements CallContext {
  private abort: AbortController | undefined;
  constructor(
    private readonly call: AuthenticatedCall,
    readonly timeoutMs: number,
    readonly freshness: Freshness | undefined,
  ) {}
  get requestId(): string {
    return this.call.requestId;
  }
  get tenant(): string {
    return this.call.credential.id;
  }
  get signal(): AbortSignal {
    if (this.abort === undefined) {
      const abort = (this.abort = new AbortController());
      const [, response] = this.call.exchange();
      // Only a client that leaves before the answer cancels the call.
      response.once("close", () => {
        if (!response.writableFinished) abort.abort();
      });
    }
    return this.abort.signal;
  }
}
