// Every form the service keeps of one cached result of
// functions.invocation-stats, asked once each: GET as JSON, CSV and NDJSON,
// each as is, gzip and Brotli; Connect binary and JSON and gRPC-Web binary
// and JSON, each as is, gzip and Brotli (a message under 1 KiB is kept only
// as is). And the memory of a service that loads bench/memory-probe.mjs.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { create, toBinary, toJsonString } from "@bufbuild/protobuf";
import { FunctionsService, GetInvocationStatsRequestSchema } from "../src/gen/functions/v1/functions_pb.js";
import { lengthPrefixed } from "./protocols.js";

/** The parameters of one cache key. */
export interface FormsCall {
  project: string;
  functionId: string;
  interval: string;
}

interface FormRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const codings = ["identity", "gzip", "br"];
const getFormats = ["application/json", "text/csv", "application/x-ndjson"];
const rpcPath = `/${FunctionsService.typeName}/${FunctionsService.method.getInvocationStats.name}`;

/** The requests asking every form of `call`'s result. */
export function formRequests(call: FormsCall): FormRequest[] {
  const request = create(GetInvocationStatsRequestSchema, call);
  const binary = Buffer.from(toBinary(GetInvocationStatsRequestSchema, request));
  const json = Buffer.from(toJsonString(GetInvocationStatsRequestSchema, request));
  const query = new URLSearchParams({ project: call.project, interval: call.interval });
  if (call.functionId !== "") query.set("function_id", call.functionId);
  const requests: FormRequest[] = [];
  for (const coding of codings) {
    for (const accept of getFormats) {
      const headers = { accept, "accept-encoding": coding };
      requests.push({ method: "GET", path: `/api/endpoints/functions.invocation-stats?${query}`, headers });
    }
    for (const [kind, body] of [
      ["proto", binary],
      ["json", json],
    ] as const) {
      const connect = { "content-type": `application/${kind}`, "accept-encoding": coding };
      requests.push({ method: "POST", path: rpcPath, headers: connect, body });
      const grpcWeb = { "content-type": `application/grpc-web+${kind}`, "grpc-accept-encoding": coding };
      requests.push({ method: "POST", path: rpcPath, headers: grpcWeb, body: lengthPrefixed(body) });
    }
  }
  return requests;
}

/** Asks every form of `call` of the service at `url`, reading each body whole; throws on an answer but 200. */
export async function askEveryForm(url: string, key: string, call: FormsCall): Promise<void> {
  for (const form of formRequests(call)) {
    const response = await fetch(`${url}${form.path}`, {
      method: form.method,
      headers: { ...form.headers, "x-api-key": key },
      body: form.body === undefined ? undefined : new Uint8Array(form.body),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${form.method} ${form.path} got ${response.status}`);
    const grpcStatus = response.headers.get("grpc-status");
    if (grpcStatus !== null && grpcStatus !== "0") throw new Error(`gRPC-Web got grpc-status ${grpcStatus}`);
  }
}

/** The Node options that load the probe into a service. */
export const memoryProbeArgs = ["--expose-gc", "--import", "./bench/memory-probe.mjs"];

/** Heap used plus external memory of the probed service `pid` after a full GC, read through `file`. */
export async function memoryAfterGc(pid: number, file: string): Promise<{ heapUsed: number; external: number }> {
  rmSync(file, { force: true });
  process.kill(pid, "SIGUSR2");
  for (let waited = 0; !existsSync(file); waited += 20) {
    if (waited > 10_000) throw new Error("the service's memory probe did not answer");
    await sleep(20);
  }
  await sleep(20); // written in one call, but read after it ends
  const usage = JSON.parse(readFileSync(file, "utf8")) as { heapUsed: number; external: number };
  return { heapUsed: usage.heapUsed, external: usage.external };
}
