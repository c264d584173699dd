// Response bytes written but not yet sent, per connection and per client
// address: a client that stops reading (an HTTP/2 window held at 0, a TCP
// receive buffer left full) would otherwise keep every response it asked for
// in memory. A sender whose queued bytes do not go down for `stallTimeoutMs`
// is stopped, and so is one whose write takes its connection's or address's
// queued bytes past a bound. Each sender holds the tallies of its connection
// and address, so a write counts without a lookup; a tally stays while it may
// be used again, since a Map entry added and deleted on every call costs more
// than the count (collections/linked-list.ts says why).
import { addressKey } from "../network/index.js";
import type { Clock } from "../observability/index.js";
import { type Link, LinkedList, unlisted } from "../collections/index.js";

export interface UnsentBytesOptions {
  /** A sender with bytes queued, none of which went out for this long, is stopped. Default 30 000 ms. */
  stallTimeoutMs?: number;
  /** Bytes queued on one connection, all its senders together. Default 4 MiB. */
  maxPerConnection?: number;
  /** Bytes queued on all connections of one client address (IPv6 by its /64). Default 16 MiB. */
  maxPerAddress?: number;
  /** Addresses only `maxPerConnection` bounds (trusted proxies, which carry many clients). Default: none. */
  unboundedAddress?: (address: string) => boolean;
  /** Default: `performance.now`. */
  clock?: Clock;
  /** Told each time a sender is stopped, and why. Default: nothing. */
  onStopped?: (reason: StopReason) => void;
}

/** Why a sender was stopped. */
export type StopReason = "stalled" | "connection bound" | "address bound";

/** Something that queues response bytes: an HTTP/2 stream or an HTTP/1.1 connection. */
export interface Sender {
  /** Bytes written to it and not yet sent. */
  queued(): number;
  /** Ends it now (RST_STREAM, or the connection closed). */
  stop(reason: StopReason): void;
  /** Ends its whole connection: a sender stopped a stall timeout ago is still there. */
  destroy(): void;
}

export interface WatchedSender {
  /** Whether it was stopped as soon as it was watched (a bound already full): its request need not be handled. */
  readonly refused: boolean;
  /** Call after each write: counts the new bytes; false when they passed a bound and the sender was stopped. */
  written(): boolean;
  /** Call when the sender is gone: its bytes are no longer counted. */
  end(): void;
}

export interface UnsentBytes {
  /** Starts counting `sender`'s bytes against `connection` (any object standing for it) and `address`. */
  watch(sender: Sender, connection: object, address: string): WatchedSender;
  /** Looks at every sender for progress; stops the stalled ones. Run every second by the server. */
  sweep(): void;
  /** Bytes counted now, for one connection or one address (its /64 for IPv6). */
  queuedOn(key: object | string): number;
}

/** Bytes counted now for one connection or one address, and how many senders count in it. */
interface Tally {
  bytes: number;
  senders: number;
}

interface Entry {
  sender: Sender;
  onConnection: Tally;
  onAddress: Tally;
  /** Whether its address's bound applies (not to trusted proxies). */
  addressBounded: boolean;
  /** Bytes last counted for it. */
  counted: number;
  /** When its queued bytes last went down, or were last found 0. */
  progressAt: number;
  stoppedAt?: number;
  link: Link<Entry>;
}

/** The defaults of the bounds, for the table of variables. */
export const defaultUnsentBytes = {
  stallTimeoutMs: 30_000,
  maxPerConnection: 4 * 1024 * 1024,
  maxPerAddress: 16 * 1024 * 1024,
} as const;

/** Whether `total` is past `max` (or at it, when `atBound`). */
function past(total: number, max: number, atBound: boolean): boolean {
  return atBound ? total >= max : total > max;
}

