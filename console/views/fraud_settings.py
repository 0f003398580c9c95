"""An app's fraud settings page (docs/fraud.md, "Settings"; docs/console.md, "Fraud
settings"): each rule's mode, the thresholds, the test devices, the listed networks and request
signing, as GET /api/v1/apps/{id}/fraud-settings answers them, for every member of the
organization; for its admins a form checked by the API's own serializer (FraudSettingsBody)
and saved by its service (fraud.services.settings_update), with the API's messages beside each
field. What the rules caught is the fraud report's page, linked from here."""

from __future__ import annotations

from dataclasses import asdict

from django.contrib import messages
from django.shortcuts import redirect, render

from attribution_site.api.exceptions import ApiError
from attribution_site.capabilities import CONFIGURE
from console.forms import INTEGER, TEXT, FormProblem, form_data, validated
from console.pages import AppPage
from fraud import selectors, services, verdict
from fraud.serializers import (
    MAX_CTIT_FLOOR_SECONDS,
    MAX_ENGAGEMENTS_PER_HOUR,
    MAX_LISTED_NETWORKS,
    MAX_TEST_DEVICES,
    FraudSettingsBody,
)
from fraud.words import REASON_NAMES

# The rules in the order the page shows them: (reason, what it catches, its threshold).
RULES = (
    (verdict.CTIT_ANOMALIES, "A click less than the floor below before the first launch: malware "
     "on the phone fires it once it sees the app installing. Blocked, such a click may not win; "
     "flagged, it may, and the install is flagged.", "ctit_floor_seconds"),
    (verdict.ENGAGEMENT_INJECTION, "A click recorded after Google Play says the install began "
     "(Android only). Blocked, it may not win; flagged, it may, and the install is flagged.",
     None),
    (verdict.TOO_MANY_ENGAGEMENTS, "More clicks from one device for one source within an hour "
     "than the limit below. Blocked, no click of that burst may win; flagged, they may, and the "
     "install is flagged.", "too_many_engagements_per_hour"),
    (verdict.CLICK_FLOOD, "A source found flooding the app with clicks (checked every 10 "
     "minutes over the last 7 days). Blocked, its clicks may not win for the rest of that day "
     "and its credited installs of the week are taken back (post-attribution); flagged, they "
     "are flagged.", None),
    (verdict.ANONYMOUS_TRAFFIC, "An install from one of the listed networks below, or one the "
     "service's anonymous-IP database marks (VPN, Tor, hosting). Blocked, it is credited to no "
     "one; flagged, it is credited and flagged. Off by default: real users use VPNs.", None),
    (verdict.BOTS, "A click from a known bot or crawler. Blocked, it is not recorded (only "
     "counted); flagged, it is recorded and counted.", None),
)
MODE_LABELS = {verdict.OFF: "Off", verdict.FLAG: "Flag", verdict.BLOCK: "Block"}
SIGNING_LABELS = {verdict.SIGNING_OFF: "Off: signatures are not checked",
                  verdict.SIGNING_REPORT: "Report: unsigned installs are stored and flagged",
                  verdict.SIGNING_ENFORCE: "Enforce: unsigned requests are refused (401)"}
LISTS = ("test_devices", "listed_networks")
FIELDS = {**{f"{reason}_mode": TEXT for reason, _, _ in RULES},
          "ctit_floor_seconds": INTEGER, "too_many_engagements_per_hour": INTEGER,
          "signing_mode": TEXT}
LABELS = {**{f"{reason}_mode": REASON_NAMES[reason].capitalize() for reason, _, _ in RULES},
          "ctit_floor_seconds": "Click-to-install floor",
          "too_many_engagements_per_hour": "Clicks a device may make in an hour",
          "test_devices": "Test devices", "listed_networks": "Listed networks",
          "signing_mode": "Request signing"}


def lines_of(text: str) -> list[str]:
    """A text area's items, one a line; blank lines are not items."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def errors_by_field(problem: FormProblem | None) -> dict[str, list[str]]:
    """The API's messages per field; a list's item errors ("listed_networks.2") under the list,
    numbered as the lines that were items."""
    errors: dict[str, list[str]] = {}
    for name, found in (problem.fields if problem else {}).items():
        field, _, index = name.partition(".")
        prefix = f"Item {int(index) + 1}: " if index.isdigit() else ""
        errors.setdefault(field, []).extend(prefix + message for message in found)
    return errors


class FraudSettingsPage(AppPage):
    section = "fraud-settings"
    template = "console/fraud/settings.html"
    capability = CONFIGURE  # reading them too (the table)

    def get(self, request, app_id):
        stored = asdict(selectors.settings_of(self.app.id))
        values = {**stored, **{name: "\n".join(sorted(stored[name]) if name == "test_devices"
                                               else stored[name]) for name in LISTS}}
        return self.page(request, values=values)

    def post(self, request, app_id):
        data = form_data(request.POST, FIELDS)
        data.update({name: lines_of(request.POST.get(name, "")) for name in LISTS})
        try:
            changes = validated(FraudSettingsBody, data)
        except ApiError as error:
            typed = {name: request.POST.get(name, "") for name in (*FIELDS, *LISTS)}
            return self.page(request, values=typed, problem=FormProblem(error, LABELS),
                             status=error.status)
        services.settings_update(app_id=self.app.id, changes=dict(changes))
        messages.success(request, "Saved the fraud settings: installs from now on are judged "
                                  "by them.")
        return redirect("console:fraud-settings", app_id=self.app.id)

    def page(self, request, *, values: dict, problem: FormProblem | None = None,
             status: int = 200):
        errors = errors_by_field(problem)
        rules = [{"reason": reason, "name": REASON_NAMES[reason].capitalize(), "help": help_text,
                  "field": f"{reason}_mode", "mode": values.get(f"{reason}_mode", ""),
                  "errors": errors.get(f"{reason}_mode", []), "threshold": threshold}
                 for reason, help_text, threshold in RULES]
        return render(request, self.template, self.context(
            rules=rules, values=values, errors=errors, problem=problem,
            modes=list(MODE_LABELS.items()), signing_modes=list(SIGNING_LABELS.items()),
            limits={"ctit": MAX_CTIT_FLOOR_SECONDS, "engagements": MAX_ENGAGEMENTS_PER_HOUR,
                    "networks": MAX_LISTED_NETWORKS, "devices": MAX_TEST_DEVICES}),
            status=status)
