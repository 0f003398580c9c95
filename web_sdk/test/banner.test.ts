/** The banner: its rendering in a shadow root, and showBanner()'s way from config to click. */

import { describe, expect, test, vi } from "vitest";
import { createBanner } from "../src/banner/banner";
import type { BannerView } from "../src/banner/contract";
import type { BannerConfig } from "../src/wire";
import { newBrowser, openPage, sdkOn, settle, visitAnswer, type Browser, type Win } from "./page";

const ANDROID =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36";
const DESKTOP =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";

const view = (over: Partial<BannerView> = {}): BannerView => ({
  title: "Shop",
  body: "Better in the app",
  button: "Open",
  iconUrl: "https://cdn.shop.example/icon.png",
  link: "https://go.shop.example/Ab3xYz?web_id=x",
  position: "top",
  cssUrl: "https://svc.test/sdk/web/banner-v1.css",
  onClick: vi.fn(),
  onClose: vi.fn(),
  ...over,
});

const shadowOf = (win: Win) => win.document.querySelector("[data-attribution-banner]")?.shadowRoot ?? null;

/** Every element of the banner, the host included, has no style attribute. */
function styleAttributes(win: Win): number {
  const host = win.document.querySelector("[data-attribution-banner]")!;
  return [host, ...Array.from(host.shadowRoot!.querySelectorAll("*"))].filter((e) => e.hasAttribute("style"))
    .length;
}

describe("the banner module", () => {
  test("renders text as text in a shadow root, styled by a constructable stylesheet", () => {
    const win = openPage("https://shop.example/", newBrowser());
    const banner = createBanner(win);
    expect(banner.show(view({ title: '<img src=x onerror="alert(1)">', position: "bottom" }))).toBe(true);
    const root = shadowOf(win)!;
    expect(root.querySelector(".title")!.textContent).toBe('<img src=x onerror="alert(1)">');
    expect(root.querySelectorAll("img")).toHaveLength(1); // the icon only
    expect(root.querySelector("a.go")!.getAttribute("href")).toBe("https://go.shop.example/Ab3xYz?web_id=x");
    expect(root.querySelector("a.go")!.textContent).toBe("Open");
    expect(root.querySelector(".banner")!.hasAttribute("hidden")).toBe(false);
    expect(root.adoptedStyleSheets).toHaveLength(1);
    expect(root.querySelector("link, style")).toBeNull();
    expect(win.document.querySelector("[data-attribution-banner]")!.getAttribute("data-position")).toBe(
      "bottom",
    );
    expect(styleAttributes(win)).toBe(0);
  });

  test("without constructable stylesheets, links its stylesheet and shows once it loaded", () => {
    const win = openPage("https://shop.example/", newBrowser());
    (win as unknown as { CSSStyleSheet: unknown }).CSSStyleSheet = function () {
      throw new TypeError("Illegal constructor");
    };
    createBanner(win).show(view());
    const root = shadowOf(win)!;
    const link = root.querySelector("link")!;
    expect(link.getAttribute("rel")).toBe("stylesheet");
    expect(link.getAttribute("href")).toBe("https://svc.test/sdk/web/banner-v1.css");
    // happy-dom answers the stylesheet's load (with "load") as the banner joins the page
    expect(root.querySelector(".banner")!.hasAttribute("hidden")).toBe(false);
    expect(styleAttributes(win)).toBe(0);
  });

  test("shows nothing when the site's CSP refuses the stylesheet", () => {
    const win = openPage("https://shop.example/", newBrowser());
    (win as unknown as { CSSStyleSheet: unknown }).CSSStyleSheet = undefined;
    createBanner(win).show(view());
    shadowOf(win)!.querySelector("link")!.dispatchEvent(new win.Event("error"));
    expect(win.document.querySelector("[data-attribution-banner]")).toBeNull();
  });

  test("calls back on a click and on close, which removes it", () => {
    const win = openPage("https://shop.example/", newBrowser());
    const shown = view();
    const banner = createBanner(win);
    banner.show(shown);
    expect(banner.show(shown)).toBe(true); // one banner at a time
    expect(win.document.querySelectorAll("[data-attribution-banner]")).toHaveLength(1);
    const root = shadowOf(win)!;
    root.querySelector("a.go")!.addEventListener("click", (event) => event.preventDefault());
    (root.querySelector("a.go") as HTMLElement).click();
    expect(shown.onClick).toHaveBeenCalledOnce();
    (root.querySelector("button.close") as HTMLElement).click();
    expect(shown.onClose).toHaveBeenCalledOnce();
    expect(win.document.querySelector("[data-attribution-banner]")).toBeNull();
  });

  test("leaves the icon out when there is none", () => {
    const win = openPage("https://shop.example/", newBrowser());
    createBanner(win).show(view({ iconUrl: null }));
    expect(shadowOf(win)!.querySelector("img")).toBeNull();
  });
});

