"""How an audit entry names what was done and to what, from the URL a change was sent to
(docs/teams.md, "Audit log"). Pure: standard library only.

The action is the URL's name read as `resource.verb`: a collection's name (`postback-list`)
and its item's (`postback-detail`) give the resource in the plural and a verb by the method
(`postbacks.create`, `postbacks.update`, `postbacks.delete`); a name ending in a verb the
console uses (`key-revoke`, `app-new`, `link-edit`, `postback-test`) keeps it, with `new`
and `edit` read as `create` and `update`; any other name is the resource itself
(`fraud-settings` → `fraud_settings.update`). A `kind` in the URL (the console's postback and
webhook pages share their views) names the resource. So the API and the console name one
change alike, and a new route is named without a table to keep.

The target is the id of the object acted on: the URL's last id for a change to something that
exists, the id the answer names for a creation (the API's body, or the page the console goes
to next), else the URL's last id (the app a thing was created in).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

COLLECTION = {"list", "detail"}
VERBS = {"new": "create", "edit": "update", "delete": "delete", "revoke": "revoke",
         "test": "test", "active": "activate", "redeliver": "redeliver", "apply": "apply",
         "secret": "rotate_secret", "accept": "accept", "resend": "resend"}
BY_METHOD = {"POST": "create", "PUT": "update", "PATCH": "update", "DELETE": "delete"}


def plural(word: str) -> str:
    if word.endswith("s"):
        return word
    if word.endswith("y") and word[-2:-1] not in tuple("aeiou"):
        return word[:-1] + "ies"
    return word + "s"


def action_of(url_name: str | None, method: str, url_kwargs: Mapping[str, Any]) -> str:
    """`resource.verb` for a change sent with `method` to the route named `url_name`."""
    parts = (url_name or "unnamed").split("-")
    verb = BY_METHOD.get(method.upper(), method.lower())
    last = parts[-1]
    if len(parts) > 1 and last in COLLECTION:
        parts, shaped = parts[:-1], True
    elif len(parts) > 1 and last in VERBS:
        parts, shaped, verb = parts[:-1], True, VERBS[last]
    else:
        shaped = False
    kind = url_kwargs.get("kind")
    if isinstance(kind, str) and kind:
        parts, shaped = [kind], True
    if shaped:
        parts[-1] = plural(parts[-1])
    return f"{'_'.join(parts)}.{verb}"


def url_object_id(url_kwargs: Mapping[str, Any]) -> str:
    """The last id in the URL (`/apps/{app_id}/links/{link_id}`: the link), or ""."""
    ids = [value for name, value in url_kwargs.items()
           if name in ("id", "pk") or name.endswith("_id")]
    return str(ids[-1]) if ids else ""


def answer_id(data: Any) -> str:
    """The id an API answer names: its own `id`, or that of the one object it wraps
    (`{"postback": {"id": ...}}`); "" when it names none."""
    if not isinstance(data, Mapping):
        return ""
    if data.get("id") is not None:
        return str(data["id"])
    wrapped = [value for value in data.values() if isinstance(value, Mapping) and "id" in value]
    return str(wrapped[0]["id"]) if len(wrapped) == 1 else ""


def target_of(action: str, *, url_kwargs: Mapping[str, Any], created_id: str) -> str:
    """What the entry is about: a creation's new id when the answer names one, else the URL's
    last id."""
    if action.endswith(".create") and created_id:
        return created_id
    return url_object_id(url_kwargs) or created_id
