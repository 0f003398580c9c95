/** Web-to-app links: appLink(), the banner's button, the deep link template, the platforms. */

import { describe, expect, test } from "vitest";
import { bannerLinkUrl, deepLinkValue, platformOf } from "../src/links";
import type { BannerConfig } from "../src/wire";
import { newBrowser, openPage, sdkOn, visitAnswer } from "./page";

const ANDROID =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const IPAD_AS_MAC =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";
const WINDOWS =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";

const config = (over: Partial<BannerConfig> = {}): BannerConfig => ({
  title: "Shop",
  body: "Better in the app",
  button: "Open",
  icon_url: null,
  platforms: ["ios", "android"],
  dismiss_days: 7,
  deep_link_value: "product/{path}",
  carry_visit_source: false,
  link: "https://go.shop.example/Ab3xYz",
  ...over,
});

describe("platformOf", () => {
  test("tells Android, iOS (an iPad asking for the desktop site too) and the desktop apart", () => {
    expect(platformOf(ANDROID, 5)).toBe("android");
    expect(platformOf(IPHONE, 5)).toBe("ios");
    expect(platformOf(IPAD_AS_MAC, 5)).toBe("ios");
    expect(platformOf(IPAD_AS_MAC, 0)).toBe("desktop"); // a real Mac
    expect(platformOf(WINDOWS, 0)).toBe("desktop");
    expect(platformOf("", 0)).toBe("desktop");
  });
});

describe("the deep link template", () => {
  test("puts the page's path, without its leading slash, for each {path}", () => {
    expect(deepLinkValue("product/{path}", "/shoes/red")).toBe("product/shoes/red");
    expect(deepLinkValue("{path}?from={path}", "/a")).toBe("a?from=a");
    expect(deepLinkValue("home", "/x")).toBe("home");
    expect(deepLinkValue("p/{path}", "/")).toBe("p/");
  });
});

describe("appLink", () => {
  test("is the given link with the web id, the source, the campaign and the deep link", async () => {
    const browser = newBrowser();
    const api = sdkOn(openPage("https://shop.example/shoes/red?size=42", browser));
    await api.init({ key: "k" });
    const url = new URL(
      api.appLink({
        link: "https://go.shop.example/Ab3xYz?keep=1",
        media_source: "site_button",
        campaign: "summer",
        deep_link_value: "product/{path}",
        params: { af_sub1: "hero", web_id: "forged", n: 2 },
      })!,
    );
    expect(url.origin + url.pathname).toBe("https://go.shop.example/Ab3xYz");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      keep: "1",
      af_sub1: "hero",
      n: "2",
      web_id: api.getWebId(),
      web_via: "app_link",
      pid: "site_button",
      c: "summer",
      deep_link_value: "product/shoes/red",
    });
  });

  test("without a link is the banner's link once a banner was fetched, else null", async () => {
    const browser = newBrowser();
    browser.network.answer = (r) =>
      r.url.pathname === "/api/v1/web/banner"
        ? { status: 200, body: { success: true, data: config({ platforms: [] }) } }
        : visitAnswer(r.body.web_id);
    const api = sdkOn(openPage("https://shop.example/", browser));
    await api.init({ key: "k" });
    expect(api.appLink()).toBeNull();
    expect(await api.showBanner()).toBe(false); // not for this device, but its link is known now
    expect(api.appLink()).toBe(`https://go.shop.example/Ab3xYz?web_id=${api.getWebId()}&web_via=app_link`);
  });

  test("refuses a link that is not http(s)", () => {
    const api = sdkOn(openPage("https://shop.example/", newBrowser()));
    expect(api.appLink({ link: "javascript:alert(1)" })).toBeNull();
    expect(api.appLink({ link: "data:text/html,x" })).toBeNull();
    expect(api.appLink({ link: "/relative" })).toBeNull();
  });
});

describe("the banner's link", () => {
  const ctx = { webId: "0b6f4f9e-8c1a-4d2e-9f3b-2a1c5d7e9f00", pathname: "/shoes/red" };
  const paid = { mediaSource: "newsletter", campaignId: "spring", matchType: "utm", isOrganic: false };

  test("credits web_banner by default", () => {
    const url = new URL(bannerLinkUrl(config(), paid, "product/{path}", ctx)!);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      web_id: ctx.webId,
      web_via: "banner",
      pid: "web_banner",
      deep_link_value: "product/shoes/red",
    });
  });

  test("credits the visit's source and campaign when the banner carries them over", () => {
    const url = new URL(bannerLinkUrl(config({ carry_visit_source: true }), paid, null, ctx)!);
    expect(url.searchParams.get("pid")).toBe("newsletter");
    expect(url.searchParams.get("c")).toBe("spring");
    expect(url.searchParams.has("deep_link_value")).toBe(false);
  });

  test("credits web_banner when carrying over an organic visit", () => {
    const organic = { mediaSource: null, campaignId: null, matchType: "organic", isOrganic: true };
    const url = new URL(bannerLinkUrl(config({ carry_visit_source: true }), organic, null, ctx)!);
    expect(url.searchParams.get("pid")).toBe("web_banner");
    expect(url.searchParams.has("c")).toBe(false);
  });
});
