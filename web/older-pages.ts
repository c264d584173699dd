// "Load older" for logs.all: the last answer's next_page_token, given back
// as `page_token` (a GET parameter, or the request field over RPC) with the
// same other parameters, fetches the next older page, whose rows go below
// the shown ones (docs/endpoints.md, Paging). The button shows only while
// older rows remain.
import { type Cut, callEndpoint, type Row } from "./calls.js";
import type { ListedEndpoint } from "./listing.js";
import type { TransportName } from "./view-address.js";

export interface OlderPagesOptions {
  button: HTMLButtonElement;
  /** The call as the form now describes it. */
  call(): {
    endpoint: ListedEndpoint | undefined;
    parameters: Record<string, string>;
    transport: TransportName;
    key: string;
  };
  say(text: string, state: "idle" | "busy" | "ok" | "error"): void;
  /** Puts older rows below the shown ones, with what their page says of its cut; returns how many are shown. */
  append(rows: Row[], cut: Cut): number;
}

export interface OlderPages {
  /** Offers the next older page when `token` is a token, else hides the button. */
  offer(token: string | undefined): void;
}

export function createOlderPages(options: OlderPagesOptions): OlderPages {
  const { button, say } = options;
  let token: string | undefined;

  function offer(next: string | undefined): void {
    token = next === "" ? undefined : next;
    button.hidden = token === undefined;
  }

  button.addEventListener("click", async () => {
    const { endpoint, parameters, transport, key } = options.call();
    if (endpoint === undefined || token === undefined) return;
    button.disabled = true;
    say("Loading older rows…", "busy");
    try {
      const result = await callEndpoint(endpoint, { ...parameters, page_token: token }, transport, key);
      if (!result.ok) {
        say(`Older rows were refused: ${result.code}: ${result.message}`, "error");
        return;
      }
      const shown = options.append(result.rows, result);
      offer(result.nextPageToken);
      const more = token === undefined ? "no older rows remain" : "more remain";
      say(`${result.rows.length} older rows loaded, ${shown} shown; ${more}.`, "ok");
    } catch (error) {
      say(`Older rows were not loaded: ${(error as Error).message}`, "error");
    } finally {
      button.disabled = false;
    }
  });
  offer(undefined);
  return { offer };
}
