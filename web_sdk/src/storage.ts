/**
 * What the script keeps in the browser: localStorage entries and first-party cookies, behind
 * helpers that never throw (storage can be disabled, full, or refused to a sandboxed frame) and
 * that say whether a write held. The keys and lifetimes are listed in docs/web-sdk-wire.md.
 */

export const KEYS = {
  webId: "_attr_wid",
  optOut: "_attr_optout",
  consent: "_attr_consent",
  visit: "_attr_visit",
  queue: "_attr_q",
  bannerDismissed: "_attr_banner_dismissed",
} as const;

/** 395 days: 13 months, under Chrome's 400-day cap on a cookie's lifetime. */
export const COOKIE_MAX_AGE_S = 395 * 86400;

export type Store = {
  get(key: string): string | null;
  /** True when the value can be read back. */
  set(key: string, value: string): boolean;
  del(key: string): void;
};

export function localStore(w: Window & typeof globalThis): Store {
  // Reading window.localStorage itself throws when the browser blocks site data.
  const area = (): globalThis.Storage | null => {
    try {
      return w.localStorage;
    } catch {
      return null;
    }
  };
  return {
    get(key) {
      try {
        return area()?.getItem(key) ?? null;
      } catch {
        return null;
      }
    },
    set(key, value) {
      try {
        const store = area();
        if (!store) return false;
        store.setItem(key, value);
        return store.getItem(key) === value;
      } catch {
        return false;
      }
    },
    del(key) {
      try {
        area()?.removeItem(key);
      } catch {
        // nothing to remove where nothing can be stored
      }
    },
  };
}

export function readJson<T>(store: Store, key: string): T | null {
  try {
    return JSON.parse(store.get(key) || "null") as T | null;
  } catch {
    return null;
  }
}

function cookieRead(doc: Document, name: string): string | null {
  try {
    for (const pair of doc.cookie.split(";")) {
      const at = pair.indexOf("=");
      if (pair.slice(0, at).trim() === name) return decodeURIComponent(pair.slice(at + 1).trim());
    }
  } catch {
    // a sandboxed document throws on document.cookie
  }
  return null;
}

function cookieWrite(
  doc: Document,
  name: string,
  value: string,
  maxAge: number,
  domain: string,
  secure: boolean,
): void {
  try {
    doc.cookie =
      `${name}=${encodeURIComponent(value)}; path=/; max-age=${maxAge}; samesite=lax` +
      (domain ? `; domain=${domain}` : "") +
      (secure ? "; secure" : "");
  } catch {
    // as in cookieRead
  }
}

/**
 * The site's registrable domain (`shop.example.co.uk` -> `example.co.uk`), found without a public
 * suffix list: a browser refuses a cookie set on a public suffix, so the shortest suffix of the
 * host that keeps a probe cookie is the registrable domain. "" (a host-only cookie) for an IP
 * address, a one-label host such as `localhost`, or when no suffix keeps the probe.
 */
export function registrableDomain(doc: Document, hostname: string): string {
  if (!hostname.includes(".") || hostname.includes(":") || /^[\d.]+$/.test(hostname)) return "";
  const labels = hostname.split(".");
  for (let first = labels.length - 2; first >= 0; first--) {
    const domain = labels.slice(first).join(".");
    cookieWrite(doc, "_attr_probe", "1", 10, domain, false);
    if (cookieRead(doc, "_attr_probe") === "1") {
      cookieWrite(doc, "_attr_probe", "", 0, domain, false);
      return domain;
    }
  }
  return "";
}

export type CookieJar = {
  get(name: string): string | null;
  set(name: string, value: string): boolean;
  del(name: string): void;
};

/** First-party cookies on the registrable domain, 13 months, SameSite=Lax, Secure on https. */
export function cookieJar(w: Window & typeof globalThis): CookieJar {
  const doc = w.document;
  const secure = w.location.protocol === "https:";
  let domain: string | undefined;
  // Probed on first write only: under requireConsent nothing is written before consent.
  const site = () => (domain ??= registrableDomain(doc, w.location.hostname));
  return {
    get: (name) => cookieRead(doc, name),
    set(name, value) {
      cookieWrite(doc, name, value, COOKIE_MAX_AGE_S, site(), secure);
      return cookieRead(doc, name) === value;
    },
    del(name) {
      cookieWrite(doc, name, "", 0, site(), secure);
      cookieWrite(doc, name, "", 0, "", secure);
    },
  };
}
