"""Shapes of the cost part of an integration and of its pulls (docs/networks.md, "Ad spend"):
what a PUT's `cost` takes (checked by networks/spend/connections.py), and what every answer
shows of it, which is never a secret, at most its last 4 characters."""

from __future__ import annotations

from rest_framework import serializers

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
    """Every key, whether set up or not (null when not)."""
    spec = SPECS[network]
    account = connection.account if connection else {}
    last4 = connection.secrets_last4 if connection else {}
    answer: dict = {"configured": connection is not None, "media_source": spec.media_source,
                    "enabled": connection.enabled if connection else None}
    for field in spec.account:
        answer[field.name] = account.get(field.name) or None
    for field in spec.secrets:
        answer[f"{field.name}_last4"] = last4.get(field.name)
    answer.update(lookback_days=connection.lookback_days if connection else None,
                  campaign_ids=list(connection.campaign_ids) if connection else [],
                  campaign_name_contains=connection.campaign_name_contains if connection
                  else None,
                  last_pull=pull_answer(last_pull) if last_pull else None,
                  updated_at=connection.updated_at if connection else None)
    return answer


def pull_answer(pull: CostPull) -> dict:
    return {"id": str(pull.id), "status": pull.state, "trigger": pull.trigger,
            "since": pull.since, "until": pull.until,
            "days": (pull.until - pull.since).days + 1, "rows": pull.rows_written,
            "total_spend": dict(pull.spend_totals), "attempts": pull.attempts_made,
            "error": pull.last_error or None, "created_at": pull.created_at,
            "completed_at": pull.completed_at}


# --- The published schema (drf-spectacular): the same shapes, declared -------------------------

class CostPullOutput(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=["pending", "sending", "done", "failed"])
    trigger = serializers.ChoiceField(choices=["schedule", "request"])
    since = serializers.DateField()
    until = serializers.DateField()
    days = serializers.IntegerField()
    rows = serializers.IntegerField()
    total_spend = serializers.DictField(child=serializers.CharField(), help_text=(
        "Spend written, per currency, as decimal text."))
    attempts = serializers.IntegerField()
    error = serializers.CharField(allow_null=True, help_text="Why it failed, in words.")
    created_at = serializers.DateTimeField()
    completed_at = serializers.DateTimeField(allow_null=True)


def _title(network: str) -> str:
    return "".join(part.title() for part in network.split("_"))


def _cost_output(network: str) -> type[serializers.Serializer]:
    spec = SPECS[network]
    fields: dict = {"configured": serializers.BooleanField(),
                    "media_source": serializers.CharField(),
                    "enabled": serializers.BooleanField(allow_null=True)}
    for field in spec.account:
        fields[field.name] = serializers.CharField(allow_null=True)
    for field in spec.secrets:
        fields[f"{field.name}_last4"] = serializers.CharField(allow_null=True)
    fields.update(lookback_days=serializers.IntegerField(allow_null=True),
                  campaign_ids=serializers.ListField(child=serializers.CharField()),
                  campaign_name_contains=serializers.CharField(allow_null=True),
                  last_pull=CostPullOutput(allow_null=True),
                  updated_at=serializers.DateTimeField(allow_null=True))
    return type(f"{_title(network)}CostOutput", (serializers.Serializer,), fields)


def _cost_input(network: str) -> type[serializers.Serializer]:
    spec = SPECS[network]
    fields: dict = {"enabled": serializers.BooleanField(required=False, help_text=(
        "Pulled every COST_PULL_INTERVAL_MINUTES; default true."))}
    for field in spec.account:
        fields[field.name] = serializers.CharField(required=field.required,
                                                   help_text=field.where)
    for field in spec.secrets:
        fields[field.name] = serializers.CharField(required=False, write_only=True, help_text=(
            f"{field.where} Required the first time; left out, the stored one stays."))
    fields.update(
        lookback_days=serializers.IntegerField(required=False, min_value=1, max_value=30,
                                               help_text="Days each pull takes; default 7."),
        campaign_ids=serializers.ListField(child=serializers.CharField(), required=False,
                                           help_text="Only these campaigns."),
        campaign_name_contains=serializers.CharField(required=False, help_text=(
            "Only campaigns whose name contains this (case-insensitive).")))
    return type(f"{_title(network)}CostInput", (serializers.Serializer,), fields)


COST_OUTPUTS = {network: _cost_output(network) for network in SPECS}
COST_INPUTS = {network: _cost_input(network) for network in SPECS}
