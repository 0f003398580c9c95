/**
 * What a page's URL says about how the visitor came: the service's own click id (appended by the
 * click redirector), UTM parameters and the ad networks' click ids. Each is sent as found, cut to
 * a length the server accepts.
 */

export const VISIT_PARAMS = [
  "attribution_click_id",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_term",
  "utm_content",
  "gclid",
  "fbclid",
  "ttclid",
] as const;

export const MAX_URL = 2048;
export const MAX_PARAM = 256;

export function visitParams(href: string): Partial<Record<(typeof VISIT_PARAMS)[number], string>> {
  const found: Partial<Record<(typeof VISIT_PARAMS)[number], string>> = {};
  let query: URLSearchParams;
  try {
    query = new URL(href).searchParams;
  } catch {
    return found;
  }
  for (const name of VISIT_PARAMS) {
    const value = query.get(name);
    if (value) found[name] = value.slice(0, MAX_PARAM);
  }
  return found;
}

/** The page's URL without its fragment (which never reaches a server either). */
export const pageUrl = (href: string): string => href.split("#")[0].slice(0, MAX_URL);
