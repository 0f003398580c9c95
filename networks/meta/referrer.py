"""Meta's install referrer (docs/networks.md, "Meta"): finding Meta's encrypted campaign data in
an install referrer, decrypting it with the app's key, and reading the campaign it names.

Meta documents the format in "Understand Facebook App Ads Referral URLs": the Play referrer's
`utm_content` is JSON whose `source` holds `data` (ciphertext followed by the 16-byte GCM tag)
and `nonce` (12 bytes), both hex, encrypted with AES-256-GCM under the 32-byte key the App
Dashboard shows (Settings > Basic > Android, "Install Referrer Decryption Key"). Meta's own
install referrer (read by the SDK from the Facebook and Instagram apps) carries the same JSON.

Pure: no ORM, no clock, no I/O; `cryptography` does the AES-GCM (it is already what the
project's secrets use). Nothing here raises on input: a referrer that carries no Meta data is
None, one that carries it but cannot be read is a `Unreadable` with the reason the trail shows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

KEY_BYTES = 32
NONCE_BYTES = 12
TAG_BYTES = 16
# Meta's metadata is a few hundred bytes; the referrer column holds 4096 characters.
MAX_DATA_HEX = 4096
MAX_VALUE_LENGTH = 255

# Meta's fields, as "Understand Facebook App Ads Referral URLs" lists them, and how this
# service names the levels: Meta's campaign group is our campaign, its campaign our ad set
# (Meta's "ad set"), its ad group our ad.
CAMPAIGN_FIELDS = ("account_id", "ad_id", "ad_objective_name", "adgroup_id", "adgroup_name",
                   "campaign_id", "campaign_name", "campaign_group_id", "campaign_group_name",
                   "publisher_platform")


@dataclass(frozen=True)
class Ciphertext:
    data: bytes
    nonce: bytes


@dataclass(frozen=True)
class Unreadable:
    """Meta's data is there but says nothing usable; `reason` is for the trail."""

    reason: str


@dataclass(frozen=True)
class MetaCampaign:
    """What a decrypted referrer says, every field kept (text, bounded)."""

    fields: dict[str, str]

    @property
    def campaign_id(self) -> str | None:
        return self.fields.get("campaign_group_id")

    @property
    def adset(self) -> str | None:
        return self.fields.get("campaign_id")

    @property
    def ad(self) -> str | None:
        return self.fields.get("adgroup_id")

    @property
    def campaign_name(self) -> str | None:
        return self.fields.get("campaign_group_name")


def find(referrer: str | None) -> Ciphertext | Unreadable | None:
    """Meta's ciphertext in an install referrer (a Play referrer's query string, or the JSON
    Meta's install referrer holds); None when the referrer carries no Meta data."""
    if not referrer or ("utm_content" not in referrer and '"source"' not in referrer):
        return None  # most installs' referrers: no parsing on the install path
    text = referrer.strip()
    content = _utm_content(text)
    if content is None:
        return None
    source = content.get("source") if isinstance(content, dict) else None
    if not isinstance(source, dict):
        return None  # utm_content of some other sender: not Meta's
    data, nonce = source.get("data"), source.get("nonce")
    if not isinstance(data, str) or not isinstance(nonce, str):
        return Unreadable("Meta's data has no data or nonce")
    if len(data) > MAX_DATA_HEX:
        return Unreadable("Meta's data is too long")
    try:
        data_bytes, nonce_bytes = bytes.fromhex(data), bytes.fromhex(nonce)
    except ValueError:
        return Unreadable("Meta's data or nonce is not hex")
    if len(nonce_bytes) != NONCE_BYTES:
        return Unreadable(f"Meta's nonce is not {NONCE_BYTES} bytes")
    if len(data_bytes) <= TAG_BYTES:
        return Unreadable("Meta's data is truncated")
    return Ciphertext(data=data_bytes, nonce=nonce_bytes)


def decrypt(ciphertext: Ciphertext, key: bytes | None) -> MetaCampaign | Unreadable:
    """The campaign the ciphertext names, or why it cannot be read (a wrong key, tampered or
    truncated data all fail GCM's authentication: nothing unauthenticated is ever read)."""
    if key is None:
        return Unreadable("the app has no Meta decryption key")
    if len(key) != KEY_BYTES:
        return Unreadable("the app's Meta decryption key is not 32 bytes")
    try:
        plain = AESGCM(key).decrypt(ciphertext.nonce, ciphertext.data, None)
    except InvalidTag:
        return Unreadable("Meta's data did not decrypt with the app's key (a wrong key, or "
                          "the data was altered or cut)")
    try:
        decoded = json.loads(plain.decode())
    except (UnicodeDecodeError, ValueError):
        return Unreadable("Meta's decrypted data is not JSON")
    if not isinstance(decoded, dict):
        return Unreadable("Meta's decrypted data is not a JSON object")
    fields = {name: _text(value) for name, value in decoded.items()
              if name in CAMPAIGN_FIELDS and _text(value)}
    if not fields.get("campaign_group_id"):
        return Unreadable("Meta's decrypted data names no campaign group")
    return MetaCampaign(fields=fields)


def _utm_content(text: str):
    """`utm_content` parsed as JSON, from a query string or a JSON object; None if absent."""
    if text.startswith("{"):
        try:
            outer = json.loads(text)
        except ValueError:
            return None
        if not isinstance(outer, dict):
            return None
        content = outer.get("utm_content", outer if "source" in outer else None)
    else:
        values = parse_qs(_decoded(text)).get("utm_content")
        content = values[0] if values else None
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except ValueError:
            return None
    return content


def _decoded(text: str) -> str:
    """Play sometimes encodes the whole referrer once more: undone at most twice, only while
    it still looks encoded (tracking/referrer.py does the same for our own referrers)."""
    for _ in range(2):
        if "=" in text or "%" not in text:
            break
        text = unquote(text)
    return text


def _text(value) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return ""
    return str(value).replace("\x00", "")[:MAX_VALUE_LENGTH]
