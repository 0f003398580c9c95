/** Consent, opt-out and Global Privacy Control: what the script keeps and sends, and when not. */

import { describe, expect, test } from "vitest";
import { newBrowser, openPage, sdkOn, settle } from "./page";

describe("with requireConsent", () => {
  test("nothing is stored and nothing is sent until setConsent", async () => {
    const browser = newBrowser();
    const api = sdkOn(openPage("https://shop.example/?utm_source=ads", browser));
    void api.init({ key: "k", requireConsent: true });
    api.track("viewed", { page: 1 });
    api.identify("c-1");
    void api.showBanner();
    await settle();
    expect(browser.network.requests).toEqual([]);
    expect([...browser.storage.keys()]).toEqual([]);
    expect(browser.jar.cookies).toEqual([]);
    expect(api.getWebId()).toBeNull();
    expect(api.getAttribution()).toBeNull();
  });

  test("setConsent starts: the visit carries the consent, then the calls that waited are sent", async () => {
    const browser = newBrowser();
    const api = sdkOn(openPage("https://shop.example/?utm_source=ads", browser));
    const started = api.init({ key: "k", requireConsent: true });
    api.track("viewed");
    api.setConsent({ ad_user_data: true, ad_personalization: false });
    await started;
    await settle();
    expect(browser.network.requests.map((r) => r.url.pathname)).toEqual([
      "/api/v1/web/visits",
      "/api/v1/web/events",
    ]);
    const [visit, event] = browser.network.requests;
    expect(visit.body).toMatchObject({
      utm_source: "ads",
      consent: { ad_user_data: true, ad_personalization: false },
    });
    expect(event.body.web_id).toBe(visit.body.web_id);
    expect(browser.network.to("/api/v1/web/consent")).toEqual([]); // the visit said it
    expect(browser.storage.get("_attr_consent")).toBe('{"ad_user_data":true,"ad_personalization":false}');
  });

  test("a later page starts at once with the consent given before", async () => {
    const browser = newBrowser();
    const first = sdkOn(openPage("https://shop.example/", browser));
    void first.init({ key: "k", requireConsent: true });
    first.setConsent({ ad_user_data: false, ad_personalization: false });
    await settle();
    const later = sdkOn(openPage("https://shop.example/next", browser));
    await later.init({ key: "k", requireConsent: true });
    await settle();
    const visits = browser.network.to("/api/v1/web/visits");
    expect(visits).toHaveLength(2);
    expect(visits[1].body.consent).toEqual({ ad_user_data: false, ad_personalization: false });
  });

  test("flags that are not booleans are sent as not stated", async () => {
    const browser = newBrowser();
    const api = sdkOn(openPage("https://shop.example/", browser));
    void api.init({ key: "k", requireConsent: true });
    api.setConsent({ ad_user_data: "yes" as unknown as boolean });
    await settle();
    expect(browser.network.requests[0].body.consent).toEqual({
      ad_user_data: null,
      ad_personalization: null,
    });
  });
});

describe("optOut", () => {
  test("removes the web id, the cookie and the queue, remembers itself and sends nothing more", async () => {
    const browser = newBrowser();
    browser.network.answer = (r) =>
      r.url.pathname.endsWith("/events") ? "offline" : { status: 201, body: { success: true, data: {} } };
    const api = sdkOn(openPage("https://www.shop.example/", browser));
    await api.init({ key: "k" });
    api.track("failed-send");
    await settle();
    expect(browser.storage.has("_attr_q")).toBe(true);
    const sent = browser.network.requests.length;

    api.optOut();
    api.track("after");
    api.identify("c-1");
    api.setConsent({ ad_user_data: true, ad_personalization: true });
    expect(await api.showBanner()).toBe(false);
    await settle();

    expect(browser.network.requests).toHaveLength(sent);
    expect([...browser.storage.entries()]).toEqual([["_attr_optout", "1"]]);
    expect(browser.jar.cookies.map((c) => [c.name, c.value, c.domain])).toEqual([
      ["_attr_optout", "1", "shop.example"],
    ]);
    expect(api.getWebId()).toBeNull();
    expect(api.getAttribution()).toBeNull();
    expect(api.appLink({ link: "https://go.shop.example/abc" })).toBe(
      "https://go.shop.example/abc?web_via=app_link",
    );
  });

  test("is remembered: a later page, even on another subdomain, sends nothing", async () => {
    const browser = newBrowser();
    const first = sdkOn(openPage("https://www.shop.example/", browser));
    await first.init({ key: "k" });
    first.optOut();
    const sent = browser.network.requests.length;
    browser.storage.clear(); // the other subdomain's storage: only the cookie says it
    const later = sdkOn(openPage("https://app.shop.example/", browser));
    expect(await later.init({ key: "k" })).toBeNull();
    later.track("x");
    await settle();
    expect(browser.network.requests).toHaveLength(sent);
    expect(later.getWebId()).toBeNull();
  });

  test("before consent is kept too, and consent given afterwards does not start", async () => {
    const browser = newBrowser();
    const api = sdkOn(openPage("https://shop.example/", browser));
    const started = api.init({ key: "k", requireConsent: true });
    api.optOut();
    api.setConsent({ ad_user_data: true, ad_personalization: true });
    expect(await started).toBeNull();
    await settle();
    expect(browser.network.requests).toEqual([]);
    expect(browser.storage.get("_attr_optout")).toBe("1");
  });
});

describe("Global Privacy Control", () => {
  test("a browser that sends it says so on the visit and on events", async () => {
    const browser = newBrowser();
    const api = sdkOn(openPage("https://shop.example/", browser, { gpc: true }));
    await api.init({ key: "k" });
    api.track("purchase", { amount: 1, currency: "EUR" });
    await settle();
    expect(browser.network.to("/api/v1/web/visits")[0].body.gpc).toBe(true);
    expect(browser.network.to("/api/v1/web/events")[0].body.gpc).toBe(true);
  });

  test("is left out when the browser does not send it", async () => {
    const browser = newBrowser();
    const api = sdkOn(openPage("https://shop.example/", browser, { gpc: false }));
    await api.init({ key: "k" });
    api.track("purchase");
    await settle();
    expect(browser.network.requests.every((r) => !("gpc" in r.body))).toBe(true);
  });
});
