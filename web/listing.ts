// The saved queries a credential may call, from `GET /api/endpoints`
// (docs/http-api.md): the page builds its chooser and forms from this, so a
// saved query added to the service appears without a change here.

/** One saved query as the listing describes it. */
export interface ListedEndpoint {
  name: string;
  id: string;
  grpc_method: string;
  /** The server-streaming method beside it (`logs.v1.LogsService/WatchAllLogs`). */
  grpc_watch_method?: string;
  cache_ttl_seconds: number;
  parameters: ListedParameter[];
  /** Present for a deprecated version: since when (a date), its sunset date if set, and its successor's name. */
  deprecated?: { since: string; sunset?: string; successor: string };
  /** The parameters the credential fixes, with their values. */
  fixed_parameters?: Record<string, string>;
}

export interface ListedParameter {
  name: string;
  required: boolean;
  allowed_values: string[];
  default: string | null;
  max_length: number;
}

/** The listing for `key`; a refusal is thrown as an Error with the service's code and message. */
export async function fetchListing(key: string, signal?: AbortSignal): Promise<ListedEndpoint[]> {
  const response = await fetch("api/endpoints", {
    headers: { "x-api-key": key, accept: "application/json" },
    signal,
  });
  const body = (await response.json().catch(() => ({}))) as {
    result?: ListedEndpoint[];
    error?: { code: string; message: string };
  };
  if (!response.ok || body.result === undefined) {
    throw new Error(
      body.error === undefined
        ? `listing failed: HTTP ${response.status}`
        : `${body.error.code}: ${body.error.message}`,
    );
  }
  return body.result;
}
