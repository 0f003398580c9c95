/** The web id: how it is made, where it is kept, and how long. */

import { describe, expect, test } from "vitest";
import { uuid } from "../src/identity";
import { registrableDomain } from "../src/storage";
import { newBrowser, openPage, sdkOn, settle } from "./page";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("uuid", () => {
  test("is crypto.randomUUID where there is one", () => {
    expect(uuid({ randomUUID: () => "11111111-2222-4333-8444-555555555555" } as unknown as Crypto)).toBe(
      "11111111-2222-4333-8444-555555555555",
    );
  });

  test("is a v4 UUID from getRandomValues on an http page (no randomUUID)", () => {
    const fill = (bytes: Uint8Array) => bytes.fill(0xff);
    expect(uuid({ getRandomValues: fill } as unknown as Crypto)).toBe("ffffffff-ffff-4fff-bfff-ffffffffffff");
    const drawn = new Set(
      Array.from({ length: 50 }, () =>
        uuid({ getRandomValues: (b: Uint8Array) => crypto.getRandomValues(b) } as Crypto),
      ),
    );
    expect(drawn.size).toBe(50);
    drawn.forEach((id) => expect(id).toMatch(V4));
  });

  test("is still a v4 UUID without any crypto", () => {
    expect(uuid(undefined)).toMatch(V4);
  });
});

describe("the registrable domain", () => {
  test("is the shortest suffix of the host that keeps a cookie", () => {
    const win = openPage("https://www.shop.example.co.uk/", newBrowser());
    expect(registrableDomain(win.document, "www.shop.example.co.uk")).toBe("example.co.uk");
    expect(win.document.cookie).toBe(""); // the probe is removed
  });

  test("is none (a host-only cookie) for localhost and IP addresses", () => {
    const win = openPage("http://localhost:8080/", newBrowser());
    expect(registrableDomain(win.document, "localhost")).toBe("");
    expect(registrableDomain(win.document, "127.0.0.1")).toBe("");
    expect(registrableDomain(win.document, "::1")).toBe("");
  });
});

describe("the web id", () => {
  test("is kept in localStorage and in a 13-month first-party cookie on the registrable domain", async () => {
    const browser = newBrowser();
    const api = sdkOn(openPage("https://www.shop.example/", browser));
    await api.init({ key: "k" });
    const webId = api.getWebId();
    expect(webId).toMatch(V4);
    expect(browser.storage.get("_attr_wid")).toBe(webId);
    const [cookie] = browser.jar.cookies.filter((c) => c.name === "_attr_wid");
    expect(cookie).toMatchObject({ value: webId, domain: "shop.example", hostOnly: false });
    expect(cookie.attributes).toContain(`max-age=${395 * 86400}`);
    expect(cookie.attributes).toContain("samesite=lax");
    expect(cookie.attributes).toContain("secure");
    expect(browser.jar.cookies.map((c) => c.name)).toEqual(["_attr_wid"]);
  });

  test("has no Secure attribute on an http page", async () => {
    const browser = newBrowser();
    await sdkOn(openPage("http://shop.example/", browser)).init({ key: "k" });
    expect(browser.jar.cookies[0].attributes).not.toContain("secure");
  });

  test("stays the same on later pages", async () => {
    const browser = newBrowser();
    const first = sdkOn(openPage("https://shop.example/", browser));
    await first.init({ key: "k" });
    const later = sdkOn(openPage("https://shop.example/cart", browser));
    await later.init({ key: "k" });
    await settle();
    expect(later.getWebId()).toBe(first.getWebId());
    const visits = browser.network.to("/api/v1/web/visits");
    expect(visits.map((v) => v.body.web_id)).toEqual([first.getWebId(), first.getWebId()]);
  });

  test("is shared by the site's subdomains through the cookie", async () => {
    const browser = newBrowser();
    const www = sdkOn(openPage("https://www.shop.example/", browser));
    await www.init({ key: "k" });
    browser.storage.clear(); // another subdomain: another localStorage
    const app = sdkOn(openPage("https://app.shop.example/", browser));
    await app.init({ key: "k" });
    expect(app.getWebId()).toBe(www.getWebId());
  });

  test("survives the loss of either store", async () => {
    const browser = newBrowser();
    const first = sdkOn(openPage("https://shop.example/", browser));
    await first.init({ key: "k" });
    browser.jar.cookies = [];
    const second = sdkOn(openPage("https://shop.example/2", browser));
    await second.init({ key: "k" });
    expect(second.getWebId()).toBe(first.getWebId());
    expect(browser.jar.cookies.find((c) => c.name === "_attr_wid")?.value).toBe(first.getWebId());
  });

  test("is replaced when the stored value is not a UUID", async () => {
    const browser = newBrowser();
    browser.storage.set("_attr_wid", "<script>");
    const api = sdkOn(openPage("https://shop.example/", browser));
    await api.init({ key: "k" });
    expect(api.getWebId()).toMatch(V4);
  });
});
