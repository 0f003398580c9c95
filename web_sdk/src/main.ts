/**
 * The entry of the served script, /sdk/web/v1.js (boot.ts says what it does on load).
 */

import { boot } from "./boot";

/**
 * An async script's currentScript is itself while it first runs; when a loader ran it another way
 * the tag is found by its path.
 */
function ownScript(d: Document): HTMLScriptElement | null {
  const current = d.currentScript;
  if (current instanceof HTMLScriptElement) return current;
  return d.querySelector<HTMLScriptElement>('script[src*="/sdk/web/v1"]');
}

try {
  boot(window, ownScript(document));
} catch {
  // never into the page
}