const CONFIG: BannerConfig = {
  title: "Shop",
  body: "Better in the app",
  button: "Open",
  icon_url: "https://cdn.shop.example/icon.png",
  platforms: ["android", "ios"],
  dismiss_days: 3,
  deep_link_value: "product/{path}",
  carry_visit_source: true,
  link: "https://go.shop.example/Ab3xYz",
};

/** The service: a paid visit, the banner config; and the banner module served beside the script. */
function service(
  browser: Browser,
  config: BannerConfig | null = CONFIG,
  visitExtra: Record<string, unknown> = {},
) {
  browser.network.answer = (r) => {
    if (r.url.pathname === "/api/v1/web/banner")
      return { status: 200, body: { success: true, data: config } };
    if (r.url.pathname === "/api/v1/web/visits")
      return visitAnswer(
        r.body.web_id,
        { mediaSource: "newsletter", campaignId: "spring", matchType: "utm", isOrganic: false },
        visitExtra,
      );
    return { status: 200, body: { success: true, data: {} } };
  };
}

function bannerPage(browser: Browser, url: string, userAgent = ANDROID) {
  const win = openPage(url, browser, { userAgent });
  const loaded: string[] = [];
  const append = win.document.head.appendChild.bind(win.document.head);
  win.document.head.appendChild = ((node: Node) => {
    const src = (node as HTMLScriptElement).src;
    if (src) {
      loaded.push(src);
      (win as unknown as Record<string, unknown>).__attributionBannerV1 = createBanner(win);
    }
    return append(node);
  }) as typeof win.document.head.appendChild;
  return { win, loaded };
}

