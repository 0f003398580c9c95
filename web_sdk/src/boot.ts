/**
 * What the served script (/sdk/web/v1.js) does on load: puts the API on window.Attribution,
 * runs the calls the page queued before the load (`window.Attribution = window.Attribution ||
 * {q: []}`, then `Attribution.q.push(["method", ...args])`) in their order, and starts by itself
 * when its script tag carries `data-key` (`data-endpoint`, `data-require-consent`) and no queued
 * call was an init.
 */

import { createAttribution, type Api } from "./sdk";

type Stub = { q?: unknown[]; version?: string };

export function boot(w: Window & typeof globalThis, script: HTMLScriptElement | null): Api | null {
  const global = w as unknown as { Attribution?: Stub | Api };
  const before = global.Attribution as Stub | undefined;
  if (before && before.version) return null; // the script included twice: the first one stays
  const api = createAttribution(w, script?.src || undefined);
  global.Attribution = api;
  const queued = before && Array.isArray(before.q) ? before.q : [];
  let initQueued = false;
  for (const call of queued) {
    initQueued ||= Array.isArray(call) && call[0] === "init";
    api.q.push(call);
  }
  const data = script?.dataset;
  if (!initQueued && data?.key) {
    void api.init({
      key: data.key,
      endpoint: data.endpoint,
      requireConsent: data.requireConsent !== undefined && data.requireConsent !== "false",
    });
  }
  return api;
}
