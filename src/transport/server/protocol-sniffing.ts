// Which protocol a connection speaks, from its first bytes: the HTTP/2
// connection preface (prior knowledge, h2c) or anything else, HTTP/1.1.
import type { Socket } from "node:net";

const preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

export interface ProtocolSniffing {
  /** A connection must send its first bytes within this, or it is closed. */
  firstRequestTimeoutMs: number;
  /** Takes a connection that began with something else than the preface, paused with its first bytes unread again. */
  http1(socket: Socket): void;
  /**
   * Takes a connection that began with the whole preface, paused with its first bytes unread again: the HTTP/2
   * session reads them itself and then takes over the socket's handle, so it must not be resumed.
   */
  http2(socket: Socket): void;
}

/** Reads `socket`'s first bytes and hands it, with them unread, to the server of its protocol. */
export function sniffProtocol(socket: Socket, sniffing: ProtocolSniffing): void {
  socket.setTimeout(sniffing.firstRequestTimeoutMs, () => socket.destroy());
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const n = Math.min(head.length, preface.length);
    const isHttp2 = head.subarray(0, n).equals(preface.subarray(0, n));
    if (isHttp2 && head.length < preface.length) return; // wait for the whole preface
    socket.off("data", onData);
    socket.pause();
    socket.setTimeout(0);
    socket.unshift(head);
    if (isHttp2) sniffing.http2(socket);
    else sniffing.http1(socket);
  };
  socket.on("data", onData);
  socket.on("error", () => socket.destroy());
}
