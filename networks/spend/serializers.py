"""Shapes of the cost part of an integration and of its pulls (docs/networks.md, "Ad spend"):
what a PUT's `cost` takes (checked by networks/spend/connections.py), and what every answer
shows of it, which is never a secret, at most its last 4 characters."""

from __future__ import annotations

from attribution_site.api.exceptions import ValidationFailed
from networks.models import CostPull, SpendConnection
from networks.spend import connections
from networks.spend.connections import SPECS, Invalid

COMMON = ("enabled", "lookback_days", "campaign_ids", "campaign_name_contains")


def cost_input(network: str, value) -> dict:
    """The checked `cost` part: account fields, secrets (None: keep the stored one), and the
    pull settings. Raises ValidationFailed naming each bad field as `cost.<field>`."""
    spec = SPECS[network]
    if not isinstance(value, dict):
        raise ValidationFailed("Invalid input: cost.", {"cost": ["Must be a JSON object."]})
    known = {field.name for field in spec.account + spec.secrets} | set(COMMON)
    errors: dict[str, list[str]] = {f"cost.{name}": ["Not a field of this network's cost part."]
                                    for name in value if name not in known}
    account: dict[str, str] = {}
    secrets: dict[str, str | None] = {}
    for field in spec.account:
        try:
            clean = connections.field_value(field, value.get(field.name))
        except Invalid as exc:
            errors[f"cost.{field.name}"] = [str(exc)]
            continue
        if clean:
            account[field.name] = clean
    for field in spec.secrets:
        if value.get(field.name) in (None, ""):
            secrets[field.name] = None  # left out: the stored one stays
            continue
        try:
            secrets[field.name] = connections.field_value(field, value[field.name])
        except Invalid as exc:
            errors[f"cost.{field.name}"] = [str(exc)]
    checks = {"lookback_days": connections.lookback_days,
              "campaign_ids": connections.campaign_ids,
              "campaign_name_contains": connections.campaign_name_contains}
    settings_: dict = {}
    for name, check in checks.items():
        try:
            settings_[name] = check(value.get(name))
        except Invalid as exc:
            errors[f"cost.{name}"] = [str(exc)]
    enabled = value.get("enabled", True)
    if not isinstance(enabled, bool):
        errors["cost.enabled"] = ["Must be true or false."]
    if errors:
        raise ValidationFailed(f"Invalid input: {', '.join(sorted(errors))}.", errors)
    return {"enabled": enabled, "account": account, "secrets": secrets, **settings_}


def cost_answer(network: str, connection: SpendConnection | None,
                last_pull: CostPull | None = None) -> dict:
    spec = SPECS[network]
    if connection is None:
        return {"configured": False, "media_source": spec.media_source}
    answer: dict = {"configured": True, "media_source": spec.media_source,
                    "enabled": connection.enabled}
    for field in spec.account:
        answer[field.name] = connection.account.get(field.name) or None
    for field in spec.secrets:
        answer[f"{field.name}_last4"] = connection.secrets_last4.get(field.name)
    answer.update(lookback_days=connection.lookback_days,
                  campaign_ids=list(connection.campaign_ids),
                  campaign_name_contains=connection.campaign_name_contains,
                  last_pull=pull_answer(last_pull) if last_pull else None,
                  updated_at=connection.updated_at)
    return answer


def pull_answer(pull: CostPull) -> dict:
    return {"id": str(pull.id), "status": pull.state, "trigger": pull.trigger,
            "since": pull.since, "until": pull.until,
            "days": (pull.until - pull.since).days + 1, "rows": pull.rows_written,
            "total_spend": dict(pull.spend_totals), "attempts": pull.attempts_made,
            "error": pull.last_error or None, "created_at": pull.created_at,
            "completed_at": pull.completed_at}
