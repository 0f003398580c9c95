/** Sends that fail: the stored retry queue, its order, its bounds, and what is never retried. */

import { describe, expect, test, vi } from "vitest";
import { QUEUE_MAX, QUEUE_MAX_AGE_MS, type QueueEntry } from "../src/transport";
import { newBrowser, openPage, sdkOn, settle } from "./page";

const stored = (storage: Map<string, string>): QueueEntry[] => JSON.parse(storage.get("_attr_q") || "[]");

describe("a send that fails", () => {
  test("offline, is stored and sent first, in order, on the next page load", async () => {
    const browser = newBrowser();
    browser.network.answer = () => "offline";
    const first = sdkOn(openPage("https://shop.example/?utm_source=ads", browser));
    await first.init({ key: "k" });
    first.track("one");
    first.track("two");
    await settle();
    expect(stored(browser.storage).map((e) => e.p)).toEqual([
      "/api/v1/web/visits",
      "/api/v1/web/events",
      "/api/v1/web/events",
    ]);

    browser.network.answer = () => ({ status: 202, body: { success: true, data: {} } });
    browser.network.requests = [];
    const later = sdkOn(openPage("https://shop.example/next", browser));
    await later.init({ key: "k" });
    await settle();
    const sent = browser.network.requests.map((r) => r.body.event_name || r.body.url);
    expect(sent).toEqual(["https://shop.example/?utm_source=ads", "one", "two", "https://shop.example/next"]);
    expect(browser.storage.has("_attr_q")).toBe(false);
  });

  test("is sent with the key of the page that sends it", async () => {
    const browser = newBrowser();
    browser.network.answer = () => "offline";
    await sdkOn(openPage("https://shop.example/", browser)).init({ key: "old-key" });
    await settle();
    browser.network.answer = () => ({ status: 200, body: { success: true, data: {} } });
    browser.network.requests = [];
    await sdkOn(openPage("https://shop.example/", browser)).init({ key: "new-key" });
    await settle();
    expect(browser.network.requests.map((r) => r.url.searchParams.get("key"))).toEqual([
      "new-key",
      "new-key",
    ]);
  });

  test("with 429 or a 5xx is kept; with another 4xx is dropped with a warning", async () => {
    const browser = newBrowser();
    const status: Record<string, number> = { a: 429, b: 503, c: 400, d: 403, e: 408 };
    browser.network.answer = (r) =>
      r.body.event_name
        ? { status: status[r.body.event_name], body: { success: false, error: { message: "no" } } }
        : { status: 201 };
    const win = openPage("https://shop.example/", browser);
    const warn = vi.spyOn(win.console, "warn").mockImplementation(() => {});
    const api = sdkOn(win);
    await api.init({ key: "k" });
    for (const name of Object.keys(status)) api.track(name);
    await settle();
    expect(stored(browser.storage).map((e) => (e.b as { event_name: string }).event_name)).toEqual([
      "a",
      "b",
      "e",
    ]);
    expect(warn).toHaveBeenCalledWith("Attribution: /api/v1/web/events: 400 no");
    expect(warn).toHaveBeenCalledWith("Attribution: /api/v1/web/events: 403 no");
  });

  test("replay stops at the first entry that still fails and keeps the rest in order", async () => {
    const browser = newBrowser();
    browser.network.answer = () => "offline";
    const first = sdkOn(openPage("https://shop.example/", browser));
    await first.init({ key: "k" });
    ["one", "two", "three"].forEach((name) => first.track(name));
    await settle();

    browser.network.answer = (r) =>
      r.body.event_name === "two" ? { status: 503 } : { status: 200, body: { success: true, data: {} } };
    browser.network.requests = [];
    await sdkOn(openPage("https://shop.example/next", browser)).init({ key: "k" });
    await settle();
    expect(browser.network.requests.map((r) => r.body.event_name ?? "visit")).toEqual([
      "visit",
      "one",
      "two",
      "visit",
    ]);
    expect(stored(browser.storage).map((e) => (e.b as { event_name: string }).event_name)).toEqual([
      "two",
      "three",
    ]);
  });
});

describe("the queue", () => {
  test(`keeps the newest ${QUEUE_MAX} entries`, async () => {
    const browser = newBrowser();
    browser.network.answer = () => "offline";
    const api = sdkOn(openPage("https://shop.example/", browser));
    await api.init({ key: "k" });
    for (let i = 0; i < QUEUE_MAX + 10; i++) api.track(`e${i}`);
    await settle();
    const entries = stored(browser.storage);
    expect(entries).toHaveLength(QUEUE_MAX);
    expect((entries[0].b as { event_name: string }).event_name).toBe("e10");
    expect((entries[QUEUE_MAX - 1].b as { event_name: string }).event_name).toBe(`e${QUEUE_MAX + 9}`);
  });

  test("forgets entries older than a week", async () => {
    const browser = newBrowser();
    const old = {
      i: "x",
      p: "/api/v1/web/events",
      b: { event_name: "stale" },
      t: Date.now() - QUEUE_MAX_AGE_MS - 1,
    };
    const fresh = { i: "y", p: "/api/v1/web/events", b: { event_name: "fresh" }, t: Date.now() - 1000 };
    browser.storage.set("_attr_q", JSON.stringify([old, fresh]));
    await sdkOn(openPage("https://shop.example/", browser)).init({ key: "k" });
    await settle();
    expect(browser.network.requests.map((r) => r.body.event_name ?? "visit")).toEqual(["fresh", "visit"]);
  });

  test("ignores a stored value that is not a queue", async () => {
    const browser = newBrowser();
    browser.storage.set("_attr_q", "{not json");
    await sdkOn(openPage("https://shop.example/", browser)).init({ key: "k" });
    await settle();
    expect(browser.network.to("/api/v1/web/visits")).toHaveLength(1);
  });

  test("takes the sends still under way when the page goes", async () => {
    const browser = newBrowser();
    browser.network.fetch.mockImplementation(() => new Promise(() => {})); // never answered
    const win = openPage("https://shop.example/", browser);
    const api = sdkOn(win);
    void api.init({ key: "k" });
    api.track("leaving");
    await settle();
    expect(browser.storage.has("_attr_q")).toBe(false);
    win.dispatchEvent(new win.Event("pagehide"));
    expect(stored(browser.storage).map((e) => e.p)).toEqual(["/api/v1/web/visits", "/api/v1/web/events"]);
  });

  test("is sent when the browser comes back online", async () => {
    const browser = newBrowser();
    browser.network.answer = () => "offline";
    const win = openPage("https://shop.example/", browser);
    await sdkOn(win).init({ key: "k" });
    await settle();
    browser.network.answer = () => ({ status: 200, body: { success: true, data: {} } });
    win.dispatchEvent(new win.Event("online"));
    await settle();
    expect(browser.storage.has("_attr_q")).toBe(false);
  });

  test("a body over the size limit is not sent", async () => {
    const browser = newBrowser();
    const win = openPage("https://shop.example/", browser);
    vi.spyOn(win.console, "warn").mockImplementation(() => {});
    const api = sdkOn(win);
    await api.init({ key: "k" });
    api.track("huge", { blob: "x".repeat(70000) });
    await settle();
    expect(browser.network.to("/api/v1/web/events")).toEqual([]);
    expect(browser.storage.has("_attr_q")).toBe(false);
  });
});
