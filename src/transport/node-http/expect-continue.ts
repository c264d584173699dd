// `Expect: 100-continue` on HTTP/1.1 held back until a route that checks its caller first admits the request,
// so that a refused client sends no body.
import type { ServerResponse } from "node:http";
import type { HttpRequest, HttpResponse } from "./request-handler.js";

/** Requests whose 100 Continue waits for their route to admit them. */
const held = new WeakSet<object>();

/** Holds back the 100 Continue of `request` until sendContinue; the server calls this for such routes. */
export function holdContinue(request: HttpRequest): void {
  held.add(request);
}

/** Sends the 100 Continue held back for `request`, if any: its route admitted it and reads its body next. */
export function sendContinue(request: HttpRequest, response: HttpResponse): void {
  if (!held.delete(request)) return;
  const http1 = response as unknown as ServerResponse;
  if (!http1.headersSent) http1.writeContinue();
}
