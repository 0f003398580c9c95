/**
 * The wire contract with the service, as types: what the script sends to /api/v1/web/* and what
 * it reads back. docs/web-sdk-wire.md is the same contract in prose, for the server's side; a
 * field changed here is changed there.
 */

export type Consent = {
  /** Google's consent mode flags; null when the site's consent prompt did not say. */
  ad_user_data: boolean | null;
  ad_personalization: boolean | null;
};

export type VisitBody = {
  web_id: string;
  visit_id: string;
  timestamp: number;
  url: string;
  referrer: string;
  attribution_click_id?: string;
  utm_source?: string;
  utm_medium?: string;
  utm_campaign?: string;
  utm_term?: string;
  utm_content?: string;
  gclid?: string;
  fbclid?: string;
  ttclid?: string;
  consent?: Consent;
  gpc?: true;
  sdk_version: string;
};

export type Attribution = {
  mediaSource: string | null;
  campaignId: string | null;
  matchType: string | null;
  isOrganic: boolean;
};

export type Platform = "ios" | "android" | "desktop";

export type BannerConfig = {
  title: string;
  body: string;
  button: string;
  icon_url: string | null;
  platforms: Platform[];
  dismiss_days: number;
  deep_link_value: string | null;
  carry_visit_source: boolean;
  link: string;
};

/** `data` of a visit's answer: what getAttribution() returns. */
export type VisitAnswer = {
  webId: string;
  isNew: boolean;
  attribution: Attribution;
  /** The banner, when the web app's banner is set to show by itself on every page. */
  banner?: BannerConfig | null;
};

export type Envelope<T> = { success: boolean; data?: T; error?: { code?: string; message?: string } };
