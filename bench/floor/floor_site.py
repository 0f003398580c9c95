"""The install path's floor: `POST /api/v1/installs` answered with the same two statements the
service runs (the waterfall's lookup and the install's INSERT, prepared, on the same tables),
JSON in and out, and none of the service's own Python between: no key check, no rate limit,
no validation, no waterfall, no fraud rules, no decision trail. What is left is what no
version of the service can avoid: gunicorn, the JSON, psycopg and PostgreSQL. Measured beside
the service and the baseline by bench/install_floor.py. Not part of the service.
"""

import json
import threading
import uuid
from datetime import UTC, datetime, timedelta

import django

django.setup()

import psycopg  # noqa: E402 - after django.setup(), which the statements' sources need
from django.conf import settings  # noqa: E402
from psycopg.types.json import Jsonb  # noqa: E402

from attribution_site.ids import uuid7  # noqa: E402
from attribution_site.write_batch import _statement  # noqa: E402
from tracking import sql  # noqa: E402
from tracking.models import Install  # noqa: E402

LOOKUP = " UNION ALL ".join([sql._INSTALL_PART, sql._DEVICE_PART, sql._NETWORK_PART])
INSERT = _statement(((Install, 1, False),))
_database = settings.DATABASES["default"]
DSN = (f"host={_database['HOST']} port={_database['PORT']} dbname={_database['NAME']} "
       f"user={_database['USER']}")
_local = threading.local()


def _cursor() -> psycopg.Cursor:
    if getattr(_local, "cursor", None) is None:
        _local.cursor = psycopg.connect(DSN, autocommit=True).cursor()
    return _local.cursor


def application(environ, start_response):
    if environ["REQUEST_METHOD"] != "POST":
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
        return [b"ok"]
    body = json.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))
    app_id, device = uuid.UUID(body["app_id"]), body["device_id"]
    ip = environ.get("HTTP_X_FORWARDED_FOR", "").split(",")[-1].strip()
    now = datetime.now(UTC)
    since = now - timedelta(days=7)
    cursor = _cursor()
    cursor.execute(LOOKUP, [app_id, device, app_id, device, since, now, app_id,
                            ip.rsplit(".", 1)[0] + ".0/24", since, now], prepare=True)
    rows = cursor.fetchall()
    click = next((row for row in rows if row[0] == "device"), None)
    install_id = uuid7()
    if not any(row[0] == "install" for row in rows):
        cursor.execute(INSERT, [
            install_id, app_id, device, None, body["platform"], body.get("sdk_version", ""), "",
            "", "", body.get("language", ""), body.get("os_version", ""),
            body.get("device_model", ""), ip, environ.get("HTTP_USER_AGENT", ""), "", now,
            "device_id" if click else "organic", 1.0 if click else 0.0, click is None,
            click[3] if click else None, click[4] if click else None, None, None,
            click[1] if click else None, click[2] if click else None, None, None,
            Jsonb({"method": "device_id" if click else "organic"}), None, "clean", Jsonb([])],
            prepare=True)
    answer = json.dumps({"data": {"install_id": str(install_id), "attributed": bool(click),
                                  "media_source": click[3] if click else None}}).encode()
    start_response("201 Created", [("Content-Type", "application/json"),
                                   ("Content-Length", str(len(answer)))])
    return [answer]
