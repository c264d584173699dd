// Starts bench/watch-client.mjs, the watch section's client process, and
// talks to it: one JSON command on its stdin, one JSON answer on its stdout.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { root } from "./processes.js";

export interface WatchClientOptions {
  url: string;
  /** The gRPC path of the watch method: `/<service>/<method>`. */
  path: string;
  key: string;
  /** The request message, in protobuf's binary form. */
  request: Uint8Array;
  /** Longest wait for any one answer. Default 120,000 ms. */
  timeoutMs?: number;
}

export interface WatchClient {
  /** Opens `count` streams more; resolves once each has its first message. */
  open(count: number): Promise<{ opened: number; connections: number; ms: number }>;
  /** POSTs `body` to `importUrl` and resolves once every stream has one message more, timed from the POST's start. */
  refresh(
    importUrl: string,
    body: string,
  ): Promise<{ refreshMs: number; postMs: number; clientCpuMs: number; messages: number }>;
  /** Closes every stream and connection. */
  close(): Promise<void>;
  /** Ends the process; resolves once it has exited. */
  stop(): Promise<void>;
}

export function startWatchClient(options: WatchClientOptions): WatchClient {
  const { url, path, key, request, timeoutMs = 120_000 } = options;
  const child = spawn(
    process.execPath,
    ["bench/watch-client.mjs", url, path, key, Buffer.from(request).toString("hex")],
    { cwd: root, stdio: ["pipe", "pipe", "inherit"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const answers = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const ask = async <T>(command: object): Promise<T> => {
    child.stdin!.write(`${JSON.stringify(command)}\n`);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the watch client did not answer ${JSON.stringify(command)}`)),
        timeoutMs,
      );
    });
    const next = await Promise.race([answers.next(), late]).finally(() => clearTimeout(timer));
    if (next.done) throw new Error("the watch client exited");
    const answer = JSON.parse(next.value) as T & { error?: string };
    if (answer.error !== undefined) throw new Error(`watch client: ${answer.error}`);
    return answer;
  };
  return {
    open: (count) => ask({ open: count }),
    refresh: (importUrl, body) => ask({ refresh: { url: importUrl, body } }),
    close: async () => {
      await ask({ close: true });
    },
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}
