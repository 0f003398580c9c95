"""What each network's cost part holds, and the rules its fields follow (docs/networks.md, "Ad
spend"). Pure: each check takes the sent value and returns the clean one or raises `Invalid`
with the message the 400 shows under the field's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from networks.spend.core import LOOKBACK_DEFAULT_DAYS, LOOKBACK_MAXIMUM_DAYS


class Invalid(ValueError):
    pass


@dataclass(frozen=True)
class Field:
    name: str
    pattern: re.Pattern
    rule: str  # what the 400 says
    where: str  # where the value is found in the network's own pages (help text, docs)
    required: bool = True
    strip: str = ""  # characters dropped before the check (Google's dashes)


@dataclass(frozen=True)
class NetworkSpec:
    network: str
    media_source: str  # the media source attribution writes for this network
    account: tuple[Field, ...]
    secrets: tuple[Field, ...]


TOKEN = re.compile(r"[A-Za-z0-9_\-.|=~+/]{16,2048}")
PEM_KEY = re.compile(r"-----BEGIN (EC )?PRIVATE KEY-----[A-Za-z0-9+/=\s]+-----END (EC )?PRIVATE "
                     r"KEY-----\s*", re.S)

META = NetworkSpec("meta", "meta", account=(
    Field("ad_account_id", re.compile(r"act_[0-9]{1,32}"), "Must be act_ followed by digits.",
          "Meta Ads Manager: the account menu at the top left shows the ad account id; write "
          "it as act_<id>."),
), secrets=(
    Field("access_token", TOKEN, "Must be a Meta access token: 16 to 2048 letters, digits and "
          "_-.|=~+/.", "Meta Business Settings > Users > System users > Generate new token, "
                       "with the ads_read permission."),
))
GOOGLE_ADS = NetworkSpec("google_ads", "google", account=(
    Field("customer_id", re.compile(r"[0-9]{10}"), "Must be the 10 digits of a Google Ads "
          "customer id (dashes allowed).", "Google Ads: the customer id at the top right, "
                                           "such as 123-456-7890.", strip="- "),
    Field("login_customer_id", re.compile(r"[0-9]{10}"), "Must be the 10 digits of the manager "
          "account's customer id.", "Google Ads: the manager account's customer id, when "
                                    "access goes through one.", required=False, strip="- "),
    Field("client_id", re.compile(r"[A-Za-z0-9_\-.]{8,256}"), "Must be an OAuth client id.",
          "Google Cloud console > APIs & Services > Credentials: the OAuth client's id."),
), secrets=(
    Field("client_secret", re.compile(r"[A-Za-z0-9_\-.]{8,256}"), "Must be an OAuth client "
          "secret.", "Google Cloud console > APIs & Services > Credentials: the OAuth "
                     "client's secret."),
    Field("refresh_token", TOKEN, "Must be an OAuth refresh token.",
          "The refresh token of a user with access to the account, from Google's OAuth "
          "consent for the https://www.googleapis.com/auth/adwords scope."),
))
TIKTOK = NetworkSpec("tiktok", "tiktok", account=(
    Field("advertiser_id", re.compile(r"[0-9]{1,32}"), "Must be TikTok's advertiser id: "
          "digits.", "TikTok Ads Manager: the account menu at the top right shows the "
                     "advertiser id (ID: ...)."),
), secrets=(
    Field("access_token", TOKEN, "Must be a TikTok access token.",
          "TikTok for Business developer portal > My apps: the long-term access token "
          "your app received when the advertiser authorized it (Reporting scope)."),
))
APPLE_ADS = NetworkSpec("apple_ads", "apple_search_ads", account=(
    Field("org_id", re.compile(r"[0-9]{1,32}"), "Must be Apple Ads' account id: digits.",
          "Apple Ads (Advanced): the account menu at the top right shows the account and its "
          "id."),
    Field("client_id", re.compile(r"SEARCHADS\.[A-Za-z0-9\-]{8,64}"), "Must be Apple's client "
          "id: SEARCHADS. followed by an id.", "Apple Ads > Account Settings > API: the "
                                               "clientId shown after the public key upload."),
    Field("team_id", re.compile(r"SEARCHADS\.[A-Za-z0-9\-]{8,64}"), "Must be Apple's team id: "
          "SEARCHADS. followed by an id.", "Apple Ads > Account Settings > API: teamId."),
    Field("key_id", re.compile(r"[A-Za-z0-9\-]{8,64}"), "Must be Apple's key id.",
          "Apple Ads > Account Settings > API: keyId."),
), secrets=(
    Field("private_key", PEM_KEY, "Must be the PEM of an EC P-256 private key (-----BEGIN EC "
          "PRIVATE KEY----- ...).", "The private key you made with `openssl ecparam -genkey "
                                    "-name prime256v1` and whose public half you uploaded."),
))
SPECS = {spec.network: spec for spec in (META, GOOGLE_ADS, TIKTOK, APPLE_ADS)}
NETWORKS = tuple(SPECS)


def field_value(field: Field, value) -> str:
    """The clean value of one account field or secret ("" for an optional one left empty)."""
    if value is None or value == "":
        if field.required:
            raise Invalid("This field is required.")
        return ""
    if not isinstance(value, str):
        raise Invalid(field.rule)
    clean = value.strip() if field.name != "private_key" else value.strip() + "\n"
    for char in field.strip:
        clean = clean.replace(char, "")
    if not field.pattern.fullmatch(clean):
        raise Invalid(field.rule)
    return clean


def lookback_days(value) -> int:
    if value is None:
        return LOOKBACK_DEFAULT_DAYS
    if isinstance(value, bool) or not isinstance(value, int) or not (
            1 <= value <= LOOKBACK_MAXIMUM_DAYS):
        raise Invalid(f"Must be a whole number of days from 1 to {LOOKBACK_MAXIMUM_DAYS}.")
    return value


def campaign_ids(value) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > 500 or not all(
            isinstance(item, str | int) and not isinstance(item, bool)
            and re.fullmatch(r"[A-Za-z0-9_\-.]{1,64}", str(item)) for item in value):
        raise Invalid("Must be a list of at most 500 campaign ids (letters, digits, _-.).")
    return list(dict.fromkeys(str(item) for item in value))


def campaign_name_contains(value) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > 200 or not value.isprintable():
        raise Invalid("Must be text of at most 200 printable characters.")
    return value.strip()
