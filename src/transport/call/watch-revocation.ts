// Watch streams end when their credential may no longer open them: a token's expiry, a key the key file drops
// (UNAUTHENTICATED), or narrows so that the stream's call would change (PERMISSION_DENIED).
import { Code, ConnectError } from "@connectrpc/connect";
import { type Credential, expiryOf } from "../../auth/index.js";
import { type Clock, systemClock } from "../../observability/index.js";

/** The key file's keys, as the watch streams need them. */
export interface RevocableKeys {
  /** The credential the key file gives `secret` now; undefined when it holds it no more. */
  credentialOf(secret: string): Credential | undefined;
  /** Calls `listener` after each change of the keys in force; returns its removal. */
  onChange(listener: () => void): () => void;
}

/** What a stream is followed by: its caller's credential and secret, and how to check its call again. */
export interface WatchAccess {
  credential: Credential;
  secret: string | undefined;
  /** Throws (PERMISSION_DENIED) when `credential` may not run the stream's call as it runs. */
  recheck(credential: Credential): void;
}

export interface WatchRevocation {
  /** A signal aborted with the reason once `access` no longer holds, and the stop of that following. */
  follow(access: WatchAccess): { signal?: AbortSignal; stop(): void };
  /** Stops following the key file. */
  close(): void;
}

/** The longest delay a Node timer keeps (a longer one fires at once). */
const maxTimerMs = 2 ** 31 - 1;

const noFollow = { stop() {} };

export function createWatchRevocation(keys?: RevocableKeys, clock: Clock = systemClock): WatchRevocation {
  const followed = new Map<AbortController, WatchAccess & { secret: string }>();
  const removeListener = keys?.onChange(() => {
    for (const [controller, access] of followed) {
      const credential = keys.credentialOf(access.secret);
      if (credential === undefined) {
        end(controller, new ConnectError("the API key was revoked", Code.Unauthenticated));
        continue;
      }
      try {
        access.recheck(credential);
      } catch (error) {
        end(controller, ConnectError.from(error));
      }
    }
  });
  const end = (controller: AbortController, reason: ConnectError) => {
    followed.delete(controller);
    controller.abort(reason);
  };
  return {
    follow(access) {
      const { secret, credential } = access;
      const fromFile = secret !== undefined && keys?.credentialOf(secret) !== undefined;
      const expiry = expiryOf(credential);
      const expiresInMs = expiry === undefined ? undefined : expiry - clock();
      if (!fromFile && (expiresInMs === undefined || expiresInMs > maxTimerMs)) return noFollow;
      const controller = new AbortController();
      if (fromFile) followed.set(controller, { ...access, secret });
      const timer =
        expiresInMs === undefined || expiresInMs > maxTimerMs
          ? undefined
          : setTimeout(() => end(controller, new ConnectError("the token expired", Code.Unauthenticated)), expiresInMs);
      timer?.unref();
      return {
        signal: controller.signal,
        stop: () => {
          clearTimeout(timer);
          followed.delete(controller);
        },
      };
    },
    close() {
      removeListener?.();
      followed.clear();
    },
  };
}
