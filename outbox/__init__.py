"""The outbox: the one cycle every outbound call goes through (docs/outbox.md). A kind of work
(a postback or webhook delivery, an Apple Ads claim, and whatever comes next) is a row a worker
claims with a lease, tries, records as an attempt row, retries on its own policy, and that a
beat sweep re-enqueues when its message or its worker was lost.

Each kind keeps its tables, its pure policy (delays, what is permanent, when to give up) and its
send function, and declares itself once as a `Kind`. The outbox owns the rest, one rule per
module: `claim` (who may try a row now), `record` (writing a try's result while the claim is
still held, scheduling the retry), `sweep` (taking back expired leases, re-sending lost
messages), `enqueue` (messages by the task's registered name) and `timing` (pure: lease and
jitter). Nothing is imported here, so a pure policy may use `outbox.timing` and stay pure.
"""
