// The "Live" switch: while on, the chosen call's results arrive over its
// watch stream (live-stream.ts) and replace the shown rows; for logs.all,
// whose stream is a tail, each later message holds only new rows, which go
// on top of the table (newest first, at most MAX_LIVE_ROWS kept). Turning it
// off, or any change to the call, aborts the stream; its state and errors
// are said in the page's status area.
import type { Row } from "./calls.js";
import type { ListedEndpoint } from "./listing.js";
import { LiveError, watchEndpoint } from "./live-stream.js";
import type { TransportName } from "./view-address.js";

/** Rows kept while a tail adds to the table; the oldest go first. */
export const MAX_LIVE_ROWS = 1_000;

export interface LiveSwitchOptions {
  checkbox: HTMLInputElement;
  /** The call as the form now describes it. */
  call(): {
    endpoint: ListedEndpoint | undefined;
    parameters: Record<string, string>;
    transport: TransportName;
    key: string;
  };
  say(text: string, state: "idle" | "busy" | "ok" | "error"): void;
  /** Shows a whole result of `endpoint`, with its next older page's token when it has one. */
  replace(endpoint: string, rows: Row[], nextPageToken?: string): void;
  /** Puts rows newer than any shown on top: given oldest first, shown newest first. */
  prepend(rows: Row[], limit: number): number;
}

export interface LiveSwitch {
  /** Aborts the stream, if one is open, turns the switch off and says `reason`. */
  stop(reason: string): void;
}

/** True for the saved queries whose watch is a tail: after the first page, only new rows. */
export function isTail(endpoint: ListedEndpoint): boolean {
  return endpoint.name === "logs.all";
}

export function createLiveSwitch(options: LiveSwitchOptions): LiveSwitch {
  const { checkbox, say } = options;
  let running: AbortController | undefined;

  function stop(reason: string): void {
    if (running === undefined && !checkbox.checked) return;
    running?.abort();
    running = undefined;
    checkbox.checked = false;
    say(reason, "idle");
  }

  async function start(): Promise<void> {
    const { endpoint, parameters, transport, key } = options.call();
    if (endpoint === undefined) {
      checkbox.checked = false;
      say("Choose a saved query before going live.", "error");
      return;
    }
    const controller = new AbortController();
    running = controller;
    say(`Live: opening the stream of ${endpoint.name}…`, "busy");
    let messages = 0;
    let shown = 0;
    try {
      const stream = watchEndpoint(endpoint, parameters, transport, key, controller.signal);
      for await (const message of stream) {
        if (controller.signal.aborted) break;
        messages += 1;
        if (messages === 1 || !isTail(endpoint)) {
          options.replace(endpoint.name, message.rows, message.nextPageToken);
          shown = message.rows.length;
        } else shown = options.prepend(message.rows, MAX_LIVE_ROWS);
        const time = new Date().toISOString().slice(11, 19);
        const added = messages > 1 && isTail(endpoint) ? `${message.rows.length} new, ` : "";
        say(`Live: ${endpoint.name}, ${added}${shown} rows, updated ${time} UTC`, "ok");
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      const text = error instanceof LiveError ? error.message : String(error);
      running = undefined;
      checkbox.checked = false;
      say(`Live stopped: ${text}`, "error");
    }
  }

  checkbox.addEventListener("change", () => {
    if (checkbox.checked) void start();
    else stop("Live is off.");
  });
  return { stop };
}
