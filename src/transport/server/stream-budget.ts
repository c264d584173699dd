// The HTTP/2 streams open at once on all the sessions of one client address
// together: a stream past the budget is refused (REFUSED_STREAM, which tells
// its client it was not processed) before any handler sees it, while every
// session keeps the concurrent streams the server's settings announce, so a
// client within the budget never sees a refused stream (docs/reliability.md).
import { constants as http2Constants, type Http2Server, type Http2Session, type ServerHttp2Stream } from "node:http2";
import type { Logger } from "../../observability/index.js";
import type { TrustedProxies } from "../node-http/client-address.js";
import { sessionAddress } from "../node-http/index.js";

export interface StreamBudgetOptions {
  /** Streams open at once on all the sessions of one address together. */
  maxStreamsPerAddress: number;
  /** Proxies that carry many clients' connections: their sessions are bound only by their own settings. */
  trustedProxies: TrustedProxies | undefined;
  /** Where refused streams are summed up. */
  logger: Logger;
}

/** The streams open on the sessions of one address. */
export interface AddressStreams {
  /** Counts a new stream as open; false, counting nothing, when the address already holds its budget open. */
  opened(): boolean;
  /** Counts a stream that `opened` took as closed. */
  closed(): void;
}

export interface StreamBudget {
  /** The open streams of `session`'s address, counted from its "session" event, which comes before any of its streams. */
  of(session: Http2Session): AddressStreams;
  /** Resets `stream`, which its address's budget did not take, with REFUSED_STREAM; summed up in one log line a second at most. */
  refuse(stream: ServerHttp2Stream): void;
}

/** The open streams of one address and the sessions that share them. */
interface AddressTally extends AddressStreams {
  open: number;
  sessions: number;
}

const unbounded: AddressStreams = { opened: () => true, closed: () => {} };

/** Counts the open streams of each client address of `http2`'s sessions against its budget. */
export function budgetStreams(http2: Http2Server, options: StreamBudgetOptions): StreamBudget {
  const { maxStreamsPerAddress, trustedProxies, logger } = options;
  const tallies = new Map<string, AddressTally>();
  // Only at zero, and only the address's current tally: a later session of the address may have made a new one.
  const forget = (address: string, tally: AddressTally) => {
    if (tally.open === 0 && tally.sessions === 0 && tallies.get(address) === tally) tallies.delete(address);
  };
  const ofSession = new WeakMap<Http2Session, AddressStreams>();
  const tallyOf = (address: string): AddressTally => {
    const tally: AddressTally = {
      open: 0,
      sessions: 0,
      opened() {
        if (tally.open >= maxStreamsPerAddress) return false;
        tally.open += 1;
        return true;
      },
      closed() {
        tally.open -= 1;
        if (tally.open === 0) forget(address, tally);
      },
    };
    tallies.set(address, tally);
    return tally;
  };
  http2.on("session", (session) => {
    const address = sessionAddress(session);
    if (trustedProxies?.has(address) === true) {
      ofSession.set(session, unbounded);
      return;
    }
    const tally = tallies.get(address) ?? tallyOf(address);
    tally.sessions += 1;
    ofSession.set(session, tally);
    session.once("close", () => {
      tally.sessions -= 1;
      forget(address, tally);
    });
  });
  let refused = 0;
  return {
    of: (session) => ofSession.get(session)!,
    refuse(stream) {
      // Node fails a stream reset with REFUSED_STREAM with an error nobody else listens for.
      stream.on("error", ignore);
      stream.close(http2Constants.NGHTTP2_REFUSED_STREAM);
      if (refused++ === 0) {
        setTimeout(() => {
          logger.warn("streams refused: one address holds its budget of open streams", {
            refused,
            maxStreamsPerAddress,
          });
          refused = 0;
        }, 1000).unref();
      }
    },
  };
}

function ignore(): void {}
