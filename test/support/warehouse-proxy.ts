// A TCP proxy in front of a ClickHouse server that a test can shut, so that
// the warehouse stops answering mid-run as a stopped server would, and a new
// migrated database of that server reached through one.
import { randomUUID } from "node:crypto";
import { connect, createServer, type Socket } from "node:net";
import { ClickHouseLogLevel, createClient } from "@clickhouse/client";
import { migrate, type Warehouse } from "../../src/warehouse/index.js";
import { serverCredentials } from "./server-credentials.js";

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

/** A new, migrated database of the server at `url`, reached through a proxy the test can shut. */
export interface ProxiedDatabase {
  proxy: WarehouseProxy;
  warehouse: Warehouse;
  /** Opens the proxy again, drops the database and closes the client and the proxy. */
  close(): Promise<void>;
}

/** Creates the database `<prefix><uuid>` on the server at `url` and migrates it through a proxy. */
export async function openProxiedDatabase(url: string, prefix: string): Promise<ProxiedDatabase> {
  const database = `${prefix}${randomUUID().replaceAll("-", "")}`;
  const proxy = await startWarehouseProxy(new URL(url));
  const admin = createClient({ url, ...serverCredentials, log: { level: ClickHouseLogLevel.OFF } });
  await admin.command({ query: "CREATE DATABASE {db:Identifier}", query_params: { db: database } });
  await admin.close();
  const client = createClient({
    url: proxy.url,
    ...serverCredentials,
    database,
    log: { level: ClickHouseLogLevel.OFF },
  });
  const warehouse: Warehouse = { client, kind: "server", location: `proxy to ${url}`, close: () => client.close() };
  await migrate(client);
  return {
    proxy,
    warehouse,
    async close() {
      proxy.start();
      await client.command({ query: "DROP DATABASE IF EXISTS {db:Identifier}", query_params: { db: database } });
      await warehouse.close();
      await proxy.close();
    },
  };
}
