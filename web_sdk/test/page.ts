/**
 * A browser page for the tests: a happy-dom window at a URL, with a cookie jar that behaves like a
 * browser's (it refuses a cookie on a public suffix, which the registrable-domain probe relies
 * on, and shares domain cookies between subdomains), and a fake network that records each request
 * and answers what the test says. A "next page load" is a new window over the same storage and
 * cookies.
 */

import { Window } from "happy-dom";
import { vi } from "vitest";
import { createAttribution, type Api } from "../src/sdk";

/** The page as the SDK sees it: a DOM window (happy-dom's, typed as the standard one). */
export type Win = globalThis.Window & typeof globalThis;

const PUBLIC_SUFFIXES = new Set(["com", "test", "uk", "co.uk", "example"]);

type Cookie = { name: string; value: string; domain: string; hostOnly: boolean; attributes: string };

/** One browser's cookies, shared by its pages. */
export class CookieJar {
  cookies: Cookie[] = [];

  visible(host: string): Cookie[] {
    return this.cookies.filter((c) =>
      c.hostOnly ? c.domain === host : host === c.domain || host.endsWith("." + c.domain),
    );
  }

  write(host: string, text: string): void {
    const [pair, ...attributes] = text.split(";").map((part) => part.trim());
    const at = pair.indexOf("=");
    const name = pair.slice(0, at);
    const value = pair.slice(at + 1);
    let domain = host;
    let hostOnly = true;
    let expired = false;
    for (const attribute of attributes) {
      const [key, given = ""] = attribute.split("=");
      if (key.toLowerCase() === "domain") {
        domain = given.replace(/^\./, "").toLowerCase();
        hostOnly = false;
        if (PUBLIC_SUFFIXES.has(domain) || !(host === domain || host.endsWith("." + domain))) return;
      }
      if (key.toLowerCase() === "max-age" && Number(given) <= 0) expired = true;
    }
    this.cookies = this.cookies.filter(
      (c) => !(c.name === name && c.domain === domain && c.hostOnly === hostOnly),
    );
    if (!expired) this.cookies.push({ name, value, domain, hostOnly, attributes: attributes.join("; ") });
  }
}

export type Request = { url: URL; method: string; body: any; init: RequestInit };

/** What the fake service answers: a status and a JSON body, or "offline" (fetch rejects). */
export type Answer = { status: number; body?: unknown } | "offline";

export class Network {
  requests: Request[] = [];
  answer: (request: Request) => Answer = () => ({ status: 200, body: { success: true, data: {} } });

  fetch = vi.fn(async (url: string, init: RequestInit = {}) => {
    const request: Request = {
      url: new URL(url),
      method: init.method || "GET",
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
      init,
    };
    this.requests.push(request);
    const answer = this.answer(request);
    if (answer === "offline") throw new TypeError("Failed to fetch");
    return { status: answer.status, ok: answer.status < 300, json: async () => answer.body };
  });

  to(path: string): Request[] {
    return this.requests.filter((r) => r.url.pathname === path);
  }
}

export type Browser = { storage: Map<string, string>; jar: CookieJar; network: Network };

export const newBrowser = (): Browser => ({
  storage: new Map(),
  jar: new CookieJar(),
  network: new Network(),
});

export type PageOptions = { userAgent?: string; referrer?: string; gpc?: boolean; maxTouchPoints?: number };

/** A page load at `url` in `browser`: its storage and cookies are the browser's. */
export function openPage(url: string, browser: Browser, options: PageOptions = {}): Win {
  const win = new Window({
    url,
    settings: {
      ...(options.userAgent ? { navigator: { userAgent: options.userAgent } } : {}),
      disableJavaScriptFileLoading: true,
      handleDisabledFileLoadingAsSuccess: true,
    },
  } as ConstructorParameters<typeof Window>[0]) as unknown as Win;
  const host = win.location.hostname;
  Object.defineProperty(win.document, "cookie", {
    configurable: true,
    get: () =>
      browser.jar
        .visible(host)
        .map((c) => `${c.name}=${c.value}`)
        .join("; "),
    set: (text: string) => browser.jar.write(host, text),
  });
  const storage = {
    getItem: (k: string) => (browser.storage.has(k) ? browser.storage.get(k)! : null),
    setItem: (k: string, v: string) => void browser.storage.set(k, String(v)),
    removeItem: (k: string) => void browser.storage.delete(k),
  };
  Object.defineProperty(win, "localStorage", { configurable: true, get: () => storage });
  Object.defineProperty(win.document, "referrer", { configurable: true, get: () => options.referrer ?? "" });
  if (options.gpc !== undefined)
    Object.defineProperty(win.navigator, "globalPrivacyControl", {
      configurable: true,
      get: () => options.gpc,
    });
  if (options.maxTouchPoints !== undefined)
    Object.defineProperty(win.navigator, "maxTouchPoints", {
      configurable: true,
      get: () => options.maxTouchPoints,
    });
  (win as unknown as { fetch: unknown }).fetch = browser.network.fetch;
  return win;
}

export const SERVICE = "https://svc.test";
export const SCRIPT = `${SERVICE}/sdk/web/v1.js`;

/** The script as it starts on a page: the SDK over the page's window, loaded from the service. */
export const sdkOn = (win: Win): Api => createAttribution(win, SCRIPT);

/** Lets the SDK's promise chains (fetch answers, the queue's replay) run to their end. */
export const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

export const visitAnswer = (
  webId: string,
  attribution: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) => ({
  status: 201,
  body: {
    success: true,
    data: {
      webId,
      isNew: true,
      attribution: {
        mediaSource: null,
        campaignId: null,
        matchType: "organic",
        isOrganic: true,
        ...attribution,
      },
      ...extra,
    },
  },
});
