// Watch streams opened with a key of the key file, on every transport (RPC
// watch methods, Server-Sent Events): each time the file's keys change, a
// stream whose key the file no longer holds ends UNAUTHENTICATED, so a
// revoked key's streams stop within the file's poll period.
import { Code, ConnectError } from "@connectrpc/connect";

/** The key file's keys, as the watch streams need them. */
export interface RevocableKeys {
  /** Whether the key file holds `secret` now. */
  holds(secret: string): boolean;
  /** Calls `listener` after each change of the keys in force; returns its removal. */
  onChange(listener: () => void): () => void;
}

export interface WatchRevocation {
  /**
   * A signal aborted (with UNAUTHENTICATED) once the key file no longer
   * holds `secret`, and the stop of that watch; a secret the file does not
   * hold now (a full-access key, a token) is not followed.
   */
  follow(secret: string | undefined): { signal?: AbortSignal; stop(): void };
  /** Stops following the key file. */
  close(): void;
}

const noFollow = { stop() {} };

export function createWatchRevocation(keys?: RevocableKeys): WatchRevocation {
  if (keys === undefined) return { follow: () => noFollow, close() {} };
  const followed = new Map<AbortController, string>();
  const removeListener = keys.onChange(() => {
    for (const [controller, secret] of followed) {
      if (keys.holds(secret)) continue;
      followed.delete(controller);
      controller.abort(new ConnectError("the API key was revoked", Code.Unauthenticated));
    }
  });
  return {
    follow(secret) {
      if (secret === undefined || !keys.holds(secret)) return noFollow;
      const controller = new AbortController();
      followed.set(controller, secret);
      return { signal: controller.signal, stop: () => followed.delete(controller) };
    },
    close() {
      removeListener();
      followed.clear();
    },
  };
}
