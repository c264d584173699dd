// Admission of watch streams: how many may be open at once in all, per
// caller and per client address (IPv6 by its /64, network/address-key.ts);
// one past a bound is refused with
// RESOURCE_EXHAUSTED naming it, before anything is computed.
import { Code, ConnectError } from "@connectrpc/connect";
import { addressKey } from "../network/index.js";

/** The bounds' defaults (MAX_WATCH_STREAMS, MAX_WATCH_STREAMS_PER_CALLER, MAX_WATCH_STREAMS_PER_ADDRESS). */
export const defaultWatchBounds: WatchBoundValues = { maxStreams: 10_000, perCaller: 100, perAddress: 100 };

export interface WatchBoundValues {
  /** Streams open at once in all. */
  maxStreams: number;
  /** Streams open at once for one caller (a credential id; "" is the keyless caller). */
  perCaller: number;
  /** Streams open at once from one client address (IPv6 by its /64). */
  perAddress: number;
}

/** Who opens a stream, for its bounds. */
export interface WatchOpener {
  tenant?: string;
  /** The client's address; without one only the other bounds apply. */
  address?: string;
}

export interface WatchBounds {
  /** Counts a stream in; returns its release (idempotent). Throws RESOURCE_EXHAUSTED past a bound. */
  admit(opener: WatchOpener): () => void;
  /** Streams open now. */
  readonly open: number;
}

export function createWatchBounds(values: WatchBoundValues = defaultWatchBounds): WatchBounds {
  const byCaller = new Map<string, number>();
  const byAddress = new Map<string, number>();
  let open = 0;

  return {
    get open() {
      return open;
    },
    admit({ tenant = "", address: client }) {
      const address = client === undefined ? undefined : addressKey(client);
      if (open >= values.maxStreams) throw exhausted("MAX_WATCH_STREAMS", values.maxStreams);
      if ((byCaller.get(tenant) ?? 0) >= values.perCaller)
        throw exhausted("MAX_WATCH_STREAMS_PER_CALLER", values.perCaller);
      if (address !== undefined && (byAddress.get(address) ?? 0) >= values.perAddress)
        throw exhausted("MAX_WATCH_STREAMS_PER_ADDRESS", values.perAddress);
      open += 1;
      add(byCaller, tenant, 1);
      if (address !== undefined) add(byAddress, address, 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        open -= 1;
        add(byCaller, tenant, -1);
        if (address !== undefined) add(byAddress, address, -1);
      };
    },
  };
}

function add(counts: Map<string, number>, key: string, by: number) {
  const count = (counts.get(key) ?? 0) + by;
  if (count === 0) counts.delete(key);
  else counts.set(key, count);
}

function exhausted(bound: string, value: number): ConnectError {
  return new ConnectError(`too many watch streams: ${bound} is ${value}`, Code.ResourceExhausted);
}
