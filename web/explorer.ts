// The explorer page served at GET / (docs/explorer.md): lists the saved
// queries the typed key may call, builds a form for the chosen one, calls it
// by the chosen transport, and shows the rows as a table and a chart, the
// status and field violations, and the headers and sizes of the answer.
import "uplot/dist/uPlot.min.css";
import "./explorer.css";
import { type CallResult, callEndpoint, type Row } from "./calls.js";
import { bufCurlCommand, curlCommand } from "./copy-commands.js";
import { optionLabel, showDeprecation } from "./deprecation-banner.js";
import { createKeyListing } from "./key-listing.js";
import { fetchListing, type ListedEndpoint } from "./listing.js";
import { createLiveSwitch } from "./live-switch.js";
import { createOlderPages } from "./older-pages.js";
import { buildParameterForm, type ParameterForm } from "./parameter-form.js";
import { showTable } from "./results-table.js";
import { showChart } from "./time-chart.js";
import { showTruncation, truncationText } from "./truncation-note.js";
import { hashOfView, storedKey, storeKey, type TransportName, viewFromHash } from "./view-address.js";

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const form = byId<HTMLFormElement>("call");
const keyInput = byId<HTMLInputElement>("key");
const endpointSelect = byId<HTMLSelectElement>("endpoint");
const fieldset = byId<HTMLFieldSetElement>("parameters");
const transportSelect = byId<HTMLSelectElement>("transport");
const runButton = byId<HTMLButtonElement>("run");
const copyCurl = byId<HTMLButtonElement>("copy-curl");
const copyBufCurl = byId<HTMLButtonElement>("copy-buf-curl");
const status = byId<HTMLElement>("status");
const facts = byId<HTMLDListElement>("facts");
const chart = byId<HTMLElement>("chart");
const results = byId<HTMLElement>("results");
const liveCheckbox = byId<HTMLInputElement>("live");
const olderButton = byId<HTMLButtonElement>("load-older");
const deprecation = byId<HTMLElement>("deprecation");
const truncation = byId<HTMLElement>("truncation");

let endpoints: ListedEndpoint[] = [];
let parameterForm: ParameterForm | undefined;
let calls = 0;
/** The rows in the table and chart, added to by the live tail and "Load older". */
let shown: { endpoint: string; rows: Row[] } = { endpoint: "", rows: [] };
const initial = viewFromHash(location.hash);

function say(text: string, state: "idle" | "busy" | "ok" | "error"): void {
  status.textContent = text;
  status.dataset.state = state;
}

function chosen(): ListedEndpoint | undefined {
  return endpoints.find((e) => e.name === endpointSelect.value);
}

/** The call as the form now describes it: given parameters only. */
function currentCall() {
  const endpoint = chosen();
  const parameters = Object.fromEntries(
    Object.entries(parameterForm?.values() ?? {}).filter(([, value]) => value !== ""),
  );
  return { endpoint, parameters, transport: transportSelect.value as TransportName, key: keyInput.value.trim() };
}

/** Shows the listing of `key`; an aborted request (a newer key was typed) changes nothing. */
async function loadListing(key: string, signal: AbortSignal): Promise<boolean> {
  storeKey(key);
  if (key === "") {
    endpoints = [];
    endpointSelect.replaceChildren();
    endpointSelect.disabled = true;
    showDeprecation(deprecation, undefined);
    say("Type an API key to list the saved queries it may call.", "idle");
    return true;
  }
  say("Loading the saved queries…", "busy");
  let listed: ListedEndpoint[];
  try {
    listed = await fetchListing(key, signal);
  } catch (error) {
    if (signal.aborted) return true;
    endpoints = [];
    endpointSelect.replaceChildren();
    endpointSelect.disabled = true;
    showDeprecation(deprecation, undefined);
    say(`The listing was refused: ${(error as Error).message}`, "error");
    return false;
  }
  if (signal.aborted) return true;
  endpoints = listed;
  const previous = endpointSelect.value || initial.endpoint;
  endpointSelect.replaceChildren(...endpoints.map((e) => new Option(optionLabel(e), e.name)));
  endpointSelect.disabled = endpoints.length === 0;
  if (endpoints.some((e) => e.name === previous)) endpointSelect.value = previous;
  chooseEndpoint(endpointSelect.value === initial.endpoint ? initial.parameters : {});
  say(`${endpoints.length} saved ${endpoints.length === 1 ? "query" : "queries"} for this key.`, "idle");
  return true;
}

function chooseEndpoint(values: Record<string, string>): void {
  const endpoint = chosen();
  parameterForm = endpoint === undefined ? undefined : buildParameterForm(fieldset, endpoint, values);
  showDeprecation(deprecation, endpoint);
  copyCurl.disabled = copyBufCurl.disabled = endpoint === undefined;
}

async function run(): Promise<void> {
  await listing.now();
  const call = currentCall();
  if (call.endpoint === undefined) return;
  history.replaceState(null, "", hashOfView({ ...call, endpoint: call.endpoint.name }));
  const number = ++calls;
  runButton.disabled = true;
  say(`Calling ${call.endpoint.name}…`, "busy");
  let result: CallResult;
  try {
    result = await callEndpoint(call.endpoint, call.parameters, call.transport, call.key);
  } catch (error) {
    result = failure(error);
  } finally {
    runButton.disabled = false;
  }
  if (number !== calls) return; // a later call is showing
  show(call.endpoint.name, result);
  status.dataset.call = String(number);
}

