"""The outbox: the one cycle every outbound call goes through (docs/outbox.md). A kind of work
(a postback or webhook delivery, an Apple Ads or Google Ads claim, an export run, a privacy
request's run or status callback) is a row a worker claims with a lease, tries, records as an
attempt row, retries on its own policy, and that the one beat sweep re-enqueues when its message
or its worker was lost.

Each kind keeps its tables (on the abstract rows of `models`), its pure policy (delays, what is
permanent, when to give up) and its send function, and declares itself once with
`kind.kind_register`. The outbox owns the rest, one rule per module: `claim` (who may try a row
now), `record` (writing a try's result while the claim is still held, scheduling the retry),
`sweep` (taking back expired leases, re-sending lost messages, every kind in turn), `enqueue`
(messages by the task's registered name), `tasks` (the shared task options and the sweep task),
`json_client` (the one call to a platform's API) and the pure `timing` (lease and jitter) and
`replies` (what a platform's answer reads as). Nothing is imported here, so a pure policy may
use `outbox.timing` and `outbox.replies` and stay pure.
"""
