"""Deliveries created with the facts (spec: Events, "Delivery"): the in-transaction handlers of
tracking's InstallAttributed, InstallReattributed, InstallReengaged and EventTracked, which add
one delivery row per matching postback and webhook to the batch that records the facts (so a
delivery commits or rolls back with its install or event), then hand the whole publication to
the workers in one message after commit. What is sent is frozen here; where it goes is read at
send time.

Consent is applied here too (docs/privacy.md, "What consent changes"): the user's consent at
the time of each fact, read for the whole publication in one query (a fact that carries the
consent sent with it needs none), decides what a postback carries or whether it goes at all
(consent.sharing); webhooks always go, with the consent in their data.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings
from django.utils import timezone

from attribution_site.write_batch import WriteBatch
from consent import selectors as consent_selectors
from consent import sharing
from consent.consent_data import Consent, public
from delivery import enqueue, payloads, policy, selectors
from delivery.models import ConsentPolicy, Delivery, Kind, State

STRIPPED_NOTE = ("stripped: GDPR applies and ad_user_data is denied; "
                 + ", ".join(payloads.IDENTIFYING_MACROS) + " sent empty")
SUPPRESSED_NOTE = ("skipped: GDPR applies and ad_user_data is denied "
                   "(the postback's consent_policy is suppress)")
FILTERED_NOTE = 'skipped: the user\'s sharing_filter is "all"'


def deliveries_for_installs(events: Sequence[Any], batch: WriteBatch) -> None:
    """InstallAttributed: webhooks for every install (organic too), postbacks for attributed
    installs to the configuration of the install's media source."""
    _deliveries_create(events, batch, payloads.install_fact, new_installs=True)


def deliveries_for_reattributions(events: Sequence[Any], batch: WriteBatch) -> None:
    """InstallReattributed: as an install, to the configurations subscribed to installs."""
    _deliveries_create(events, batch, payloads.reattribution_fact)


def deliveries_for_reengagements(events: Sequence[Any], batch: WriteBatch) -> None:
    """InstallReengaged: postbacks and webhooks of each re-engagement, to the configurations
    taking them."""
    _deliveries_create(events, batch, payloads.reengagement_fact)


def deliveries_for_events(events: Sequence[Any], batch: WriteBatch) -> None:
    """EventTracked: postbacks and webhooks of each in-app event, to the configurations taking
    it."""
    _deliveries_create(events, batch, payloads.event_fact)


def _moment(event: Any):
    """When the fact happened: the consent of that moment applies."""
    for name in ("occurred_at", "reattributed_at", "reengaged_at", "installed_at"):
        moment = getattr(event, name, None)
        if moment is not None:
            return moment
    return None


def _consents(events: Sequence[Any], *, new_installs: bool) -> list[Consent | None]:
    """Each fact's consent: the one it carries, else the history's, all read in one query. A
    new install can only have one by its device id (sent before its first launch was reported):
    one without a device id costs no query."""
    carried = [getattr(event, "consent", None) for event in events]
    missing = [n for n, consent in enumerate(carried) if consent is None]
    if missing:
        found = consent_selectors.consents_at([consent_selectors.Subject(
            events[n].app_id, None if new_installs else events[n].install_id,
            events[n].device_id, _moment(events[n])) for n in missing])
        for n, consent in zip(missing, found, strict=True):
            carried[n] = consent
    return carried


def _deliveries_create(events: Sequence[Any], batch: WriteBatch,
                       to_fact: Callable[..., payloads.Fact], *, new_installs: bool = False
                       ) -> None:
    """Adds the delivery rows to the batch that records the facts, and one Celery message for
    the whole publication after commit. The targets come from a per-process cache, so an app
    with nothing configured costs nothing here."""
    targets = selectors.delivery_targets(app_ids={event.app_id for event in events})
    if not targets:
        return
    by_app: dict[uuid.UUID, list[selectors.Target]] = defaultdict(list)
    for target in targets:
        by_app[target.app_id].append(target)
    now = timezone.now()
    attempts = policy.max_attempts(settings.DELIVERY_RETRY_DELAYS)
    timestamp_ms = payloads.unix_ms(now)
    rows: list[Delivery] = []
    relevant = [event for event in events if event.app_id in by_app]
    for event, consent in zip(relevant, _consents(relevant, new_installs=new_installs),
                              strict=True):
        fact = to_fact(event, public(consent))
        shared = sharing.partner_sharing(consent)
        postback_body = None
        rejected = payloads.rejected_install_values(event) if new_installs else None
        for target in by_app[event.app_id]:
            if payloads.SUBSCRIBED_AS.get(fact.event_type, fact.event_type) not in target.events:
                continue
            delivery_id = uuid.uuid4()
            state, note = State.PENDING, ""
            if target.kind == Kind.POSTBACK:
                credited = not fact.is_organic and fact.media_source == target.media_source
                if not credited and _wants_rejected(target, rejected):
                    state, note = _postback_verdict(shared, target.consent_policy)
                    body = payloads.postback_body(
                        rejected if shared == sharing.FULL
                        else payloads.without_identifiers(rejected))
                # Postbacks credit a network: never for organic facts, only to the source.
                elif not credited:
                    continue
                # A post-attribution verdict takes credit away: nothing to tell the network
                # it was taken from as a new install (docs/fraud.md, "Post-attribution").
                elif fact.data.get("fraud", {}).get("status") == "post_attribution":
                    continue
                else:
                    state, note = _postback_verdict(shared, target.consent_policy)
                    if postback_body is None:
                        postback_body = payloads.postback_body(
                            fact.values if shared == sharing.FULL
                            else payloads.without_identifiers(fact.values))
                    body = postback_body
            else:
                body = payloads.webhook_body(message_id=str(delivery_id),
                                             event_type=fact.event_type,
                                             timestamp_ms=timestamp_ms, data=fact.data)
            skipped = state == State.SKIPPED
            rows.append(Delivery(
                id=delivery_id, app_id=event.app_id, kind=target.kind,
                postback_id=target.config_id if target.kind == Kind.POSTBACK else None,
                webhook_id=target.config_id if target.kind == Kind.WEBHOOK else None,
                event_type=fact.event_type, source_id=fact.source_id,
                install_id=fact.install_id, body=body, state=state,
                consent_note=note, max_attempts=attempts,
                next_attempt_at=None if skipped else now, completed_at=now if skipped else None,
                created_at=now, updated_at=now))
    if not rows:
        return
    # A fact published twice must not be delivered twice: the partial unique constraints
    # drop the duplicates, and their ids simply find nothing to claim.
    batch.insert(rows, ignore_conflicts=True)
    delivery_ids = [str(row.id) for row in rows if row.state == State.PENDING]
    if delivery_ids:
        batch.after_commit(lambda: enqueue.deliveries_enqueue(delivery_ids))


def _wants_rejected(target: selectors.Target, rejected: dict | None) -> bool:
    """A refused claim's network gets a rejected-install postback only when its
    configuration asks for one (docs/fraud.md, "What a verdict does")."""
    return (rejected is not None and target.send_rejected
            and rejected["media_source"] == target.media_source)


def _postback_verdict(shared: str, consent_policy: str) -> tuple[str, str]:
    """The state a postback starts in and the consent note of the log."""
    if shared == sharing.NONE:
        return State.SKIPPED, FILTERED_NOTE
    if shared == sharing.NO_IDENTIFIERS:
        if consent_policy == ConsentPolicy.SUPPRESS:
            return State.SKIPPED, SUPPRESSED_NOTE
        return State.PENDING, STRIPPED_NOTE
    return State.PENDING, ""
