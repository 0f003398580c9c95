/**
 * The web id: a random UUID v4 kept in localStorage and in the first-party cookie `_attr_wid`
 * (which subdomains of the site share). No third-party cookie and no fingerprint: a browser that
 * keeps neither is a new visitor on every page, so the script measures nothing there.
 */

import { KEYS, type CookieJar, type Store } from "./storage";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** crypto.randomUUID exists in secure contexts only; an http page draws the bytes itself. */
export function uuid(c: Crypto | undefined): string {
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  const bytes = new Uint8Array(16);
  if (c && typeof c.getRandomValues === "function") c.getRandomValues(bytes);
  else for (let i = 0; i < 16; i++) bytes[i] = (Math.random() * 256) | 0;
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => (b + 256).toString(16).slice(1)).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const isWebId = (value: string | null): value is string => !!value && UUID.test(value);

/** The cookie first: it is the one a sister subdomain may have set. */
export function webIdLoad(store: Store, jar: CookieJar): string | null {
  const fromCookie = jar.get(KEYS.webId);
  if (isWebId(fromCookie)) return fromCookie;
  const fromStorage = store.get(KEYS.webId);
  return isWebId(fromStorage) ? fromStorage : null;
}

/** Written to both on every page (which renews the cookie); true when either one kept it. */
export function webIdSave(store: Store, jar: CookieJar, webId: string): boolean {
  const stored = store.set(KEYS.webId, webId);
  return jar.set(KEYS.webId, webId) || stored;
}

export function webIdForget(store: Store, jar: CookieJar): void {
  store.del(KEYS.webId);
  jar.del(KEYS.webId);
}
