// The bound of one reflection stream: a token of the caller's bucket per message after the first, and a number of
// messages, so a long stream costs what as many calls would.
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { callOf } from "../rpc/index.js";

/** Takes one token of the reflection bucket of `address`; throws RESOURCE_EXHAUSTED when it is empty. */
export type ReflectionTokenTaker = (address: string) => void;

export interface ReflectionStreamLimit {
  /** Request messages one stream may send. Default 100. */
  maxMessages?: number;
  /** Takes a token for each request message after the first. Default: none taken. */
  takeToken?: ReflectionTokenTaker;
}

/** The default bound of messages per stream, for the docs. */
export const defaultReflectionMessagesPerStream = 100;

/** The requests of one stream, ended with RESOURCE_EXHAUSTED when the stream is past its bound. */
export async function* boundedRequests<T>(
  requests: AsyncIterable<T>,
  context: HandlerContext,
  limit: ReflectionStreamLimit,
): AsyncIterable<T> {
  const maxMessages = limit.maxMessages ?? defaultReflectionMessagesPerStream;
  const address = callOf(context.values)?.client ?? "";
  let seen = 0;
  for await (const request of requests) {
    seen += 1;
    if (seen > maxMessages) {
      throw new ConnectError(
        `a reflection stream takes at most ${maxMessages} requests, open another`,
        Code.ResourceExhausted,
      );
    }
    if (seen > 1) limit.takeToken?.(address);
    yield request;
  }
}