export function createUnsentBytes(options: UnsentBytesOptions = {}): UnsentBytes {
  const stallTimeoutMs = options.stallTimeoutMs ?? defaultUnsentBytes.stallTimeoutMs;
  const maxPerConnection = options.maxPerConnection ?? defaultUnsentBytes.maxPerConnection;
  const maxPerAddress = options.maxPerAddress ?? defaultUnsentBytes.maxPerAddress;
  const unbounded = options.unboundedAddress ?? (() => false);
  const clock = options.clock ?? (() => performance.now());
  // A list, not a Set: collections/linked-list.ts says why.
  const entries = new LinkedList<Entry>();
  const connections = new WeakMap<object, Tally>();
  const addresses = new Map<string, Tally>();

  /** The tally of `key` in `tallies`, made when there is none, with one more sender counting in it. */
  const join = <K>(tallies: { get(key: K): Tally | undefined; set(key: K, tally: Tally): unknown }, key: K) => {
    let tally = tallies.get(key);
    if (tally === undefined) tallies.set(key, (tally = { bytes: 0, senders: 0 }));
    tally.senders += 1;
    return tally;
  };
  /** Counts what `entry` holds now; true when its queued bytes went down. */
  const recount = (entry: Entry) => {
    const queued = entry.sender.queued();
    const delta = queued - entry.counted;
    if (delta !== 0) {
      entry.onConnection.bytes += delta;
      entry.onAddress.bytes += delta;
      entry.counted = queued;
    }
    return delta < 0 || queued === 0;
  };
  const forget = (entry: Entry) => {
    if (!entries.remove(entry.link)) return;
    entry.onConnection.bytes -= entry.counted;
    entry.onConnection.senders -= 1;
    entry.onAddress.bytes -= entry.counted;
    entry.onAddress.senders -= 1;
  };
  const stop = (entry: Entry, reason: StopReason) => {
    entry.stoppedAt = clock();
    entry.sender.stop(reason);
    options.onStopped?.(reason);
  };

  /** The bound `entry`'s connection or address is past (or at, when `atBound`), if any. */
  const overBound = (entry: Entry, atBound: boolean): StopReason | undefined => {
    if (past(entry.onConnection.bytes, maxPerConnection, atBound)) return "connection bound";
    if (entry.addressBounded && past(entry.onAddress.bytes, maxPerAddress, atBound)) return "address bound";
    return undefined;
  };

  return {
    watch(sender, connection, address) {
      const entry: Entry = {
        sender,
        onConnection: join(connections, connection),
        onAddress: join(addresses, addressKey(address)),
        // Asked once per sender, not per write: a proxy list lookup costs more than the write's count.
        addressBounded: !unbounded(address),
        counted: 0,
        progressAt: clock(),
        link: unlisted,
      };
      entry.link = entries.push(entry);
      // A new response where the bytes already queued fill a bound is stopped before it is built.
      const full = overBound(entry, true);
      if (full !== undefined) stop(entry, full);
      return {
        refused: full !== undefined,
        written() {
          // A write after its sender was forgotten (its bytes no longer counted) is not counted again.
          if (!entry.link.listed) return true;
          if (entry.stoppedAt !== undefined) return false;
          const before = entry.counted;
          // Bytes that went out, or the first bytes queued: the stall clock starts again.
          if (recount(entry) || before === 0) entry.progressAt = clock();
          const over = overBound(entry, false);
          if (over === undefined) return true;
          stop(entry, over);
          return false;
        },
        end: () => forget(entry),
      };
    },
    sweep() {
      const now = clock();
      for (const { item: entry } of entries) {
        if (entry.stoppedAt !== undefined) {
          // Stopped but not gone (a reset the client never reads): the connection goes.
          if (now - entry.stoppedAt >= stallTimeoutMs) {
            forget(entry);
            entry.sender.destroy();
          }
          continue;
        }
        if (recount(entry)) entry.progressAt = now;
        else if (now - entry.progressAt >= stallTimeoutMs) stop(entry, "stalled");
      }
      for (const [address, tally] of addresses) if (tally.senders === 0) addresses.delete(address);
    },
    queuedOn: (key) => (typeof key === "string" ? addresses.get(addressKey(key)) : connections.get(key))?.bytes ?? 0,
  };
}
