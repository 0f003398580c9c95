"""gunicorn settings for the production shape (`make web`, docker-compose `web`).

gthread with 2 workers x 4 threads measured best on 2-core machines (docs/benchmarks.md).
Click URLs carry campaign macros and may reach 8 KB, above gunicorn's 4 KB request-line default.
"""

import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
worker_class = "gthread"
workers = int(os.environ.get("GUNICORN_WORKERS", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
limit_request_line = 8190
limit_request_field_size = 8190
timeout = 30
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None
# gunicorn 27's control socket lives at one path per user (~/.gunicorn/gunicorn.ctl): two
# servers on one host (a second port, the browser tests, a benchmark) would take it from each
# other. Nothing here uses it.
control_socket_disable = True
