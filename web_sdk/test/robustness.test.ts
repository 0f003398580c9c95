/** Whatever the page or the browser does, the script never throws into the page. */

import { describe, expect, test, vi } from "vitest";
import { newBrowser, openPage, sdkOn, settle, type Win } from "./page";

function quiet(win: Win) {
  return vi.spyOn(win.console, "warn").mockImplementation(() => {});
}

function everyCall(api: ReturnType<typeof sdkOn>) {
  api.track("purchase", { amount: 1, currency: "USD" });
  api.identify("c-1");
  api.setConsent({ ad_user_data: true, ad_personalization: true });
  api.getWebId();
  api.getAttribution();
  api.appLink({ link: "https://go.shop.example/x" });
  api.hideBanner();
  return api.showBanner();
}

describe("the script never throws", () => {
  test("when fetch throws at once or the service answers garbage", async () => {
    for (const broken of [
      () => {
        throw new Error("blocked by an extension");
      },
      async () => ({ status: 200, ok: true, json: async () => JSON.parse("<html>") }),
      async () => ({ status: 500, ok: false, json: async () => null }),
    ]) {
      const browser = newBrowser();
      browser.network.fetch.mockImplementation(broken as never);
      const win = openPage("https://shop.example/", browser);
      quiet(win);
      const api = sdkOn(win);
      await expect(api.init({ key: "k" })).resolves.toBeNull();
      await expect(everyCall(api)).resolves.toBe(false);
      await settle();
    }
  });

  test("without fetch (sendBeacon sends) and without either", async () => {
    const browser = newBrowser();
    const win = openPage("https://shop.example/", browser);
    const beacon = vi.fn((_url: string, _body: string) => true);
    (win as unknown as { fetch: unknown }).fetch = undefined;
    Object.defineProperty(win.navigator, "sendBeacon", { configurable: true, value: beacon });
    const api = sdkOn(win);
    await api.init({ key: "k" });
    api.track("purchase");
    await settle();
    expect(beacon.mock.calls.map((call) => new URL(call[0]).pathname)).toEqual([
      "/api/v1/web/visits",
      "/api/v1/web/events",
    ]);
    expect(JSON.parse(beacon.mock.calls[1][1]).event_name).toBe("purchase");

    const bareWin = openPage("https://shop.example/", newBrowser());
    (bareWin as unknown as { fetch: unknown }).fetch = undefined;
    Object.defineProperty(bareWin.navigator, "sendBeacon", { configurable: true, value: undefined });
    const bare = sdkOn(bareWin);
    await expect(bare.init({ key: "k" })).resolves.toBeNull();
    bare.track("purchase");
    await settle();
    expect(JSON.parse(bareWin.localStorage.getItem("_attr_q") || "[]")).toHaveLength(2); // kept for later
  });

  test("when localStorage and cookies are unavailable: nothing is measured", async () => {
    const browser = newBrowser();
    const win = openPage("https://shop.example/", browser);
    Object.defineProperty(win, "localStorage", {
      configurable: true,
      get() {
        throw new DOMException("denied", "SecurityError");
      },
    });
    Object.defineProperty(win.document, "cookie", {
      configurable: true,
      get() {
        throw new DOMException("sandboxed", "SecurityError");
      },
      set() {
        throw new DOMException("sandboxed", "SecurityError");
      },
    });
    const warn = quiet(win);
    const api = sdkOn(win);
    await expect(api.init({ key: "k" })).resolves.toBeNull();
    await expect(everyCall(api)).resolves.toBe(false);
    api.optOut();
    await settle();
    expect(browser.network.requests).toEqual([]);
    expect(api.getWebId()).toBeNull();
    expect(warn).toHaveBeenCalledWith(
      "Attribution: this browser keeps neither localStorage nor cookies: nothing is measured",
    );
  });

  test("when localStorage is full, the cookie keeps the web id", async () => {
    const browser = newBrowser();
    const win = openPage("https://shop.example/", browser);
    Object.defineProperty(win, "localStorage", {
      configurable: true,
      get: () => ({
        getItem: () => null,
        setItem() {
          throw new DOMException("full", "QuotaExceededError");
        },
        removeItem() {},
      }),
    });
    const api = sdkOn(win);
    await api.init({ key: "k" });
    api.track("x");
    await settle();
    expect(api.getWebId()).toMatch(/^[0-9a-f-]{36}$/);
    expect(browser.network.to("/api/v1/web/events")).toHaveLength(1);
  });

  test("when the page calls it wrongly", async () => {
    const browser = newBrowser();
    const win = openPage("https://shop.example/", browser);
    const warn = quiet(win);
    const api = sdkOn(win) as unknown as Record<string, (...args: unknown[]) => unknown>;
    await expect(api.init()).resolves.toBeNull();
    await expect(api.init(null)).resolves.toBeNull();
    await expect(api.init({ key: "" })).resolves.toBeNull();
    await api.init({ key: "k" });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const [name, args] of [
      ["track", []],
      ["track", [42]],
      ["track", ["ok", "not an object"]],
      ["track", ["ok", cyclic]],
      ["identify", [null]],
      ["identify", [""]],
      ["setConsent", [null]],
      ["setConsent", ["yes"]],
      ["showBanner", ["top"]],
      ["appLink", [null]],
      ["appLink", [{ link: "javascript:alert(1)" }]],
    ] as const) {
      expect(() => api[name](...args)).not.toThrow();
    }
    await settle();
    expect(browser.network.to("/api/v1/web/events")).toEqual([]);
    expect(browser.network.to("/api/v1/web/identify")).toEqual([]);
    expect(api.appLink({ link: "javascript:alert(1)" })).toBeNull();
    expect(warn).toHaveBeenCalledWith("Attribution: track needs an event name");
  });

  test("a script loaded without a known origin needs an endpoint", async () => {
    const win = openPage("https://shop.example/", newBrowser());
    quiet(win);
    const { createAttribution } = await import("../src/sdk");
    await expect(createAttribution(win).init({ key: "k" })).resolves.toBeNull();
  });
});
