// Delivery to one watcher with conflation: a result is written at once while
// the watcher's writer has room; once it is full (its listener said false)
// only the newest undelivered result is held for it until it drains, and a
// result with the rows last delivered is never delivered again.
import type { ConnectError } from "@connectrpc/connect";
import type { EndpointResult } from "./call-types.js";

/**
 * What a transport hands the hub for one stream. The hub calls `next` with
 * each message and `end` once, last; never `next` after `end`.
 */
export interface WatchListener {
  /**
   * Writes one message. Returns false when the writer is full: the hub then
   * holds only the newest later message for this watcher, and sends it when
   * the transport calls `WatchStream.drained()`. Must not throw.
   */
  next(result: EndpointResult): boolean | undefined;
  /**
   * The stream is over, by the hub: UNAVAILABLE at shutdown (hub.close), or
   * the error of its first result (INVALID_ARGUMENT of a page token, a
   * warehouse failure). Not called when the transport closed the stream.
   */
  end(error: ConnectError): void;
}

/** A watcher's side of delivery, which the hub drives. */
export class Delivery {
  private lastTag: string | undefined;
  private pending: EndpointResult | undefined;
  private full = false;
  private ended = false;

  constructor(private readonly listener: WatchListener) {}

  /** Whether anything was delivered or is held. */
  get started(): boolean {
    return this.lastTag !== undefined || this.pending !== undefined;
  }

  /** Offers a whole result: delivered, held as the newest, or dropped when its rows are those last delivered. */
  offerResult(result: EndpointResult): void {
    if (this.ended) return;
    const tag = result.rowsTag();
    if (tag === this.lastTag) {
      this.pending = undefined;
      return;
    }
    if (this.full) this.pending = result;
    else this.deliver(result, tag);
  }

  /** Offers a message of new rows only (a tail): held messages are merged by `merge`, never dropped. */
  offerRows(result: EndpointResult, merge: (held: EndpointResult, next: EndpointResult) => EndpointResult): void {
    if (this.ended) return;
    if (this.full) this.pending = this.pending === undefined ? result : merge(this.pending, result);
    else this.deliver(result, result.rowsTag());
  }

  /** The writer has room again: the held message, if any, goes now. */
  drained(): void {
    this.full = false;
    const held = this.pending;
    if (held === undefined || this.ended) return;
    this.pending = undefined;
    this.deliver(held, held.rowsTag());
  }

  /** Ends the stream with `error` (once); the held message is dropped. */
  end(error: ConnectError): void {
    if (this.ended) return;
    this.stop();
    this.listener.end(error);
  }

  /** Stops delivering without telling the listener (the transport closed the stream). */
  stop(): void {
    this.ended = true;
    this.pending = undefined;
  }

  private deliver(result: EndpointResult, tag: string) {
    this.lastTag = tag;
    this.full = this.listener.next(result) === false;
  }
}
