// The HTTP/2 streams open at once on all the sessions of one client address
// (IPv6 by its /64, network/address-key.ts) together. Once the address holds its budget open, each of its sessions is
// announced (SETTINGS) the streams it holds as its concurrent streams, so that
// nghttp2 refuses further ones (REFUSED_STREAM, which tells its client it was
// not processed) before Node builds anything; the announcement is raised back
// once the address is well under its budget. Streams sent before a client
// applies the lowered SETTINGS are counted and refused here, before any
// handler sees them (docs/reliability.md).
import { constants as http2Constants, type Http2Server, type Http2Session, type ServerHttp2Stream } from "node:http2";
import { addressKey } from "../../network/index.js";
import type { Logger } from "../../observability/index.js";
import type { TrustedProxies } from "../node-http/client-address.js";
import { sessionAddress } from "../node-http/index.js";

export interface StreamBudgetOptions {
  /** Streams open at once on all the sessions of one address together. */
  maxStreamsPerAddress: number;
  /** The concurrent streams the server's settings announce to each session, announced again when raised back. */
  maxConcurrentStreams: number;
  /** Proxies that carry many clients' connections: their sessions are bound only by their own settings. */
  trustedProxies: TrustedProxies | undefined;
  /** Where refused streams are summed up. */
  logger: Logger;
}

/** The open streams of one session, counted with those of the other sessions of its address. */
export interface AddressStreams {
  /** Counts a new stream as open; false, counting nothing, when the address already holds its budget open. */
  opened(): boolean;
  /** Counts a stream that `opened` took as closed. */
  closed(): void;
}

/** The open streams of one address, the open streams of each of its sessions, and whether they are announced lowered. */
interface AddressTally {
  open: number;
  sessions: Map<Http2Session, { open: number }>;
  lowered: boolean;
}

/** Share of the budget the address must fall under before its sessions are raised back: SETTINGS frames do not storm. */
const raiseBelow = 0.9;

const unbounded: AddressStreams = { opened: () => true, closed: () => {} };

/**
 * Counts the open streams of each client address of `http2`'s sessions
 * against its budget: `of(session)` from its "session" event, which comes
 * before any of its streams; `refuse` resets a stream the budget did not take
 * with REFUSED_STREAM, summed up in one log line a second at most.
 */
export function budgetStreams(http2: Http2Server, options: StreamBudgetOptions) {
  const { maxStreamsPerAddress, maxConcurrentStreams, trustedProxies, logger } = options;
  const tallies = new Map<string, AddressTally>();
  // Only at zero, and only the address's current tally: a later session of the address may have made a new one.
  const forget = (address: string, tally: AddressTally) => {
    if (tally.open === 0 && tally.sessions.size === 0 && tallies.get(address) === tally) tallies.delete(address);
  };
  const lower = (tally: AddressTally) => {
    tally.lowered = true;
    for (const [session, own] of tally.sessions) announce(session, own.open);
  };
  const raise = (tally: AddressTally) => {
    tally.lowered = false;
    for (const session of tally.sessions.keys()) announce(session, maxConcurrentStreams);
  };
  const ofSession = new WeakMap<Http2Session, AddressStreams>();
  http2.on("session", (session) => {
    const peer = sessionAddress(session);
    if (trustedProxies?.has(peer) === true) {
      ofSession.set(session, unbounded);
      return;
    }
    const address = addressKey(peer);
    let tally = tallies.get(address);
    if (tally === undefined) {
      tally = { open: 0, sessions: new Map(), lowered: false };
      tallies.set(address, tally);
    }
    const own = { open: 0 };
    tally.sessions.set(session, own);
    // A new session of an address at its budget may open none until the address is raised back.
    if (tally.lowered) announce(session, 0);
    const counted = tally;
    ofSession.set(session, {
      opened() {
        if (counted.open >= maxStreamsPerAddress) return false;
        counted.open += 1;
        own.open += 1;
        if (counted.open >= maxStreamsPerAddress && !counted.lowered) lower(counted);
        return true;
      },
      closed() {
        counted.open -= 1;
        own.open -= 1;
        if (counted.lowered && counted.open < maxStreamsPerAddress * raiseBelow) raise(counted);
        if (counted.open === 0) forget(address, counted);
      },
    });
    session.once("close", () => {
      counted.sessions.delete(session);
      forget(address, counted);
    });
  });
  let refused = 0;
  return {
    of: (session: Http2Session) => ofSession.get(session)!,
    refuse(stream: ServerHttp2Stream): void {
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

/** Announces `streams` concurrent streams to `session`: nghttp2 refuses those past it from the moment it is sent. */
function announce(session: Http2Session, streams: number): void {
  if (session.destroyed || session.closed) return;
  try {
    session.settings({ maxConcurrentStreams: streams });
  } catch {
    // A client that leaves too many SETTINGS unacknowledged keeps its last announcement: the count above still holds.
  }
}

function ignore(): void {}
