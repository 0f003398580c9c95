/** The script's start: the pre-load queue, and the auto-start from its own script tag. */

import { describe, expect, test } from "vitest";
import { boot } from "../src/boot";
import { newBrowser, openPage, settle, SCRIPT, type Win } from "./page";

function scriptTag(win: Win, data: Record<string, string> = {}): HTMLScriptElement {
  const script = win.document.createElement("script") as unknown as HTMLScriptElement;
  script.src = SCRIPT;
  for (const [name, value] of Object.entries(data)) script.setAttribute(`data-${name}`, value);
  return script;
}

const global = (win: Win) => win as unknown as { Attribution: any };

describe("the pre-load queue", () => {
  test("runs the calls made before the load in their order", async () => {
    const browser = newBrowser();
    const win = openPage("https://shop.example/", browser);
    global(win).Attribution = global(win).Attribution || { q: [] };
    global(win).Attribution.q.push(["track", "first"]);
    global(win).Attribution.q.push(["init", { key: "queued-key" }]);
    global(win).Attribution.q.push(["track", "purchase", { amount: 9.99, currency: "USD" }]);
    global(win).Attribution.q.push(["identify", "c-9"]);

    boot(win, scriptTag(win));
    await settle();

    expect(browser.network.requests.map((r) => r.body.event_name ?? r.url.pathname)).toEqual([
      "/api/v1/web/visits",
      "first",
      "purchase",
      "/api/v1/web/identify",
    ]);
    expect(browser.network.requests[2].body.properties).toEqual({ amount: 9.99, currency: "USD" });
    expect(browser.network.requests.every((r) => r.url.searchParams.get("key") === "queued-key")).toBe(true);
  });

  test("after the load, a pushed call runs at once", async () => {
    const browser = newBrowser();
    const win = openPage("https://shop.example/", browser);
    global(win).Attribution = { q: [] };
    boot(win, scriptTag(win, { key: "k" }));
    global(win).Attribution.q.push(["track", "late"]);
    await settle();
    expect(browser.network.to("/api/v1/web/events")[0].body.event_name).toBe("late");
  });

  test("an unknown call is skipped with a warning", async () => {
    const win = openPage("https://shop.example/", newBrowser());
    global(win).Attribution = { q: [["nonsense", 1], "not an array", ["track", "ok"]] };
    const warned: string[] = [];
    win.console.warn = (message: string) => void warned.push(message);
    expect(() => boot(win, scriptTag(win))).not.toThrow();
    expect(warned).toEqual(["Attribution: unknown call nonsense", "Attribution: unknown call undefined"]);
  });
});

describe("the script tag", () => {
  test("with data-key starts the script, against the service it came from", async () => {
    const browser = newBrowser();
    const win = openPage("https://shop.example/?utm_source=ads", browser);
    const api = boot(win, scriptTag(win, { key: "tag-key" }));
    await settle();
    expect(api).toBe(global(win).Attribution);
    expect(browser.network.requests[0].url.href).toBe("https://svc.test/api/v1/web/visits?key=tag-key");
  });

  test("with data-require-consent waits for consent", async () => {
    const browser = newBrowser();
    const win = openPage("https://shop.example/", browser);
    boot(win, scriptTag(win, { key: "k", "require-consent": "" }));
    await settle();
    expect(browser.network.requests).toEqual([]);
    global(win).Attribution.setConsent({ ad_user_data: true, ad_personalization: true });
    await settle();
    expect(browser.network.to("/api/v1/web/visits")).toHaveLength(1);
  });

  test("gives way to an init in the queue", async () => {
    const browser = newBrowser();
    const win = openPage("https://shop.example/", browser);
    global(win).Attribution = { q: [["init", { key: "k", requireConsent: true }]] };
    boot(win, scriptTag(win, { key: "k" }));
    await settle();
    expect(browser.network.requests).toEqual([]);
  });

  test("included twice runs once", async () => {
    const browser = newBrowser();
    const win = openPage("https://shop.example/", browser);
    const first = boot(win, scriptTag(win, { key: "k" }));
    expect(boot(win, scriptTag(win, { key: "k" }))).toBeNull();
    await settle();
    expect(global(win).Attribution).toBe(first);
    expect(browser.network.to("/api/v1/web/visits")).toHaveLength(1);
  });

  test("without a key, the script waits for init", async () => {
    const browser = newBrowser();
    const win = openPage("https://shop.example/", browser);
    boot(win, scriptTag(win));
    await settle();
    expect(browser.network.requests).toEqual([]);
    await global(win).Attribution.init({ key: "k" });
    expect(browser.network.requests).toHaveLength(1);
  });
});
