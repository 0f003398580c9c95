"""Delivery writes (spec: Postback endpoints, Webhook endpoints, Events), one module per job:
`configs` (postback and webhook configurations), `fanout` (the delivery rows created with the
facts), `platforms` (the conversions carried for networks/), `sending` (claim -> send ->
record), `upkeep` (sweep, redeliver, prune) and `test_sends` (the test endpoints). Claim,
record, retry and sweep are the outbox's (docs/outbox.md); deliveries are declared as one of
its kinds in `delivery.enqueue`.
Callers use `from delivery import services` and the names below; see docs/delivery.md.
"""

from delivery.services.configs import (
    MAX_WEBHOOKS_PER_APP,
    SECRET_MESSAGE,
    UPDATABLE_POSTBACK_FIELDS,
    UPDATABLE_WEBHOOK_FIELDS,
    postback_create,
    postback_delete,
    postback_update,
    webhook_create,
    webhook_delete,
    webhook_update,
    webhook_url_problem,
)
from delivery.services.fanout import (
    deliveries_for_events,
    deliveries_for_installs,
    deliveries_for_reattributions,
    deliveries_for_reengagements,
)
from delivery.services.platforms import (
    platform_deliveries_for_events,
    platform_deliveries_for_installs,
)
from delivery.services.sending import delivery_attempt
from delivery.services.test_sends import postback_test, webhook_test
from delivery.services.upkeep import (
    deliveries_prune,
    deliveries_redeliver,
)

__all__ = (
    "platform_deliveries_for_events",
    "platform_deliveries_for_installs",
    "MAX_WEBHOOKS_PER_APP",
    "SECRET_MESSAGE",
    "UPDATABLE_POSTBACK_FIELDS",
    "UPDATABLE_WEBHOOK_FIELDS",
    "deliveries_for_events",
    "deliveries_for_installs",
    "deliveries_for_reattributions",
    "deliveries_for_reengagements",
    "deliveries_prune",
    "deliveries_redeliver",
    "delivery_attempt",
    "postback_create",
    "postback_delete",
    "postback_test",
    "postback_update",
    "webhook_create",
    "webhook_delete",
    "webhook_test",
    "webhook_update",
    "webhook_url_problem",
)
