"""Platform detection and device signals from a User-Agent (spec: GET /clicks redirect order).

Parsing uses the maintained uap-core rules (ua-parser); results are cached per distinct
User-Agent, because ad traffic repeats the same few thousand strings and a parse costs ~150 µs.
Chrome's reduced User-Agent ("Android 10; K") freezes the OS version and hides the model, so
those values are treated as unknown rather than as evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ua_parser import parse_device, parse_os

# The one list of bots and crawlers (docs/fraud.md, "bots"): uap-core's "Spider" device family
# (search robots and link-preview crawlers: Googlebot, facebookexternalhit, Slackbot,
# Twitterbot, WhatsApp...), plus headless browsers and scrapers uap-core does not mark. Plain
# HTTP libraries are not on it: a network may report clicks from its servers.
# Links show a crawler the preview page and record no click; /clicks does not count one.
CRAWLER_DEVICE_FAMILY = "Spider"
BOT_MARKERS = ("HeadlessChrome", "PhantomJS", "Selenium", "Scrapy")

IOS_FAMILIES = {"iOS", "iPadOS"}
MAX_PARSED_LENGTH = 512


@dataclass(frozen=True)
class DeviceInfo:
    platform: str  # "ios", "android" or "other"
    os_family: str
    os_version: str  # "17.1" or "14": major, and minor where the User-Agent shows it
    device_model: str


UNKNOWN = DeviceInfo(platform="other", os_family="", os_version="", device_model="")


@lru_cache(maxsize=8192)
def device_info(user_agent: str) -> DeviceInfo:
    if not user_agent:
        return UNKNOWN
    user_agent = user_agent[:MAX_PARSED_LENGTH]
    os = parse_os(user_agent)
    device = parse_device(user_agent)
    family = os.family if os and os.family != "Other" else ""
    major = (os.major or "") if os else ""
    minor = (os.minor or "") if os else ""
    model = (device.model or "") if device else ""
    if family in IOS_FAMILIES or "iPhone" in user_agent or "iPad" in user_agent:
        platform, family = "ios", "iOS"
        model = _ios_device_class(user_agent, model)
    elif family == "Android" or "Android" in user_agent:
        platform, family = "android", "Android"
        if model in ("K", "") and major == "10":  # Chrome's frozen, reduced User-Agent
            major, minor, model = "", "", ""
    else:
        platform = "other"
    if model in ("iOS-Device", "Generic", "Smartphone", "Other"):
        model = ""
    version = f"{major}.{minor}" if major and minor.isdigit() else major
    return DeviceInfo(platform=platform, os_family=family, os_version=version,
                      device_model=model[:128])


@lru_cache(maxsize=8192)
def is_bot(user_agent: str) -> bool:
    """A known bot or crawler rather than a person's browser; cached like `device_info`."""
    if not user_agent:
        return False
    if any(marker in user_agent for marker in BOT_MARKERS):
        return True
    device = parse_device(user_agent[:MAX_PARSED_LENGTH])
    return device is not None and device.family == CRAWLER_DEVICE_FAMILY


def _ios_device_class(user_agent: str, model: str) -> str:
    """Safari only says iPhone or iPad; the SDK's machine id (iPhone15,2) says the same class."""
    for device_class in ("iPad", "iPhone", "iPod"):
        if device_class in user_agent or model.startswith(device_class):
            return device_class
    return ""


def os_version_of(version: str) -> str:
    """'17.2.1' -> '17.2', '14' -> '14'; '' for anything that does not start with a number."""
    parts = version.strip().split(".")
    if not parts[0].isdigit():
        return ""
    return f"{parts[0]}.{parts[1]}" if len(parts) > 1 and parts[1].isdigit() else parts[0]
