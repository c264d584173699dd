// The idle bounds of HTTP/2 sessions: one that sends no request within the
// first-request timeout of its start, or has no stream open for the idle
// timeout, is closed, GOAWAY first so a well-behaved client opens a new
// connection, then the socket shortly after.
import type { Http2Server, Http2Session } from "node:http2";

export interface SessionIdleOptions {
  /** A new session must open its first stream within this. */
  firstRequestTimeoutMs: number;
  /** A session with no stream open for this long is closed. */
  idleTimeoutMs: number;
}

/** What the idle bounds of a session are told of its streams. */
export interface SessionIdle {
  streamOpened(): void;
  streamClosed(): void;
}

/** Watches every session of `http2` for its idle bounds: `of(session)` from its "session" event; `sessions` the open ones. */
export function idleSessions(http2: Http2Server, options: SessionIdleOptions) {
  const watched = new Map<Http2Session, SessionIdle>();
  http2.on("session", (session) => {
    watched.set(session, watchSession(session, options));
    session.once("close", () => watched.delete(session));
  });
  return {
    of: (session: Http2Session) => watched.get(session)!,
    sessions: () => watched.keys(),
  };
}

/**
 * Closes `session` past its first-request or idle timeout. The idle timer is made once per session and started
 * again (refresh) each time its last stream closes, not made afresh for every call.
 */
function watchSession(session: Http2Session, options: SessionIdleOptions): SessionIdle {
  let open = 0;
  const closeSession = () => {
    // A stream opened since the timer was started: it starts again when the last one closes.
    if (session.destroyed || open > 0) return;
    session.close(); // GOAWAY
    setTimeout(() => session.destroy(), 1_000).unref();
  };
  let firstRequest: NodeJS.Timeout | undefined = setTimeout(closeSession, options.firstRequestTimeoutMs).unref();
  let idle: NodeJS.Timeout | undefined;
  session.once("close", () => {
    clearTimeout(firstRequest);
    clearTimeout(idle);
  });
  return {
    streamOpened() {
      open += 1;
      if (firstRequest !== undefined) {
        clearTimeout(firstRequest);
        firstRequest = undefined;
      }
    },
    streamClosed() {
      open -= 1;
      if (open > 0) return;
      if (idle === undefined) idle = setTimeout(closeSession, options.idleTimeoutMs).unref();
      else idle.refresh();
    },
  };
}
