/**
 * window.Attribution: the public API of the web script (web_sdk/README.md) over one browser's
 * state. It owns the order of things: nothing is stored or sent before init, nor before
 * setConsent when init asked for consent, nor ever again after optOut; calls made before the
 * start wait in memory and run once it has started. Every public method catches everything: a
 * page never sees an exception from here, only a console warning.
 */

import { isWebId, uuid, webIdForget, webIdLoad, webIdSave } from "./identity";
import { appLinkUrl, bannerLinkUrl, httpUrl, platformOf, type AppLinkOptions } from "./links";
import { pageUrl, visitParams, MAX_URL } from "./params";
import { cookieJar, KEYS, localStore, readJson } from "./storage";
import { BANNER_GLOBAL, type BannerModule } from "./banner/contract";
import { createTransport, warn, type Transport } from "./transport";
import type { BannerConfig, Consent, VisitAnswer, VisitBody } from "./wire";

export const SDK_VERSION = __SDK_VERSION__;

export const PATHS = {
  visits: "/api/v1/web/visits",
  events: "/api/v1/web/events",
  identify: "/api/v1/web/identify",
  consent: "/api/v1/web/consent",
  banner: "/api/v1/web/banner",
  bannerEvents: "/api/v1/web/banner-events",
} as const;

/** Calls waiting for the start (init, or consent): a page that never starts keeps no more. */
export const PENDING_MAX = 50;

export type InitOptions = { key: string; endpoint?: string; requireConsent?: boolean };

export type BannerOptions = {
  title?: string;
  body?: string;
  button?: string;
  deep_link_value?: string;
  position?: "top" | "bottom";
};

export type Api = {
  init(options: InitOptions): Promise<VisitAnswer | null>;
  track(eventName: string, properties?: Record<string, unknown>): void;
  identify(customerUserId: string): void;
  setConsent(consent: Partial<Consent>): void;
  optOut(): void;
  getWebId(): string | null;
  getAttribution(): VisitAnswer | null;
  showBanner(options?: BannerOptions): Promise<boolean>;
  hideBanner(): void;
  appLink(options?: AppLinkOptions): string | null;
  /** The pre-load queue after the load: a pushed [method, ...args] runs at once. */
  q: { push(...calls: unknown[]): number };
  version: string;
};

const flag = (value: unknown): boolean | null => (typeof value === "boolean" ? value : null);
const isObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === "object" && !Array.isArray(value);

