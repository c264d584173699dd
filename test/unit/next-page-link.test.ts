// The next page's Link header: the target as sent, with the page token set.
import { describe, expect, it } from "vitest";
import { nextPageLink } from "../../src/transport/http/next-page-link.js";

describe("nextPageLink", () => {
  it.each([
    ["/api/endpoints/logs.all", "</api/endpoints/logs.all?page_token=T>"],
    ["/api/endpoints/logs.all?project=p", "</api/endpoints/logs.all?project=p&page_token=T>"],
    ["/api/endpoints/logs.all?page_token=old&format=csv", "</api/endpoints/logs.all?page_token=T&format=csv>"],
    ["/api/endpoints/logs.all?project=a%20b&page%5Ftoken=old", "</api/endpoints/logs.all?project=a%20b&page_token=T>"],
    ["/api/endpoints/query/abc?&project=p&", "</api/endpoints/query/abc?project=p&page_token=T>"],
  ])("links %s to %s", (url, target) => {
    expect(nextPageLink(url, "page_token", "T")).toBe(`${target}; rel="next"`);
  });

  it("percent-encodes what a token would need escaped", () => {
    expect(nextPageLink("/x", "page_token", "a+b/c=")).toBe('</x?page_token=a%2Bb%2Fc%3D>; rel="next"');
  });
});
