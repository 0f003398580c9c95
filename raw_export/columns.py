"""The columns of each raw-data topic (docs/export.md, "Columns"), in the
order they are written. Pure: standard library only.

Names follow AppsFlyer's raw-data fields where one exists (`install_time`, `media_source`,
`af_adset`, ...), so a data team's queries written for Data Locker need few changes; the rest
are ours and say what they hold. Every timestamp is UTC; money is a decimal with six places
(the precision events are stored with). A column's type never changes between runs: a new
column or a changed meaning is a new `SCHEMA_VERSION`, written in every row and in each
Parquet file's metadata.
"""

from __future__ import annotations

from dataclasses import dataclass

SCHEMA_VERSION = 2  # 2: installs' `counted`; inapps' fraud_status, fraud_reasons, counted

STRING, TIMESTAMP, DECIMAL, INT, FLOAT, BOOL = ("string", "timestamp", "decimal", "int",
                                                "float", "bool")
# Money: precision 18, scale 6, as tracking stores revenue.
DECIMAL_PRECISION, DECIMAL_SCALE = 18, 6


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    doc: str


def _c(name: str, type_: str, doc: str) -> Column:
    return Column(name, type_, doc)


_VERSION = _c("schema_version", INT, f"the layout of this row's columns ({SCHEMA_VERSION})")
_APP = _c("app_id", STRING, "the app's id (UUID)")
# The one rule of analytics.counting, as the row was written: sum the rows where it is true to
# get the reports' figures (docs/metrics.md, "What counts").
_COUNTED = _c("counted", BOOL, "counts in the reports' installs and revenue (false: blocked or "
                               "post_attribution)")

INSTALLS = (
    _APP,
    _c("install_id", STRING, "the install's id (UUID): what events, re-engagements and "
                             "deliveries refer to"),
    _c("install_time", TIMESTAMP, "when the service received the install"),
    _c("platform", STRING, "android or ios"),
    _c("match_type", STRING, "install_referrer, device_id, fingerprint, apple_ads or organic"),
    _c("is_organic", BOOL, "no click was credited"),
    _c("confidence", FLOAT, "the match's confidence, 0 to 1"),
    _c("media_source", STRING, "the credited network (empty for organic)"),
    _c("campaign", STRING, "the credited campaign id"),
    _c("af_adset", STRING, "the credited ad set"),
    _c("af_ad", STRING, "the credited ad"),
    _c("click_id", STRING, "the credited click (UUID)"),
    _c("attributed_touch_type", STRING, "click when a click was credited"),
    _c("attributed_touch_time", TIMESTAMP, "the credited click's time"),
    _c("attribution_summary", STRING, "the decision trail in one sentence"),
    _c("losing_clicks", INT, "candidate clicks the waterfall considered and passed over"),
    _c("advertising_id", STRING, "GAID or IDFA as sent by the SDK (empty once erased)"),
    _c("customer_user_id", STRING, "the app's own user id, when sent (empty once erased)"),
    _c("ip", STRING, "the device's address; masked (/24, /48) after the app's IP limit"),
    _c("user_agent", STRING, "the SDK's User-Agent"),
    _c("os_version", STRING, "the device's OS version"),
    _c("device_model", STRING, "the device's model"),
    _c("language", STRING, "the device's language"),
    _c("sdk_version", STRING, "the SDK's version"),
    _c("att_status", STRING, "iOS App Tracking Transparency status"),
    _c("gdpr_applies", BOOL, "the user's consent at the install (empty: none sent)"),
    _c("ad_user_data", BOOL, "Google's ad_user_data signal at the install"),
    _c("ad_personalization", BOOL, "Google's ad_personalization signal at the install"),
    _c("fraud_status", STRING, "clean, flagged, blocked or post_attribution"),
    _c("fraud_reasons", STRING, "the fraud rules' reasons, as JSON"),
    _COUNTED,
    _VERSION,
)

