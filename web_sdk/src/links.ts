/**
 * Links from the web to the app: the banner's button and appLink(). The base is a short link of
 * the service (a link whose click the server records); the script appends the web id, the source
 * to credit and the deep link, as query parameters the server reads (docs/web-sdk-wire.md).
 */

import type { Attribution, BannerConfig, Platform } from "./wire";

/** iPadOS asks for the desktop site with a Mac's user agent; a touch screen tells it apart. */
export function platformOf(userAgent: string, maxTouchPoints: number): Platform {
  if (/android/i.test(userAgent)) return "android";
  if (/iphone|ipad|ipod/i.test(userAgent)) return "ios";
  if (/macintosh/i.test(userAgent) && maxTouchPoints > 1) return "ios";
  return "desktop";
}

/** `{path}` is the page's path without its leading slash: `product/{path}` on /shoes/red. */
export const deepLinkValue = (template: string, pathname: string): string =>
  template.split("{path}").join(pathname.replace(/^\//, ""));

/** Only an http(s) URL is ever put behind a button (never `javascript:` from a bad config). */
export function httpUrl(value: unknown): URL | null {
  if (typeof value !== "string") return null;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url : null;
  } catch {
    return null;
  }
}

export type AppLinkOptions = {
  link?: string;
  media_source?: string;
  campaign?: string;
  deep_link_value?: string;
  params?: Record<string, string | number | boolean>;
};

export type LinkContext = { webId: string | null; pathname: string };

/**
 * The URL for a web-to-app button, or null without an http(s) base link. `params` go first so
 * that they can never replace what the script itself sets.
 */
export function appLinkUrl(
  base: string | undefined,
  opts: AppLinkOptions,
  ctx: LinkContext,
  via: "banner" | "app_link",
): string | null {
  const url = httpUrl(base);
  if (!url) return null;
  const query = url.searchParams;
  for (const [name, value] of Object.entries(opts.params || {})) query.set(name, String(value));
  if (ctx.webId) query.set("web_id", ctx.webId);
  query.set("web_via", via);
  if (opts.media_source) query.set("pid", opts.media_source);
  if (opts.campaign) query.set("c", opts.campaign);
  if (opts.deep_link_value) query.set("deep_link_value", deepLinkValue(opts.deep_link_value, ctx.pathname));
  return url.href;
}

/**
 * The banner's button: media source `web_banner`, or the visit's own source and campaign when the
 * banner carries them over and the visit had a paid one.
 */
export function bannerLinkUrl(
  config: BannerConfig,
  visit: Attribution | null,
  deepLink: string | null,
  ctx: LinkContext,
): string | null {
  const carried = config.carry_visit_source && visit && !visit.isOrganic && visit.mediaSource;
  return appLinkUrl(
    config.link,
    {
      media_source: carried ? visit.mediaSource! : "web_banner",
      campaign: (carried && visit.campaignId) || undefined,
      deep_link_value: deepLink || undefined,
    },
    ctx,
    "banner",
  );
}
