// One watch stream as the async generator of a server-streaming handler: the
// hub's messages are taken as the handler's writer pulls them, so a slow
// reader holds the hub back (it then keeps only the newest result), and the
// stream ends with the hub's error, or with the signal's reason (deadline,
// cancellation, a revoked key).
import { ConnectError } from "@connectrpc/connect";
import type { EndpointResult, WatchListener, WatchStream } from "../../endpoints/index.js";

/**
 * The messages of the stream `open` starts with the listener it is given,
 * until the hub ends it (its error is thrown after the message already
 * taken) or `signal` aborts (its reason is thrown). Leaving the loop early
 * closes the stream.
 */
export async function* watchMessages(
  open: (listener: WatchListener) => WatchStream,
  signal: AbortSignal,
): AsyncGenerator<EndpointResult> {
  let held: EndpointResult | undefined;
  let ended: ConnectError | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const stream = open({
    next(result) {
      held = result;
      notify();
      // Full until the writer takes this one: the hub holds (and conflates) what comes meanwhile, never overwritten here.
      return false;
    },
    end(error) {
      ended = error;
      notify();
    },
  });
  signal.addEventListener("abort", notify);
  try {
    for (;;) {
      if (held !== undefined) {
        const result = held;
        held = undefined;
        stream.drained();
        yield result;
        continue;
      }
      if (ended !== undefined) throw ended;
      if (signal.aborted) throw ConnectError.from(signal.reason);
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    signal.removeEventListener("abort", notify);
    if (ended === undefined) stream.close();
  }
}
