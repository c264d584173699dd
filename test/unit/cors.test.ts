// withCors's hand-over of an answer's CORS headers, with a fake request and
// response: the handler is given them instead of finding them set, and a
// handler that throws before answering leaves them set for the server's 500.
import { describe, expect, it } from "vitest";
import { withCors } from "../../src/transport/cors.js";
import type { AnswerHeaders, HttpRequest, HttpResponse } from "../../src/transport/node-http/index.js";

function fakes(origin?: string) {
  const request = { method: "GET", url: "/api/endpoints", headers: origin === undefined ? {} : { origin } };
  const set: Record<string, string> = {};
  const response = { headersSent: false, setHeader: (name: string, value: string) => void (set[name] = value) };
  return { request: request as unknown as HttpRequest, response: response as unknown as HttpResponse, set };
}

describe("withCors", () => {
  it("hands the handler the headers of an answer to any origin, setting none", () => {
    const { request, response, set } = fakes("https://page.example");
    let given: AnswerHeaders | undefined;
    withCors((_request, _response, answerHeaders) => void (given = answerHeaders))(request, response);
    expect(given).toEqual({
      "access-control-allow-origin": "*",
      "access-control-expose-headers": expect.stringContaining("X-Cache"),
      "timing-allow-origin": "*",
    });
    expect(set).toEqual({});
  });

  it("with a list of origins, hands Vary: Origin first, and the rest only to an allowed origin", () => {
    const given: AnswerHeaders[] = [];
    const handler = withCors((_request, _response, answerHeaders) => void given.push(answerHeaders!), {
      origins: ["https://page.example"],
    });
    for (const origin of ["https://page.example", "https://other.example", undefined]) {
      const { request, response } = fakes(origin);
      handler(request, response);
    }
    expect(Object.keys(given[0]!)).toEqual([
      "vary",
      "access-control-allow-origin",
      "access-control-expose-headers",
      "timing-allow-origin",
    ]);
    expect(given[0]!["access-control-allow-origin"]).toBe("https://page.example");
    expect(given.slice(1)).toEqual([{ vary: "Origin" }, { vary: "Origin" }]);
  });

  it("sets them when the handler throws before answering, for the 500 the server writes", () => {
    const { request, response, set } = fakes("https://page.example");
    const failing = withCors(() => {
      throw new Error("boom");
    });
    expect(() => failing(request, response)).toThrow("boom");
    expect(set["access-control-allow-origin"]).toBe("*");
    expect(set["timing-allow-origin"]).toBe("*");
  });
});
