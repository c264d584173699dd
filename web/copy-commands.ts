// "Copy as curl" and "copy as buf curl": the call the page makes, as a
// command line. curl speaks the GET API, or Connect with JSON for the RPC
// transports (curl cannot write Protobuf); buf curl speaks Connect or
// gRPC-Web and reads the schema from the service's reflection.
import { getPath } from "./calls.js";
import type { ListedEndpoint } from "./listing.js";
import type { TransportName } from "./view-address.js";

export interface CommandInput {
  /** The service's base address, e.g. `http://127.0.0.1:8080/`. */
  base: string;
  endpoint: ListedEndpoint;
  /** Given parameters only (empty ones left out). */
  parameters: Record<string, string>;
  transport: TransportName;
  key: string;
}

/** A curl command for the call. */
export function curlCommand({ base, endpoint, parameters, transport, key }: CommandInput): string {
  const keyHeader = `-H ${quoted(`X-API-KEY: ${key}`)}`;
  if (transport === "get") return `curl -s ${quoted(new URL(getPath(endpoint, parameters), base).href)} ${keyHeader}`;
  const url = new URL(endpoint.grpc_method, base).href;
  if (transport === "connect-get") {
    const query = new URLSearchParams({ connect: "v1", encoding: "json", message: JSON.stringify(parameters) });
    return `curl -s ${quoted(`${url}?${query}`)} ${keyHeader}`;
  }
  return `curl -s ${quoted(url)} -H 'Content-Type: application/json' ${keyHeader} -d ${quoted(JSON.stringify(parameters))}`;
}

/** A buf curl command for the call: gRPC-Web, or Connect for every other transport (buf curl sends no Connect GET). */
export function bufCurlCommand({ base, endpoint, parameters, transport, key }: CommandInput): string {
  const protocol = transport === "grpc-web" ? "grpcweb" : "connect";
  const url = new URL(endpoint.grpc_method, base).href;
  return [
    "buf curl",
    `--protocol ${protocol}`,
    `-H ${quoted(`X-API-KEY: ${key}`)}`,
    `-d ${quoted(JSON.stringify(parameters))}`,
    quoted(url),
  ].join(" ");
}

/** `text` as one POSIX shell word: single quotes, a single quote written as '\''. */
export function quoted(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