function failure(error: unknown): CallResult {
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, code: "unknown", message, rows: [], violations: [], headers: new Headers(), durationMs: 0 };
}

function show(endpoint: string, result: CallResult): void {
  const elsewhere = parameterForm?.showViolations(result.violations) ?? result.violations;
  const http = result.httpStatus === undefined ? "" : `HTTP ${result.httpStatus}, `;
  if (result.ok) say(`${http}ok: ${result.rows.length} rows in ${result.durationMs.toFixed(0)} ms`, "ok");
  else {
    const extra = elsewhere.map((v) => `${v.field}: ${v.description}`).join("; ");
    say(`${http}${result.code}: ${result.message}${extra === "" ? "" : ` (${extra})`}`, "error");
  }
  showFacts(result);
  showTruncation(
    truncation,
    result.ok ? truncationText(result.rows.length, result.truncated, result.rowsBeforeLimitAtLeast) : undefined,
  );
  older.offer(result.ok ? result.nextPageToken : undefined);
  if (result.ok) draw(endpoint, result.rows);
  else {
    shown = { endpoint, rows: [] };
    showChart(chart, [], endpoint);
    results.replaceChildren();
  }
}

function draw(endpoint: string, rows: Row[]): void {
  shown = { endpoint, rows };
  showChart(chart, rows, endpoint);
  showTable(results, rows, `${endpoint}: ${rows.length} rows`);
}

function showFacts(result: CallResult): void {
  const age = result.headers.get("age");
  const cache = result.headers.get("x-cache");
  const entries: [string, string | null][] = [
    ["x-cache", cache === null ? null : `${cache}${age === null ? "" : ` (age ${age} s)`}`],
    ["Server-Timing", result.headers.get("server-timing")],
    // Headers on GET and Connect, trailers on gRPC-Web: what the warehouse read for this result.
    ["rows read", result.headers.get("x-rows-read")],
    ["bytes read", result.headers.get("x-bytes-read")],
    ["x-request-id", result.headers.get("x-request-id")],
    ["rows", String(result.rows.length)],
    ["bytes on the wire", result.wireBytes === undefined ? null : String(result.wireBytes)],
  ];
  facts.replaceChildren();
  for (const [name, value] of entries) {
    const term = document.createElement("dt");
    term.textContent = name;
    const definition = document.createElement("dd");
    definition.textContent = value ?? "—";
    definition.dataset.fact = name;
    facts.append(term, definition);
  }
  facts.hidden = false;
}

async function copy(make: typeof curlCommand, button: HTMLButtonElement): Promise<void> {
  const call = currentCall();
  if (call.endpoint === undefined) return;
  const text = make({ ...call, endpoint: call.endpoint, base: new URL(".", document.baseURI).href });
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "Copied";
  } catch {
    button.textContent = "Copy refused by the browser";
  }
  setTimeout(() => (button.textContent = label), 1500);
}

const live = createLiveSwitch({
  checkbox: liveCheckbox,
  call: currentCall,
  say,
  // A watch's rows are not the cut of one answer: the note of the last Run no longer applies.
  replace(endpoint, rows, nextPageToken) {
    older.offer(nextPageToken);
    showTruncation(truncation, undefined);
    draw(endpoint, rows);
  },
  prepend(rows, limit) {
    showTruncation(truncation, undefined);
    draw(shown.endpoint, [...rows].reverse().concat(shown.rows).slice(0, limit));
    return shown.rows.length;
  },
});
const older = createOlderPages({
  button: olderButton,
  call: currentCall,
  say,
  append(rows, cut) {
    const before = shown.rows.length;
    draw(shown.endpoint, shown.rows.concat(rows));
    // An older page counts its rows from itself on (docs/endpoints.md, Truncation).
    const atLeast = cut.rowsBeforeLimitAtLeast === undefined ? undefined : before + cut.rowsBeforeLimitAtLeast;
    showTruncation(truncation, truncationText(shown.rows.length, cut.truncated, atLeast));
    return shown.rows.length;
  },
});
// A stream shows one call: any change to the call ends it.
const stopLive = () => live.stop("Live stopped: the call changed.");
for (const control of [keyInput, endpointSelect, fieldset, transportSelect]) {
  control.addEventListener("input", stopLive);
  control.addEventListener("change", stopLive);
}

keyInput.value = storedKey();
transportSelect.value = initial.transport;
const listing = createKeyListing(keyInput, loadListing);
endpointSelect.addEventListener("change", () => chooseEndpoint({}));
form.addEventListener("submit", (event) => {
  event.preventDefault();
  void run();
});
copyCurl.addEventListener("click", () => void copy(curlCommand, copyCurl));
copyBufCurl.addEventListener("click", () => void copy(bufCurlCommand, copyBufCurl));
document.body.dataset.ready = "true";
void listing.now().then(() => {
  // A shared view with its key already in this tab runs at once.
  if (initial.endpoint !== "" && chosen()?.name === initial.endpoint) void run();
});