INAPPS = (
    _APP,
    _c("event_row_id", INT, "the service's id of the event row"),
    _c("event_id", STRING, "the SDK's client event id, when sent"),
    _c("event_name", STRING, "the event's name"),
    _c("event_time", TIMESTAMP, "when the event happened on the device"),
    _c("event_received_time", TIMESTAMP, "when the service received the event"),
    _c("event_value", STRING, "the event's properties, as JSON"),
    _c("event_revenue", DECIMAL, "revenue in the event's own currency"),
    _c("event_revenue_currency", STRING, "ISO 4217 code of event_revenue"),
    _c("event_revenue_usd", DECIMAL, "event_revenue in US dollars at the rate of the event's "
                                     "day (empty when the currency has no rate)"),
    _c("session_id", STRING, "the SDK's session (UUID)"),
    _c("advertising_id", STRING, "GAID or IDFA (empty once erased)"),
    _c("install_id", STRING, "the install the event belongs to (empty: none found)"),
    _c("install_time", TIMESTAMP, "that install's time"),
    _c("platform", STRING, "that install's platform"),
    _c("match_type", STRING, "that install's match type"),
    _c("media_source", STRING, "the network credited with the install"),
    _c("campaign", STRING, "the campaign credited with the install"),
    _c("af_adset", STRING, "the ad set credited with the install"),
    _c("af_ad", STRING, "the ad credited with the install"),
    _c("is_blocked", BOOL, "an event of an install fraud protection blocked"),
    _c("fraud_status", STRING, "blocked for an event of a blocked install, else its install's "
                               "status (empty: no install)"),
    _c("fraud_reasons", STRING, "the install's fraud reasons, as JSON"),
    _COUNTED,
    _VERSION,
)

CLICKS = (
    _APP,
    _c("click_id", STRING, "the click's id (UUID)"),
    _c("click_time", TIMESTAMP, "when the service received the click"),
    _c("media_source", STRING, "the network"),
    _c("campaign", STRING, "the campaign id"),
    _c("af_adset", STRING, "the ad set"),
    _c("af_ad", STRING, "the ad"),
    _c("advertising_id", STRING, "GAID or IDFA the network passed (empty once erased)"),
    _c("ip", STRING, "the clicker's address; masked after the app's IP limit"),
    _c("user_agent", STRING, "the browser's User-Agent (empty once erased)"),
    _c("platform", STRING, "the OS family read from the User-Agent"),
    _c("os_version", STRING, "the OS version read from the User-Agent"),
    _c("device_model", STRING, "the device model read from the User-Agent"),
    _c("link_id", STRING, "the short link followed, if any (UUID)"),
    _VERSION,
)

REATTRIBUTIONS = (
    _APP,
    _c("reattribution_id", STRING, "the re-engagement's or the Apple Ads claim's id (UUID)"),
    _c("reattribution_type", STRING, "re-engagement (a recorded install came back through a "
                                     "click) or apple_ads (Apple's record moved the install)"),
    _c("install_id", STRING, "the install concerned"),
    _c("event_time", TIMESTAMP, "when the service recorded it"),
    _c("attributed_touch_type", STRING, "click"),
    _c("attributed_touch_time", TIMESTAMP, "the click's (or the Apple Ads tap's) time"),
    _c("click_id", STRING, "the re-engaging click (UUID; empty for Apple Ads)"),
    _c("media_source", STRING, "the network now credited"),
    _c("campaign", STRING, "the campaign now credited"),
    _c("af_adset", STRING, "the ad set (Apple Ads: the ad group)"),
    _c("af_ad", STRING, "the ad (Apple Ads: the keyword, else the ad)"),
    _VERSION,
)

DELIVERIES = (
    _APP,
    _c("delivery_id", STRING, "the delivery (one per message; its retries share it)"),
    _c("attempt", INT, "the try's number, from 1"),
    _c("kind", STRING, "postback or webhook"),
    _c("event_type", STRING, "what was delivered: install, event, ..."),
    _c("source_id", STRING, "the install or event the message is about"),
    _c("media_source", STRING, "the postback's network (empty for webhooks)"),
    _c("http_method", STRING, "GET or POST"),
    _c("url", STRING, "the address called, without its query string (which carries the "
                      "postback's values)"),
    _c("status_code", INT, "the answer's HTTP status (empty: no answer)"),
    _c("succeeded", BOOL, "the try delivered the message"),
    _c("error_message", STRING, "why the try failed, in words"),
    _c("duration_ms", INT, "how long the try took"),
    _c("attempt_time", TIMESTAMP, "when the try started"),
    _c("finished_time", TIMESTAMP, "when the try ended"),
    _c("consent_note", STRING, "what consent changed in the message"),
    _VERSION,
)