export function createAttribution(w: Window & typeof globalThis, scriptSrc?: string): Api {
  const store = localStore(w);
  const jar = cookieJar(w);
  const nav = w.navigator;

  let key = "";
  let endpoint = "";
  let assets = "";
  let initialized: Promise<VisitAnswer | null> | null = null;
  let settleInit: (answer: VisitAnswer | null) => void = () => {};
  let waitingForConsent = false;
  let webId: string | null = null;
  let transport: Transport | null = null;
  let pending: Array<[run: () => void, drop: () => void]> = [];
  let optedOut = store.get(KEYS.optOut) === "1" || jar.get(KEYS.optOut) === "1";
  let unmeasured = false; // the browser keeps nothing: the start failed and never comes
  let consent = readJson<Consent>(store, KEYS.consent);
  let visit: VisitAnswer | null = null;
  let bannerBase: string | undefined;
  let bannerModule: Promise<BannerModule | null> | null = null;
  let bannerShowing: Promise<boolean> | null = null;
  let bannerShown = false;
  let bannerTurn = 0;

  /** Runs `run` once started; `drop` when it never will (opt-out, or too many waiting). */
  function whenStarted(run: () => void, drop: () => void = () => {}): void {
    if (optedOut || unmeasured) drop();
    else if (transport) run();
    else if (pending.length < PENDING_MAX) pending.push([run, drop]);
    else drop();
  }

  // Resolves once the page's visit is on its way: other sends follow it, so the server meets a
  // new web id's install before anything else of it.
  let visitSent: Promise<void> = Promise.resolve();
  // Resolves once the page's visit is answered (or failed): the banner credits its source.
  let visitAnswered: Promise<void> = Promise.resolve();
  const post = (path: string, body: object) => {
    const [sending, id] = [transport, webId];
    if (sending && id) void visitSent.then(() => sending.post(path, { web_id: id, ...body }));
  };

  function start(): void {
    waitingForConsent = false;
    const id = webIdLoad(store, jar) || uuid(w.crypto);
    if (!webIdSave(store, jar, id)) {
      warn(w, "this browser keeps neither localStorage nor cookies: nothing is measured");
      unmeasured = true;
      settleInit(null);
      pending.forEach(([, drop]) => drop());
      pending = [];
      return;
    }
    webId = id;
    transport = createTransport(w, store, endpoint, key, () => optedOut);
    const body: VisitBody = {
      web_id: id,
      visit_id: uuid(w.crypto),
      timestamp: Date.now(),
      url: pageUrl(w.location.href),
      referrer: (w.document.referrer || "").slice(0, MAX_URL),
      ...visitParams(w.location.href),
      sdk_version: SDK_VERSION,
    };
    if (consent) body.consent = consent;
    if ((nav as { globalPrivacyControl?: boolean }).globalPrivacyControl === true) body.gpc = true;
    const sending = transport;
    let dispatched = () => {};
    visitSent = new Promise((resolve) => (dispatched = resolve));
    // Sends kept from earlier pages go first: the first visit of a web id is its install.
    visitAnswered = sending
      .flush()
      .then(() => {
        try {
          return sending.post<VisitAnswer>(PATHS.visits, body); // the request is made here
        } finally {
          dispatched();
        }
      })
      .then((answer) => {
        if (isObject(answer) && !optedOut) {
          const { banner, ...kept } = answer;
          visit = kept;
          store.set(KEYS.visit, JSON.stringify(kept));
          settleInit(kept);
          if (isObject(banner)) void bannerRequest({}, banner);
        } else settleInit(api.getAttribution());
      })
      .catch(() => settleInit(null));
    const waiting = pending;
    pending = [];
    waiting.forEach(([run]) => run());
  }

  function loadBanner(): Promise<BannerModule | null> {
    const loaded = () => (w as unknown as Record<string, BannerModule | undefined>)[BANNER_GLOBAL] || null;
    bannerModule ??= new Promise((resolve) => {
      if (loaded()) return resolve(loaded());
      // From beside the main script, so the site's script-src that let it in lets this in too.
      const script = w.document.createElement("script");
      script.src = assets + "banner-v1.js";
      script.async = true;
      script.onload = () => resolve(loaded());
      script.onerror = () => {
        bannerModule = null;
        resolve(null);
      };
      (w.document.head || w.document.documentElement).appendChild(script);
    });
    return bannerModule;
  }

  async function bannerShow(options: BannerOptions, given?: BannerConfig): Promise<boolean> {
    const turn = bannerTurn;
    if (bannerShown) return true;
    if (optedOut || !transport || !webId) return false;
    if (Number(store.get(KEYS.bannerDismissed)) > Date.now()) return false; // asks nothing then
    const [config] = await Promise.all([
      given || transport.get<BannerConfig>(PATHS.banner, { web_id: webId }),
      visitAnswered,
    ]);
    if (!isObject(config)) return false;
    bannerBase = config.link;
    const platforms = Array.isArray(config.platforms) ? config.platforms : [];
    if (!platforms.includes(platformOf(nav.userAgent || "", nav.maxTouchPoints || 0))) return false;
    const link = bannerLinkUrl(
      config,
      api.getAttribution()?.attribution || null,
      options.deep_link_value ?? config.deep_link_value,
      {
        webId,
        pathname: w.location.pathname,
      },
    );
    if (!link) return false;
    const banner = await loadBanner();
    if (!banner || optedOut || turn !== bannerTurn) return false;
    const report = (kind: "view" | "click" | "dismiss") =>
      post(PATHS.bannerEvents, { kind, event_id: uuid(w.crypto), timestamp: Date.now() });
    bannerShown = banner.show({
      title: options.title ?? config.title ?? "",
      body: options.body ?? config.body ?? "",
      button: options.button ?? config.button ?? "",
      iconUrl: httpUrl(config.icon_url)?.href || null,
      link,
      position: options.position === "bottom" ? "bottom" : "top",
      cssUrl: assets + "banner-v1.css",
      onClick: () => report("click"),
      onClose() {
        bannerShown = false;
        const days = Number(config.dismiss_days) || 0;
        if (days > 0) store.set(KEYS.bannerDismissed, String(Date.now() + days * 86400000));
        report("dismiss");
      },
    });
    if (bannerShown) report("view");
    return bannerShown;
  }

  /** Shows the banner once started; `given` is the config a visit's answer brought. */
  function bannerRequest(options: BannerOptions, given?: BannerConfig): Promise<boolean> {
    return new Promise((resolve) =>
      whenStarted(
        () => {
          bannerShowing ??= bannerShow(options, given)
            .catch(() => false)
            .finally(() => (bannerShowing = null));
          bannerShowing.then(resolve);
        },
        () => resolve(false),
      ),
    );
  }

  const methods = {
    init(options: InitOptions): Promise<VisitAnswer | null> {
      if (initialized) return initialized;
      const given = isObject(options) ? options : ({} as InitOptions);
      const where = given.endpoint || (scriptSrc ? new URL(scriptSrc).origin : "");
      if (typeof given.key !== "string" || !given.key.trim() || !httpUrl(where)) {
        warn(w, "init needs {key} and, when the script was not loaded from the service, {endpoint}");
        return Promise.resolve(null);
      }
      key = given.key.trim();
      endpoint = where.replace(/\/+$/, "");
      assets = scriptSrc ? new URL(".", scriptSrc).href : endpoint + "/sdk/web/";
      initialized = new Promise((resolve) => (settleInit = resolve));
      if (optedOut) settleInit(null);
      else if (given.requireConsent && !consent) waitingForConsent = true;
      else start();
      return initialized;
    },

    track(eventName: string, properties?: Record<string, unknown>): void {
      if (typeof eventName !== "string" || !eventName) return warn(w, "track needs an event name");
      if (properties != null && !isObject(properties)) return warn(w, "track's properties must be an object");
      // Fixed at the call: an event waiting for consent keeps the time it happened.
      const event = {
        event_name: eventName,
        properties: JSON.parse(JSON.stringify(properties || {})) as object,
      };
      const at = { timestamp: Date.now(), event_id: uuid(w.crypto) };
      whenStarted(() => {
        const gpc = (nav as { globalPrivacyControl?: boolean }).globalPrivacyControl === true;
        post(PATHS.events, { ...event, ...at, ...(gpc ? { gpc } : {}) });
      });
    },

    identify(customerUserId: string): void {
      const id = typeof customerUserId === "number" ? String(customerUserId) : customerUserId;
      if (typeof id !== "string" || !id) return warn(w, "identify needs a customer user id");
      whenStarted(() => post(PATHS.identify, { customer_user_id: id }));
    },

    setConsent(given: Partial<Consent>): void {
      if (optedOut) return;
      const next: Consent = {
        ad_user_data: flag(given?.ad_user_data),
        ad_personalization: flag(given?.ad_personalization),
      };
      const changed = JSON.stringify(next) !== JSON.stringify(consent);
      consent = next;
      // The visitor answered the site's prompt: from here on the script may keep things.
      store.set(KEYS.consent, JSON.stringify(next));
      if (waitingForConsent)
        start(); // its visit carries the consent
      else if (changed) post(PATHS.consent, { ...next, timestamp: Date.now() });
    },

    optOut(): void {
      optedOut = true;
      bannerTurn++;
      bannerModule?.then((banner) => banner?.hide());
      webIdForget(store, jar);
      for (const name of [KEYS.consent, KEYS.visit, KEYS.queue, KEYS.bannerDismissed]) store.del(name);
      store.set(KEYS.optOut, "1");
      jar.set(KEYS.optOut, "1");
      webId = null;
      visit = null;
      consent = null;
      waitingForConsent = false;
      pending.forEach(([, drop]) => drop());
      pending = [];
      settleInit(null);
    },

    getWebId: (): string | null => (optedOut ? null : webId),

    getAttribution(): VisitAnswer | null {
      if (optedOut) return null;
      const stored = visit || readJson<VisitAnswer>(store, KEYS.visit);
      return isObject(stored) && isWebId(stored.webId as string) ? stored : null;
    },

    showBanner: (options?: BannerOptions): Promise<boolean> =>
      bannerRequest(isObject(options) ? options : {}),

    hideBanner(): void {
      bannerTurn++;
      bannerShown = false;
      bannerModule?.then((banner) => banner?.hide());
    },

    appLink(options?: AppLinkOptions): string | null {
      const chosen = isObject(options) ? (options as AppLinkOptions) : {};
      return appLinkUrl(
        chosen.link || bannerBase,
        chosen,
        { webId: methods.getWebId(), pathname: w.location.pathname },
        "app_link",
      );
    },
  };

  const fallbacks: Record<string, unknown> = {
    init: null,
    showBanner: false,
    getWebId: null,
    getAttribution: null,
    appLink: null,
  };
  const api = { version: SDK_VERSION } as Api;
  for (const [name, method] of Object.entries(methods)) {
    const fallback = fallbacks[name] ?? undefined;
    const async = name === "init" || name === "showBanner";
    (api as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      try {
        const result = (method as (...a: unknown[]) => unknown)(...args);
        return async ? (result as Promise<unknown>).catch(() => fallback) : result;
      } catch (error) {
        warn(w, `${name} failed: ${error}`);
        return async ? Promise.resolve(fallback) : fallback;
      }
    };
  }
  api.q = {
    push(...calls: unknown[]) {
      for (const call of calls) {
        const [name, ...args] = Array.isArray(call) ? call : [];
        const method = (api as unknown as Record<string, unknown>)[name as string];
        if (typeof method === "function") method(...args);
        else warn(w, `unknown call ${String(name)}`);
      }
      return 0;
    },
  };
  return api;
}
