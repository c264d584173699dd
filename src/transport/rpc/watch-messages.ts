// One watch session as the async generator of a server-streaming handler:
// results are taken as the router's writer pulls them, so a slow reader
// holds the hub back (it then keeps only the newest result), and the stream
// ends with the session's error (the call's deadline or cancellation among
// them, through the session's signal).
import { ConnectError } from "@connectrpc/connect";
import type { EndpointResult } from "../../endpoints/index.js";
import type { OpenWatch, WatchOpening } from "../node-http/index.js";

/** What a router's watch opens a session with: all but the writer, and the bytes written so far. */
export type RouterWatchOpening = Omit<WatchOpening, "writer"> & { bytes(): number };

/**
 * The results of the session `openWatch` opens, until it ends (its error is
 * thrown after the result already taken). Leaving the loop early ends the
 * session as the client leaving.
 */
export async function* watchMessages(
  openWatch: OpenWatch,
  opening: RouterWatchOpening,
): AsyncGenerator<EndpointResult> {
  let held: EndpointResult | undefined;
  let ended: ConnectError | "left" | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const session = openWatch({
    ...opening,
    writer: {
      result(result) {
        held = result;
        notify();
        // Full until the writer takes this one: the hub holds (and conflates) what comes meanwhile.
        return false;
      },
      end(error) {
        ended = error ?? "left";
        notify();
      },
      bytes: opening.bytes,
    },
  });
  try {
    for (;;) {
      if (held !== undefined) {
        const result = held;
        held = undefined;
        session.drained();
        yield result;
        continue;
      }
      if (ended instanceof ConnectError) throw ended;
      if (ended === "left") return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    session.end();
  }
}
