// The close of an HTTP/1.1 connection whose request body was left unread (a
// refused upload): Node would destroy the socket right after the answer, and
// a client still sending then gets a reset, often before it reads the status.
// Instead the answer is sent, the sending side shut, and what the client still
// sends is read and dropped for a bounded time and size before the socket goes.
import type { Socket } from "node:net";

/** How long and how much a refused upload is read on after its answer. */
export const lingerBounds = { ms: 2000, bytes: 1024 * 1024 } as const;

const lingering = new WeakSet<Socket>();

/** Makes the next close Node asks of `socket` (destroySoon) linger as above. */
export function lingerOnClose(socket: Socket): void {
  if (lingering.has(socket)) return;
  lingering.add(socket);
  socket.destroySoon = () => {
    if (socket.destroyed) return;
    if (socket.writable) socket.end();
    const readBefore = socket.bytesRead;
    const stop = () => {
      clearTimeout(timer);
      clearInterval(sizeCheck);
      if (!socket.destroyed) socket.destroy();
    };
    const timer = setTimeout(stop, lingerBounds.ms);
    // The HTTP parser may read the socket natively (no 'data' events): its byte count is what is watched.
    const sizeCheck = setInterval(() => {
      if (socket.bytesRead - readBefore > lingerBounds.bytes) stop();
    }, 100);
    socket.once("end", stop);
    socket.once("close", stop);
    socket.resume();
  };
}
