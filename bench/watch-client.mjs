// The watch section's client, in a process of its own: idle gRPC watch
// streams over node:http2 (as many connections as the server's
// SETTINGS_MAX_CONCURRENT_STREAMS needs), counting each stream's messages
// without decoding them. Told what to do by JSON lines on stdin, it answers
// each by one JSON line on stdout, every time read on its own clock:
//   {"open": n}               opens n streams; answers once each has its first message
//   {"refresh": {url, body}}  POSTs the NDJSON body to the import route; answers once
//                             every stream has one message more, with the last arrival's time
//                             and the CPU time this process used meanwhile
//   {"close": true}           closes every stream and connection
// Usage: node bench/watch-client.mjs <service url> <gRPC path> <api key> <request message, hex>
import { connect } from "node:http2";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";

const [url, path, key, requestHex] = process.argv.slice(2);
const request = Buffer.from(requestHex, "hex");
// A gRPC message frame: uncompressed, four bytes of length, the message.
const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), request]);
frame.writeUInt32BE(request.length, 1);

/** Per stream: its messages counted, its bytes not yet a whole message, whether it ended. */
const streams = [];
const sessions = [];
/** Streams that reached each count of messages, and when the last of them did. */
const reached = [];
const lastArrival = [];
let failure;
let waiter;

function settle() {
  if (waiter === undefined) return;
  if (failure !== undefined) waiter.reject(new Error(failure));
  else if ((reached[waiter.count] ?? 0) >= streams.length) waiter.resolve(lastArrival[waiter.count]);
  else return;
  waiter = undefined;
}

/** Resolves with the time the last stream got its `count`th message. */
function allReach(count) {
  return new Promise((resolve, reject) => {
    waiter = { count, resolve, reject };
    settle();
  });
}

async function openSession() {
  // Wide windows: the client must not be what holds the messages back.
  const session = connect(url, { settings: { initialWindowSize: 2 ** 20 } });
  session.on("error", (error) => {
    failure ??= `connection: ${error.message}`;
    settle();
  });
  await new Promise((resolve) => session.once("remoteSettings", resolve));
  session.setLocalWindowSize(2 ** 26);
  sessions.push(session);
  return session;
}

function openStream(session) {
  const state = { messages: 0, pending: Buffer.alloc(0), closing: false };
  streams.push(state);
  const stream = session.request({
    ":method": "POST",
    ":path": path,
    "content-type": "application/grpc",
    te: "trailers",
    "x-api-key": key,
  });
  state.stream = stream;
  stream.end(frame);
  stream.on("data", (chunk) => {
    let bytes = state.pending.length === 0 ? chunk : Buffer.concat([state.pending, chunk]);
    while (bytes.length >= 5 && bytes.length >= 5 + bytes.readUInt32BE(1)) {
      bytes = bytes.subarray(5 + bytes.readUInt32BE(1));
      const count = ++state.messages;
      reached[count] = (reached[count] ?? 0) + 1;
      lastArrival[count] = performance.now();
    }
    state.pending = bytes;
    settle();
  });
  stream.on("trailers", (trailers) => {
    if (!state.closing)
      failure ??= `a stream ended: grpc-status ${trailers["grpc-status"]} ${trailers["grpc-message"] ?? ""}`;
  });
  stream.on("close", () => {
    if (!state.closing) failure ??= `a stream closed (code ${stream.rstCode}) after ${state.messages} messages`;
    settle();
  });
  stream.on("error", () => {});
}

async function open(count) {
  const start = performance.now();
  let left = count;
  while (left > 0) {
    const session = await openSession();
    const room = Math.min(left, session.remoteSettings.maxConcurrentStreams);
    for (let i = 0; i < room; i++) openStream(session);
    left -= room;
  }
  const last = await allReach(1);
  return { opened: count, connections: sessions.length, ms: last - start };
}

async function refresh({ url: importUrl, body }) {
  const sent = streams[0].messages;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const response = await fetch(importUrl, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/x-ndjson" },
    body,
  });
  const answer = await response.text();
  const postMs = performance.now() - start;
  if (response.status !== 200) throw new Error(`import answered ${response.status}: ${answer}`);
  const last = await allReach(sent + 1);
  // This process's own CPU meanwhile: near the refresh's time, the client would be what was measured.
  const used = process.cpuUsage(cpu);
  return { refreshMs: last - start, postMs, clientCpuMs: (used.user + used.system) / 1000, messages: sent + 1 };
}

function close() {
  for (const state of streams) {
    state.closing = true;
    state.stream.close();
  }
  for (const session of sessions) session.close();
  streams.length = 0;
  sessions.length = 0;
  reached.length = 0;
  lastArrival.length = 0;
  return { closed: true };
}

const reply = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line);
  try {
    if (command.open !== undefined) reply(await open(command.open));
    else if (command.refresh !== undefined) reply(await refresh(command.refresh));
    else if (command.close !== undefined) reply(close());
  } catch (error) {
    reply({ error: error.message });
  }
}