SKAN_POSTBACKS = (
    _APP,
    _c("postback_id", STRING, "the stored postback (UUID)"),
    _c("received_time", TIMESTAMP, "when the service received the copy"),
    _c("framework", STRING, "skadnetwork or adattributionkit"),
    _c("version", STRING, "SKAdNetwork's version"),
    _c("ad_network_id", STRING, "the network's identifier"),
    _c("media_source", STRING, "the network's name, where the app set one"),
    _c("transaction_id", STRING, "Apple's unique id of the postback"),
    _c("postback_sequence_index", INT, "0, 1 or 2"),
    _c("source_identifier", STRING, "the hierarchical source id (4.0)"),
    _c("campaign", INT, "the campaign id (before 4.0)"),
    _c("source_app_id", STRING, "the App Store id of the app that showed the ad"),
    _c("source_domain", STRING, "the web domain that showed the ad"),
    _c("fidelity_type", INT, "1 for a StoreKit-rendered ad, 0 for a view-through"),
    _c("redownload", BOOL, "a re-download"),
    _c("did_win", BOOL, "this network won the attribution"),
    _c("fine_value", INT, "the fine conversion value, 0-63"),
    _c("coarse_value", STRING, "low, medium or high"),
    _c("country_code", STRING, "where Apple sent one"),
    _c("conversion_type", STRING, "AdAttributionKit's conversion type"),
    _c("marketplace", STRING, "AdAttributionKit's marketplace"),
    _c("verdict", STRING, "the signature check's outcome"),
    _VERSION,
)

# Ad spend (docs/analytics.md, "Ad spend in reports"): pulled rows and uploaded ones; where both
# cover a day, media source and campaign, the pulled one counts.
COST = (
    _APP,
    _c("source", STRING, "pull (a network's reporting API) or csv (an upload): a pulled row "
                         "outranks an uploaded one of the same date, media source and campaign"),
    _c("connection", STRING, "the cost connection that pulled it (empty for uploads)"),
    _c("media_source", STRING, "meta, google, tiktok, apple_search_ads (uploads: as typed)"),
    _c("account", STRING, "the ad account (empty for uploads)"),
    _c("date", STRING, "the ad account's day, YYYY-MM-DD"),
    _c("campaign", STRING, "the network's campaign id (what installs' campaign joins on)"),
    _c("campaign_name", STRING, "the campaign's name, a label"),
    _c("af_adset_id", STRING, "the ad set (Google, Apple: ad group) id"),
    _c("af_adset", STRING, "the ad set's name, a label"),
    _c("af_ad_id", STRING, "the ad id (empty where the network reports no ad level)"),
    _c("af_ad", STRING, "the ad's name, a label"),
    _c("currency", STRING, "the spend's currency (the ad account's)"),
    _c("spend", DECIMAL, "the spend in that currency"),
    _c("spend_usd", DECIMAL, "the spend in US dollars at the day's rate (empty: no rate)"),
    _c("impressions", INT, "as the network counts them (empty for uploads)"),
    _c("clicks", INT, "as the network counts them (empty for uploads)"),
    _c("recorded_time", TIMESTAMP, "when the service stored the row: a re-pull of a day writes "
                                   "it again with a later time, replacing the earlier"),
    _VERSION,
)

TOPICS: dict[str, tuple[Column, ...]] = {
    "installs": INSTALLS,
    "inapps": INAPPS,
    "clicks": CLICKS,
    "reattributions": REATTRIBUTIONS,
    "deliveries": DELIVERIES,
    "skan_postbacks": SKAN_POSTBACKS,
    "blocked_installs": INSTALLS,
    "cost": COST,
}


def names(topic: str) -> tuple[str, ...]:
    return tuple(column.name for column in TOPICS[topic])
