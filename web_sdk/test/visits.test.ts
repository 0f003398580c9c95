/** The visit every page load posts, its answer, and the calls that follow it. */

import { describe, expect, test } from "vitest";
import { newBrowser, openPage, sdkOn, settle, SERVICE, visitAnswer } from "./page";

const KEY = "wk_live_abc";

describe("a page load", () => {
  test("posts a visit with the page's URL, referrer and click parameters as text/plain JSON", async () => {
    const browser = newBrowser();
    const win = openPage(
      "https://www.shop.example/landing?attribution_click_id=clk-1&utm_source=newsletter&utm_medium=email&utm_campaign=spring&utm_term=t&utm_content=c&gclid=g1&fbclid=f1&ttclid=t1&other=x#section",
      browser,
      { referrer: "https://news.example/article" },
    );
    await sdkOn(win).init({ key: KEY });
    await settle();

    const [visit] = browser.network.requests;
    expect(visit.method).toBe("POST");
    expect(visit.url.origin + visit.url.pathname).toBe(`${SERVICE}/api/v1/web/visits`);
    expect(visit.url.searchParams.get("key")).toBe(KEY);
    expect(typeof visit.init.body).toBe("string"); // a string body is sent as text/plain: no preflight
    expect(visit.init.headers).toBeUndefined();
    expect(visit.init.keepalive).toBe(true);
    expect(visit.init.credentials).toBe("omit");
    expect(visit.body).toMatchObject({
      url: "https://www.shop.example/landing?attribution_click_id=clk-1&utm_source=newsletter&utm_medium=email&utm_campaign=spring&utm_term=t&utm_content=c&gclid=g1&fbclid=f1&ttclid=t1&other=x",
      referrer: "https://news.example/article",
      attribution_click_id: "clk-1",
      utm_source: "newsletter",
      utm_medium: "email",
      utm_campaign: "spring",
      utm_term: "t",
      utm_content: "c",
      gclid: "g1",
      fbclid: "f1",
      ttclid: "t1",
      sdk_version: "0.0.0-test",
    });
    expect(visit.body.web_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(visit.body.visit_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(visit.body.visit_id).not.toBe(visit.body.web_id);
    expect(typeof visit.body.timestamp).toBe("number");
    expect(visit.body).not.toHaveProperty("other");
    expect(visit.body).not.toHaveProperty("consent");
    expect(visit.body).not.toHaveProperty("gpc");
  });

  test("an organic visit carries no click parameters", async () => {
    const browser = newBrowser();
    await sdkOn(openPage("https://shop.example/", browser)).init({ key: KEY });
    await settle();
    expect(Object.keys(browser.network.requests[0].body).sort()).toEqual(
      ["referrer", "sdk_version", "timestamp", "url", "visit_id", "web_id"].sort(),
    );
  });

  test("init resolves with the answer's data, which getAttribution returns on this and later pages", async () => {
    const browser = newBrowser();
    browser.network.answer = (r) =>
      visitAnswer(r.body.web_id, {
        mediaSource: "newsletter",
        campaignId: "spring",
        matchType: "utm",
        isOrganic: false,
      });
    const first = sdkOn(openPage("https://shop.example/?utm_source=newsletter&utm_campaign=spring", browser));
    const answer = await first.init({ key: KEY });
    expect(answer).toEqual({
      webId: first.getWebId(),
      isNew: true,
      attribution: { mediaSource: "newsletter", campaignId: "spring", matchType: "utm", isOrganic: false },
    });
    expect(first.getAttribution()).toEqual(answer);

    browser.network.answer = () => "offline";
    const later = sdkOn(openPage("https://shop.example/next", browser));
    expect(later.getAttribution()).toEqual(answer);
    expect(await later.init({ key: KEY })).toEqual(answer); // unanswered: the stored one
  });

  test("the endpoint defaults to the script's origin and can be given", async () => {
    const browser = newBrowser();
    await sdkOn(openPage("https://shop.example/", browser)).init({
      key: KEY,
      endpoint: "https://other.test/",
    });
    await settle();
    expect(browser.network.requests[0].url.href).toBe(`https://other.test/api/v1/web/visits?key=${KEY}`);
  });

  test("a second init is the first one", async () => {
    const browser = newBrowser();
    const api = sdkOn(openPage("https://shop.example/", browser));
    const first = api.init({ key: KEY });
    const second = api.init({ key: "another" });
    expect(await second).toEqual(await first);
    await settle();
    expect(browser.network.to("/api/v1/web/visits")).toHaveLength(1);
  });

  test("track, identify and setConsent post their bodies with the web id", async () => {
    const browser = newBrowser();
    const api = sdkOn(openPage("https://shop.example/", browser));
    await api.init({ key: KEY });
    api.track("purchase", { amount: 9.99, currency: "USD" });
    api.identify("customer-7");
    api.setConsent({ ad_user_data: true, ad_personalization: false });
    await settle();
    const webId = api.getWebId();

    const [event] = browser.network.to("/api/v1/web/events");
    expect(event.url.searchParams.get("key")).toBe(KEY);
    expect(event.body).toMatchObject({
      web_id: webId,
      event_name: "purchase",
      properties: { amount: 9.99, currency: "USD" },
    });
    expect(event.body.event_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof event.body.timestamp).toBe("number");
    expect(browser.network.to("/api/v1/web/identify")[0].body).toEqual({
      web_id: webId,
      customer_user_id: "customer-7",
    });
    expect(browser.network.to("/api/v1/web/consent")[0].body).toMatchObject({
      web_id: webId,
      ad_user_data: true,
      ad_personalization: false,
    });
  });

  test("the same consent given again on a later page is not posted again", async () => {
    const browser = newBrowser();
    const first = sdkOn(openPage("https://shop.example/", browser));
    await first.init({ key: KEY });
    first.setConsent({ ad_user_data: true, ad_personalization: true });
    const later = sdkOn(openPage("https://shop.example/next", browser));
    await later.init({ key: KEY });
    later.setConsent({ ad_user_data: true, ad_personalization: true });
    await settle();
    expect(browser.network.to("/api/v1/web/consent")).toHaveLength(1);
    expect(browser.network.to("/api/v1/web/visits")[1].body.consent).toEqual({
      ad_user_data: true,
      ad_personalization: true,
    });
  });

  test("calls made before init wait for it and keep the time they were made", async () => {
    const browser = newBrowser();
    const api = sdkOn(openPage("https://shop.example/", browser));
    api.track("viewed");
    const madeAt = Date.now();
    await settle();
    expect(browser.network.requests).toHaveLength(0);
    await api.init({ key: KEY });
    await settle();
    const [event] = browser.network.to("/api/v1/web/events");
    expect(event.body.event_name).toBe("viewed");
    expect(event.body.timestamp).toBeLessThanOrEqual(madeAt);
  });
});
