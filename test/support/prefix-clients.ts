// Clients that bind each connection to one of several local addresses, run
// as a command inside a network namespace (prefix-namespace.ts): the job is
// JSON in argv[2], the outcome JSON on stdout. Each job keeps what the server
// admitted open until all its connections are tried, then closes everything.
import { connect as connectHttp2, constants, type ClientHttp2Session } from "node:http2";
import { request } from "node:http";
import { connect, type Socket } from "node:net";

interface Target {
  host: string;
  port: number;
  /** The local addresses to connect from, in order. */
  from: string[];
}

/** `perAddress` connections from each address in turn, one at a time: each answered a GET of /healthz, or refused. */
export interface ConnectionsJob extends Target {
  kind: "connections";
  perAddress: number;
}

/** One event stream (`Accept: text/event-stream`) of `path` from each address in turn: the statuses. */
export interface EventStreamsJob extends Target {
  kind: "event-streams";
  path: string;
  key: string;
}

/**
 * One HTTP/2 connection from each address, then `perSession` POSTs of `path`
 * on each at once with their bodies held open: how many were refused
 * (REFUSED_STREAM) and how many answered once their bodies ended.
 */
export interface HeldCallsJob extends Target {
  kind: "held-calls";
  perSession: number;
  path: string;
  key: string;
  body: string;
}

export type PrefixJob = ConnectionsJob | EventStreamsJob | HeldCallsJob;

const open: { destroy(): void }[] = [];

async function connections(job: ConnectionsJob): Promise<string[]> {
  const outcomes: string[] = [];
  for (const localAddress of job.from) {
    for (let i = 0; i < job.perAddress; i++) {
      const socket: Socket = connect({ host: job.host, port: job.port, localAddress });
      open.push(socket);
      socket.on("error", () => {});
      socket.once("connect", () => socket.write(`GET /healthz HTTP/1.1\r\nhost: ${job.host}\r\n\r\n`));
      outcomes.push(
        await new Promise<string>((resolve) => {
          socket.once("data", (chunk: Buffer) => resolve(chunk.toString("latin1").split(" ")[1] ?? "?"));
          socket.once("close", () => resolve("refused"));
        }),
      );
    }
  }
  return outcomes;
}

async function eventStreams(job: EventStreamsJob): Promise<number[]> {
  const statuses: number[] = [];
  for (const localAddress of job.from) {
    statuses.push(
      await new Promise<number>((resolve, reject) => {
        const headers = { accept: "text/event-stream", "x-api-key": job.key };
        const req = request({ host: job.host, port: job.port, path: job.path, localAddress, headers, agent: false });
        req.once("response", (response) => {
          response.resume();
          open.push(req);
          resolve(response.statusCode ?? 0);
        });
        req.once("error", reject);
        req.end();
      }),
    );
  }
  return statuses;
}

async function heldCalls(job: HeldCallsJob): Promise<{ refused: number; answered: number }> {
  const authority = `http://[${job.host}]:${job.port}`;
  const sessions = await Promise.all(
    job.from.map(
      (localAddress) =>
        new Promise<ClientHttp2Session>((resolve, reject) => {
          const session = connectHttp2(authority, {
            createConnection: () => connect({ host: job.host, port: job.port, localAddress }),
          });
          open.push(session);
          session.once("remoteSettings", () => resolve(session));
          session.once("error", reject);
        }),
    ),
  );
  // All in one turn: every HEADERS frame goes out before any lowered SETTINGS can come back.
  const streams = sessions.flatMap((session) =>
    Array.from({ length: job.perSession }, () => {
      const stream = session.request(
        // Node's client writes an IPv6 :authority without brackets; the bracketed form is the valid one.
        {
          ":method": "POST",
          ":path": job.path,
          ":authority": `[${job.host}]:${job.port}`,
          "content-type": "application/json",
          "x-api-key": job.key,
        },
        { endStream: false },
      );
      stream.on("error", () => {});
      stream.resume();
      stream.write(job.body);
      const status = new Promise<number | "refused">((resolve) => {
        stream.once("response", (headers) => resolve(Number(headers[":status"])));
        stream.once("close", () => resolve(stream.rstCode === constants.NGHTTP2_REFUSED_STREAM ? "refused" : 0));
      });
      return { stream, status };
    }),
  );
  // Two round trips per session: a refusal is sent before the answer to the second ping is.
  for (let round = 0; round < 2; round++) {
    await Promise.all(sessions.map((session) => new Promise((resolve) => session.ping(resolve))));
  }
  const refused = streams.filter(({ stream }) => stream.rstCode === constants.NGHTTP2_REFUSED_STREAM).length;
  const held = streams.filter(({ stream }) => !stream.closed);
  for (const { stream } of held) stream.end();
  const statuses = await Promise.all(held.map(({ status }) => status));
  return { refused, answered: statuses.filter((s) => s === 200).length };
}

const job = JSON.parse(process.argv[2] ?? "{}") as PrefixJob;
const outcome =
  job.kind === "connections"
    ? await connections(job)
    : job.kind === "event-streams"
      ? await eventStreams(job)
      : await heldCalls(job);
process.stdout.write(`${JSON.stringify(outcome)}\n`);
for (const thing of open) thing.destroy();
process.exit(0);
