// A TCP proxy in front of a ClickHouse server that a test can shut, so that
// the warehouse stops answering mid-run as a stopped server would.
import { connect, createServer, type Socket } from "node:net";

export interface WarehouseProxy {
  /** `http://127.0.0.1:<port>`: where a client reaches the server through the proxy. */
  url: string;
  /** Refuses new connections and cuts the open ones. */
  stop(): void;
  /** Forwards again. */
  start(): void;
  close(): Promise<void>;
}

/** Listens on a free port of 127.0.0.1 and forwards each connection to `target`'s host and port. */
export async function startWarehouseProxy(target: URL): Promise<WarehouseProxy> {
  let forwarding = true;
  const sockets = new Set<Socket>();
  const cutAll = () => {
    for (const s of sockets) s.destroy();
  };
  const proxy = createServer((client) => {
    if (!forwarding) return void client.destroy();
    const upstream = connect(Number(target.port || 8123), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => s.destroy());
      s.on("close", () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    stop() {
      forwarding = false;
      cutAll();
    },
    start() {
      forwarding = true;
    },
    close() {
      cutAll();
      return new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