describe("showBanner", () => {
  test("fetches the banner, loads the module from beside the script and reports the view", async () => {
    const browser = newBrowser();
    service(browser);
    const { win, loaded } = bannerPage(browser, "https://shop.example/shoes/red");
    const api = sdkOn(win);
    await api.init({ key: "k" });
    expect(await api.showBanner()).toBe(true);
    await settle();

    const [fetched] = browser.network.to("/api/v1/web/banner");
    expect(fetched.method).toBe("GET");
    expect(Object.fromEntries(fetched.url.searchParams)).toEqual({ key: "k", web_id: api.getWebId() });
    expect(loaded).toEqual(["https://svc.test/sdk/web/banner-v1.js"]);
    const link = new URL(shadowOf(win)!.querySelector("a.go")!.getAttribute("href")!);
    expect(Object.fromEntries(link.searchParams)).toEqual({
      web_id: api.getWebId(),
      web_via: "banner",
      pid: "newsletter",
      c: "spring",
      deep_link_value: "product/shoes/red",
    });
    const [seen] = browser.network.to("/api/v1/web/banner-events");
    expect(seen.body).toMatchObject({ web_id: api.getWebId(), kind: "view" });
    expect(seen.body.event_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("asked for before the visit was answered, credits the visit's source all the same", async () => {
    const browser = newBrowser();
    service(browser);
    const { win } = bannerPage(browser, "https://shop.example/?utm_source=newsletter");
    const api = sdkOn(win);
    const shown = api.showBanner();
    void api.init({ key: "k" });
    expect(await shown).toBe(true);
    const link = new URL(shadowOf(win)!.querySelector("a.go")!.getAttribute("href")!);
    expect([link.searchParams.get("pid"), link.searchParams.get("c")]).toEqual(["newsletter", "spring"]);
  });

  test("reports a click, and a close that keeps it away for dismiss_days", async () => {
    const browser = newBrowser();
    service(browser);
    const { win } = bannerPage(browser, "https://shop.example/");
    const api = sdkOn(win);
    await api.init({ key: "k" });
    await api.showBanner({ title: "Our app", position: "bottom" });
    const root = shadowOf(win)!;
    expect(root.querySelector(".title")!.textContent).toBe("Our app");
    root.querySelector("a.go")!.addEventListener("click", (event) => event.preventDefault());
    (root.querySelector("a.go") as HTMLElement).click();
    (root.querySelector("button.close") as HTMLElement).click();
    await settle();
    expect(browser.network.to("/api/v1/web/banner-events").map((r) => r.body.kind)).toEqual([
      "view",
      "click",
      "dismiss",
    ]);
    const until = Number(browser.storage.get("_attr_banner_dismissed"));
    expect(until - Date.now()).toBeGreaterThan(3 * 86400000 - 60000);

    const later = bannerPage(browser, "https://shop.example/next");
    const again = sdkOn(later.win);
    await again.init({ key: "k" });
    expect(await again.showBanner()).toBe(false);
    expect(later.loaded).toEqual([]);
    expect(browser.network.to("/api/v1/web/banner")).toHaveLength(1); // not asked again
  });

  test("shows nothing on a platform the banner does not name, or without a banner", async () => {
    const browser = newBrowser();
    service(browser);
    const desktop = bannerPage(browser, "https://shop.example/", DESKTOP);
    const onDesktop = sdkOn(desktop.win);
    await onDesktop.init({ key: "k" });
    expect(await onDesktop.showBanner()).toBe(false);
    expect(desktop.loaded).toEqual([]);

    service(browser, null);
    const none = bannerPage(browser, "https://shop.example/");
    const withoutBanner = sdkOn(none.win);
    await withoutBanner.init({ key: "k" });
    expect(await withoutBanner.showBanner()).toBe(false);
  });

  test("refuses a banner whose link is not http(s)", async () => {
    const browser = newBrowser();
    service(browser, { ...CONFIG, link: "javascript:alert(1)" });
    const { win, loaded } = bannerPage(browser, "https://shop.example/");
    const api = sdkOn(win);
    await api.init({ key: "k" });
    expect(await api.showBanner()).toBe(false);
    expect(loaded).toEqual([]);
  });

  test("is shown by itself when the visit's answer brings the banner", async () => {
    const browser = newBrowser();
    service(browser, CONFIG, { banner: CONFIG });
    const { win } = bannerPage(browser, "https://shop.example/");
    const api = sdkOn(win);
    const answer = await api.init({ key: "k" });
    await settle();
    expect(answer).not.toHaveProperty("banner");
    expect(shadowOf(win)).not.toBeNull();
    expect(browser.network.to("/api/v1/web/banner")).toEqual([]);
  });

  test("hideBanner removes it", async () => {
    const browser = newBrowser();
    service(browser);
    const { win } = bannerPage(browser, "https://shop.example/");
    const api = sdkOn(win);
    await api.init({ key: "k" });
    await api.showBanner();
    api.hideBanner();
    await settle();
    expect(win.document.querySelector("[data-attribution-banner]")).toBeNull();
    expect(await api.showBanner()).toBe(true);
  });
});
