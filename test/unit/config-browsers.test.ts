// CORS_ORIGINS and EXPLORER: what browsers may do, read from the environment.
import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../../src/config/index.js";

describe("readConfig for browsers", () => {
  it("allows every origin and serves the explorer by default", () => {
    const config = readConfig({});
    expect(config.corsOrigins).toBe("*");
    expect(config.explorer).toBe(true);
  });

  it("reads CORS_ORIGINS as a list of origins and EXPLORER=0 as off", () => {
    const config = readConfig({
      CORS_ORIGINS: " https://app.example.com, http://localhost:3000 ,",
      EXPLORER: "0",
    });
    expect(config.corsOrigins).toEqual(["https://app.example.com", "http://localhost:3000"]);
    expect(config.explorer).toBe(false);
    expect(readConfig({ CORS_ORIGINS: "*" }).corsOrigins).toBe("*");
  });

  it("names each CORS_ORIGINS entry that is not an origin, and a bad EXPLORER", () => {
    expect(() =>
      readConfig({
        CORS_ORIGINS: "https://app.example.com/,example.com,ftp://files.example.com,*,https://App.example.com",
        EXPLORER: "yes",
      }),
    ).toThrow(
      new ConfigError([
        'CORS_ORIGINS: "https://app.example.com/" is not an origin: write https://app.example.com (no path, no trailing slash)',
        'CORS_ORIGINS: "example.com" is not an origin such as https://app.example.com',
        'CORS_ORIGINS: "ftp://files.example.com" is not an http or https origin',
        "CORS_ORIGINS: * stands alone, not in a list",
        'CORS_ORIGINS: "https://App.example.com" is not an origin: write https://app.example.com (no path, no trailing slash)',
        'EXPLORER must be 0 or 1, got "yes"',
      ]),
    );
  });
});
