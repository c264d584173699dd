// Lists the saved queries as the key is typed, not only once the key field
// loses focus: a pause in typing (or a paste, or a change) asks for the
// listing of the field's key, and a newer key aborts the older request so a
// slow answer for an old key never replaces a newer one. The key goes to the
// loader only, never to the address or localStorage (docs/explorer.md).

/** Lists the saved queries of `key`; resolves true when they were listed, false when refused. */
export type LoadListing = (key: string, signal: AbortSignal) => Promise<boolean>;

export interface KeyListingOptions {
  /** Quiet time after the last keystroke before the listing is asked for; default 300 ms. */
  delayMs?: number;
}

export interface KeyListing {
  /** Asks at once for the field's key, unless that key is listed or being listed; settles when it is. */
  now(): Promise<void>;
}

interface Request {
  key: string;
  done: Promise<void>;
}

/** Listens to `input` and calls `load` for its key as described above. */
export function createKeyListing(
  input: HTMLInputElement,
  load: LoadListing,
  options: KeyListingOptions = {},
): KeyListing {
  const delayMs = options.delayMs ?? 300;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let controller: AbortController | undefined;
  let latest: Request | undefined;

  function now(): Promise<void> {
    clearTimeout(timer);
    const key = input.value.trim();
    if (latest?.key === key) return latest.done;
    controller?.abort();
    controller = new AbortController();
    const request: Request = { key, done: Promise.resolve() };
    request.done = load(key, controller.signal).then((listed) => {
      // A refused listing is asked again on the next change or run.
      if (!listed && latest === request) latest = undefined;
    });
    latest = request;
    return request.done;
  }

  input.addEventListener("input", (event) => {
    clearTimeout(timer);
    if ((event as InputEvent).inputType === "insertFromPaste") void now();
    else timer = setTimeout(() => void now(), delayMs);
  });
  input.addEventListener("change", () => void now());
  return { now };
}
