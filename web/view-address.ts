// What the address holds: the saved query, its parameters and the transport,
// in the fragment (`#/logs.all/grpc-web?project=...`), so that a view can be
// shared and reloaded; the fragment never reaches a server. The key is kept
// apart, in this tab's sessionStorage only: never in the address, never in
// localStorage.

/** The transports a call can go by. */
export const transports = ["get", "connect", "connect-binary", "connect-get", "grpc-web"] as const;
export type TransportName = (typeof transports)[number];

export interface View {
  endpoint: string;
  transport: TransportName;
  parameters: Record<string, string>;
}

/** The view the fragment `hash` describes; an empty or foreign one describes nothing chosen. */
export function viewFromHash(hash: string): View {
  const match = /^#\/([^/?]*)(?:\/([^?]*))?(?:\?(.*))?$/.exec(hash);
  const transport = decodeURIComponent(match?.[2] ?? "");
  return {
    endpoint: decodeURIComponent(match?.[1] ?? ""),
    transport: (transports as readonly string[]).includes(transport) ? (transport as TransportName) : "get",
    parameters: Object.fromEntries(new URLSearchParams(match?.[3] ?? "")),
  };
}

/** The fragment of `view`: empty parameters are left out. */
export function hashOfView(view: View): string {
  const query = new URLSearchParams(Object.entries(view.parameters).filter(([, value]) => value !== "")).toString();
  return `#/${encodeURIComponent(view.endpoint)}/${view.transport}${query === "" ? "" : `?${query}`}`;
}

const keyItem = "saved-query-explorer.key";

/** The key typed earlier in this tab, or empty. */
export function storedKey(): string {
  try {
    return sessionStorage.getItem(keyItem) ?? "";
  } catch {
    return ""; // storage refused (a sandboxed frame): the key lives in the field only
  }
}

/** Keeps `key` for this tab (cleared when the tab closes); empty forgets it. */
export function storeKey(key: string): void {
  try {
    if (key === "") sessionStorage.removeItem(keyItem);
    else sessionStorage.setItem(keyItem, key);
  } catch {
    // storage refused: the key stays in memory only
  }
}
