// A small reader of Server-Sent Events from a fetch body (the HTML standard's
// parsing of `event:`, `id:` and `data:` lines; comments and retry ignored).
// The explorer reads its streams with fetch because EventSource cannot send
// the key's header (docs/http-api.md, Event streams).

/** One dispatched event: its type (`message` when unnamed), last id and data lines joined by newlines. */
export interface ServerSentEvent {
  event: string;
  id: string;
  data: string;
}

/** The events of `body` as they arrive; ends when the body ends or its reader is cancelled. */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  let event = "";
  let id = "";
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      // A closing \r may be the first half of \r\n: it waits for the next chunk.
      const cut = buffered.endsWith("\r") ? buffered.length - 1 : buffered.length;
      const lines = buffered.slice(0, cut).split(/\r\n|\r|\n/);
      // The last piece may be a line still arriving.
      buffered = (lines.pop() ?? "") + buffered.slice(cut);
      for (const line of lines) {
        if (line === "") {
          if (data.length > 0) yield { event: event === "" ? "message" : event, id, data: data.join("\n") };
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = text;
        else if (field === "data") data.push(text);
        else if (field === "id" && !text.includes("\0")) id = text;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
