"""The one settings module. Every value comes from the environment (listed in `.env.example`).

Without DATABASE_URL and REDIS_URL the service runs on the embedded default: a SQLite file,
Celery tasks executed in-process and a local-memory cache. With them it runs on PostgreSQL and
Redis (broker and shared cache). Tests use this same module; they change only speed knobs.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from kombu import Exchange, Queue

from attribution_site.currencies import currency_code
from attribution_site.database import database_settings, prepared_statements_default
from attribution_site.env import Env
from attribution_site.replica import REPLICA, replica_settings

BASE_DIR = Path(__file__).resolve().parent.parent
env = Env(os.environ)

DEBUG = env.bool("DEBUG", False)
SECRET_KEY = env.str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off (it signs tokens and encrypts secrets)"
        )
    SECRET_KEY = "insecure-development-key-do-not-use-in-production"
# Earlier values of SECRET_KEY, comma separated: what they encrypted or signed still opens
# (stored secrets, sessions, signed links) while everything new uses SECRET_KEY.
SECRET_KEY_FALLBACKS = env.list("SECRET_KEY_FALLBACKS", [])
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
# How many trusted reverse proxies append to X-Forwarded-For. 0: the client is REMOTE_ADDR.
NUM_PROXIES = env.int("NUM_PROXIES", 0, minimum=0)
# The console's session (docs/console.md, "Sessions for pages, JWT for the API, one login
# throttle"). Behind TLS, set CONSOLE_SECURE_COOKIES=1 so the session and CSRF cookies never travel
# over plain http; CSRF_TRUSTED_ORIGINS names the public https origin when a proxy terminates TLS
# (Django compares it with the browser's Origin header).
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env.bool("CONSOLE_SECURE_COOKIES", False)
SESSION_COOKIE_AGE = env.int("CONSOLE_SESSION_SECONDS", 14 * 24 * 3600, minimum=60)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", [])
LOGIN_URL = "console:login"
LOG_LEVEL = env.choice("LOG_LEVEL", "INFO", {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"})

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served from here: /api/docs/ works offline
    "django_htmx",
    "accounts",
    "apps_registry",
    "tracking",
    "delivery",
    "analytics",
    "links",
    "console",
    "skan",
    "conversion",
    "apple_ads",
    "consent",
    "privacy",
    "retention",
    "networks",
    "fraud",
    "raw_export",
    "web",  # the web script's endpoints, web ids and visits (docs/web.md)
    "web_to_app",  # linked apps, the banner and web-to-app journeys (docs/web.md)
    "outbox",  # abstract rows, the kinds' registry and the one sweep (docs/outbox.md)
    "audit",  # who changed what, logins, tokens' new addresses (docs/teams.md, "Audit log")
    "teams",  # invitations and personal access tokens (docs/teams.md)
    "signin",  # single sign-on and two-factor (docs/teams.md, "Single sign-on", "Two-factor")
    "attribution_site",  # no models: its management command (architecture_map)
]

MIDDLEWARE = [
    "attribution_site.api.middleware.ApiErrorEnvelopeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "attribution_site.api.hot_paths.HotPathMiddleware",
    "links.middleware.LinkDomainMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "console.security.ContentSecurityPolicyMiddleware",
]

# URL name -> (methods, check ALLOWED_HOSTS) served by HotPathMiddleware without the rest of
# the stack. The click redirector never checks the host: it answers 302 whatever comes in.
HOT_PATHS = {
    "clicks": (("GET", "HEAD"), False),
    "installs": (("POST",), True),
    "events": (("POST",), True),
}
# The same for URLs of one trailing argument, matched by prefix after the exact routes miss.
# Following a link answers whatever host it arrives on (link domains are not in ALLOWED_HOSTS).
HOT_PATH_PREFIXES = {
    "links-follow": (("GET", "HEAD"), False),
}

ROOT_URLCONF = "attribution_site.urls"
WSGI_APPLICATION = "attribution_site.wsgi.application"
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "console.context_processors.permissions",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
DATABASE_URL = env.str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
# How connections are held: off, django (psycopg's pool in each process) or pgbouncer (an
# external pooler in transaction mode): attribution_site/database.py, docs/pooling.md.
DATABASE_POOL = env.str("DATABASE_POOL", "off").lower()
# The SDK hot paths prepare their statements (attribution_site/prepared.py); off by default
# behind PgBouncer, which keeps prepared statements only from 1.21 with max_prepared_statements.
DATABASE_PREPARED_STATEMENTS = env.bool("DATABASE_PREPARED_STATEMENTS",
                                        prepared_statements_default(DATABASE_POOL))
DATABASES = {"default": database_settings(
    DATABASE_URL, name="DATABASE_URL", pool=DATABASE_POOL,
    prepared_statements=DATABASE_PREPARED_STATEMENTS,
    pool_min_size=env.int("DATABASE_POOL_MIN_SIZE", 2, minimum=0),
    pool_max_size=env.int("DATABASE_POOL_MAX_SIZE", 8, minimum=1),
    pool_timeout=env.int("DATABASE_POOL_TIMEOUT", 10, minimum=1))}
# Reports (analytics, exports, the console's reports, delivery logs) read from a streaming
# replica when one is given; everything else reads and writes the primary. The router is
# always there and sends nothing anywhere without the alias (attribution_site/replica.py).
DATABASE_REPLICA_URL = env.str("DATABASE_REPLICA_URL")
if DATABASE_REPLICA_URL:
    DATABASES[REPLICA] = replica_settings(DATABASE_REPLICA_URL, primary=DATABASES["default"])
DATABASE_ROUTERS = ["attribution_site.replica.ReportsRouter"]
# No CONN_HEALTH_CHECKS: it costs a SELECT 1 round trip at the start of every request, a
# third of a click's database time. After a database restart each stale connection fails one
# request instead (see docs/decisions.md).
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: cache, Celery broker, rate-limit counters ----------------------------------------
REDIS_URL = env.str("REDIS_URL")
if REDIS_URL and not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(f"REDIS_URL must be a redis:// URL, got {REDIS_URL!r}")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "attribution_site.cache.ReusingRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "attr",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TIME_LIMIT = 120
CELERY_TASK_SOFT_TIME_LIMIT = 90
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A publish must not hang a request when Redis is gone: give up fast, the beat sweep re-sends.
CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 1, "socket_timeout": 2,
                                   "max_retries": 1}
# Every queue a task is routed to, declared: `celery -A attribution_site worker` with no -Q
# consumes all of them, so nobody has to know their names. `-Q delivery` still starts a pool
# that only sends postbacks and webhooks (docs/delivery.md, "Running it").
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_QUEUES = (
    Queue("celery", Exchange("celery", type="direct"), routing_key="celery"),
    Queue("delivery", Exchange("delivery", type="direct"), routing_key="delivery"),
    Queue("raw_export", Exchange("raw_export", type="direct"), routing_key="raw_export"),
)

# --- Outbound calls -------------------------------------------------------------------------
# Every outbound call (postbacks, webhooks, privacy callbacks, Apple, Google, Meta, exports to
# S3-compatible stores) refuses loopback, private, link-local and reserved addresses
# (outbox/http.py; docs/delivery.md, "Outbound safety"). This lifts the refusal, and lets
# webhooks and privacy callbacks use plain http: local development, tests, a MinIO next door.
# Unset, it follows DEBUG (`make run`), so a receiver on the developer's own machine works; off
# in production. Its two earlier names are still read: either one on allows, and once either
# is set DEBUG no longer decides (so an explicit 0 under DEBUG keeps refusing).
_OUTBOUND_EARLIER_NAMES = ("DELIVERY_ALLOW_PRIVATE_NETWORKS", "RAW_EXPORT_ALLOW_PRIVATE_ENDPOINTS")
OUTBOUND_ALLOW_PRIVATE_NETWORKS = env.bool(
    "OUTBOUND_ALLOW_PRIVATE_NETWORKS",
    DEBUG and all(env.raw(name) is None for name in _OUTBOUND_EARLIER_NAMES),
) or any(env.bool(name, False) for name in _OUTBOUND_EARLIER_NAMES)

# --- Delivery -------------------------------------------------------------------------------
# Postbacks and webhooks (docs/delivery.md). Total budget of one outbound request, in seconds.
DELIVERY_TIMEOUT_SECONDS = env.int("DELIVERY_TIMEOUT_SECONDS", 10, minimum=1)
# One retry per delay (seconds, +/- 10 % jitter): 3 retries, 4 attempts in all by default.
DELIVERY_RETRY_DELAYS = env.int_list("DELIVERY_RETRY_DELAYS", [60, 300, 1800])
# A pending delivery this long past due is presumed to have lost its message and re-enqueued.
DELIVERY_SWEEP_GRACE_SECONDS = env.int("DELIVERY_SWEEP_GRACE_SECONDS", 120, minimum=0)
DELIVERY_LOG_RETENTION_DAYS = env.int("DELIVERY_LOG_RETENTION_DAYS", 30, minimum=1)
# Audit entries older than this are deleted by beat (docs/teams.md, "Audit log").
AUDIT_RETENTION_DAYS = env.int("AUDIT_RETENTION_DAYS", 400, minimum=1)
# How often beat sends the one outbox sweep, over every kind (docs/outbox.md, "Sweep"), and
# checks for overdue deliveries (docs/delivery.md). DELIVERY_SWEEP_INTERVAL_SECONDS, its name
# from before there was one sweep, is still read when the new name is not set.
OUTBOX_SWEEP_INTERVAL_SECONDS = env.int(
    "OUTBOX_SWEEP_INTERVAL_SECONDS",
    env.int("DELIVERY_SWEEP_INTERVAL_SECONDS", 60, minimum=1), minimum=1)
DELIVERY_SWEEP_INTERVAL_SECONDS = OUTBOX_SWEEP_INTERVAL_SECONDS
# A queue of its own (declared in CELERY_TASK_QUEUES), so slow receivers never hold up other
# work.
CELERY_TASK_ROUTES = {"delivery.*": {"queue": "delivery"},
                      # Runs write files for minutes: apart, so they never hold up other work.
                      "raw_export.*": {"queue": "raw_export"}}

# --- Apple Ads ------------------------------------------------------------------------------
# The AdServices attribution API that iOS installs' tokens are exchanged with (docs/apple.md).
# An https URL; tests point it at a local stand-in (and REQUESTS_CA_BUNDLE at its CA).
APPLE_ADS_API_URL = env.str("APPLE_ADS_API_URL", "https://api-adservices.apple.com/api/v1/")
_apple = urlsplit(APPLE_ADS_API_URL)
if _apple.scheme != "https" or not _apple.hostname or _apple.username or _apple.password:
    raise ImproperlyConfigured("APPLE_ADS_API_URL must be an https URL without credentials, "
                               f"got {APPLE_ADS_API_URL!r}")
# Total budget of one call to Apple, in seconds.
APPLE_ADS_TIMEOUT_SECONDS = env.int("APPLE_ADS_TIMEOUT_SECONDS", 10, minimum=1)
# A pending claim this long past due is presumed to have lost its message and re-sent.
APPLE_ADS_SWEEP_GRACE_SECONDS = env.int("APPLE_ADS_SWEEP_GRACE_SECONDS", 60, minimum=0)

# --- Meta and Google Ads ---------------------------------------------------------------------
# The platforms' origins (docs/networks.md): https, without a path or credentials; tests point
# them at local stand-ins (and REQUESTS_CA_BUNDLE at their CA).
GOOGLE_ADS_API_URL = env.https_origin("GOOGLE_ADS_API_URL", "https://www.googleadservices.com")
META_GRAPH_API_URL = env.https_origin("META_GRAPH_API_URL", "https://graph.facebook.com")
# The service-wide developer token Google gives an app analytics provider; empty: no claims.
GOOGLE_ADS_DEVELOPER_TOKEN = env.str("GOOGLE_ADS_DEVELOPER_TOKEN", "")
# Total budget of one call of a Google Ads claim, in seconds (the conversions sent back to
# Google and Meta are deliveries: DELIVERY_TIMEOUT_SECONDS).
GOOGLE_ADS_TIMEOUT_SECONDS = env.int("GOOGLE_ADS_TIMEOUT_SECONDS", 10, minimum=1)
# A pending Google Ads claim this long past due is presumed to have lost its message.
GOOGLE_ADS_SWEEP_GRACE_SECONDS = env.int("GOOGLE_ADS_SWEEP_GRACE_SECONDS", 60, minimum=0)

# --- Ad spend pulled from the networks (docs/networks.md, "Ad spend") ------------------------
# When GOOGLE_ADS_API_URL is set it is the base of both Google calls (the conversions and the
# Ads API's searchStream); unset, each uses Google's own host. Meta's insights share
# META_GRAPH_API_URL likewise.
GOOGLE_ADS_REPORTING_API_URL = (GOOGLE_ADS_API_URL if env.raw("GOOGLE_ADS_API_URL")
                                else "https://googleads.googleapis.com")
GOOGLE_OAUTH_TOKEN_URL = env.https_url("GOOGLE_OAUTH_TOKEN_URL",
                                       "https://oauth2.googleapis.com/token")
TIKTOK_API_URL = env.https_origin("TIKTOK_API_URL", "https://business-api.tiktok.com")
# Apple Ads Platform API (reports) and Apple's OAuth token endpoint. Not APPLE_ADS_API_URL:
# that is the AdServices attribution API, another host (docs/decisions.md).
APPLE_ADS_PLATFORM_API_URL = env.https_origin("APPLE_ADS_PLATFORM_API_URL",
                                              "https://api.ads.apple.com")
APPLE_OAUTH_TOKEN_URL = env.https_url("APPLE_OAUTH_TOKEN_URL",
                                      "https://appleid.apple.com/auth/oauth2/token")
# How often beat pulls each enabled connection's last lookback_days days.
COST_PULL_INTERVAL_MINUTES = env.int("COST_PULL_INTERVAL_MINUTES", 240, minimum=1)
# The budget of a whole pull (every page; the outbox lease is twice it plus a second), and of
# one call within it.
COST_PULL_TIMEOUT_SECONDS = env.int("COST_PULL_TIMEOUT_SECONDS", 900, minimum=10)
COST_PULL_CALL_TIMEOUT_SECONDS = env.int("COST_PULL_CALL_TIMEOUT_SECONDS", 60, minimum=1)
# A pending pull this long past due is presumed to have lost its message and re-sent.
COST_PULL_SWEEP_GRACE_SECONDS = env.int("COST_PULL_SWEEP_GRACE_SECONDS", 120, minimum=0)

# --- Privacy --------------------------------------------------------------------------------
# Data-subject requests (docs/privacy.md): the budget of one status callback POST and of one
# run of a request (its task's time limit; the outbox lease is twice it plus a second), in
# seconds, and how long a due callback or a pending run waits for its message.
PRIVACY_CALLBACK_TIMEOUT_SECONDS = env.int("PRIVACY_CALLBACK_TIMEOUT_SECONDS", 10, minimum=1)
PRIVACY_RUN_TIMEOUT_SECONDS = env.int("PRIVACY_RUN_TIMEOUT_SECONDS", 900, minimum=10)
PRIVACY_SWEEP_GRACE_SECONDS = env.int("PRIVACY_SWEEP_GRACE_SECONDS", 60, minimum=0)

# --- Fraud protection -----------------------------------------------------------------------
# The anonymous_traffic rule (docs/fraud.md): networks listed for every app (CIDR, comma
# separated) and a MaxMind-format anonymous-IP database (GeoIP2 Anonymous IP or alike); a
# network that does not parse or a database that does not open stops the start.
FRAUD_LISTED_NETWORKS = env.list("FRAUD_LISTED_NETWORKS", [])
FRAUD_ANONYMOUS_IP_DATABASE = env.str("FRAUD_ANONYMOUS_IP_DATABASE", "")
# How old a signed SDK request may be (X-Signature-Timestamp), in seconds.
FRAUD_SIGNATURE_MAX_AGE_SECONDS = env.int("FRAUD_SIGNATURE_MAX_AGE_SECONDS", 300, minimum=1)

# --- Raw-data export -----------------------------------------------------------------------
# Hourly files in the owner's bucket or directory (docs/export.md). How often beat starts a run
# of every destination, in seconds.
RAW_EXPORT_INTERVAL_SECONDS = env.int("RAW_EXPORT_INTERVAL_SECONDS", 300, minimum=10)
# The budget of one run (its task's time limit; the outbox lease is twice it plus a second).
RAW_EXPORT_TIMEOUT_SECONDS = env.int("RAW_EXPORT_TIMEOUT_SECONDS", 900, minimum=10)
RAW_EXPORT_SWEEP_GRACE_SECONDS = env.int("RAW_EXPORT_SWEEP_GRACE_SECONDS", 120, minimum=0)
# /readyz warns when a destination's files are further behind than this.
RAW_EXPORT_BEHIND_WARNING_SECONDS = env.int("RAW_EXPORT_BEHIND_WARNING_SECONDS", 7200,
                                            minimum=60)
# Where directory destinations may write (each one's path is below it); empty turns them off.
# `make run` (DEBUG) writes below ./exports by default.
RAW_EXPORT_DIRECTORY_ROOT = env.str("RAW_EXPORT_DIRECTORY_ROOT",
                                    str(BASE_DIR / "exports") if DEBUG else "")
# The region signed for when a destination names none (AWS's default; R2 and GCS take "auto").
RAW_EXPORT_DEFAULT_REGION = env.str("RAW_EXPORT_DEFAULT_REGION", "us-east-1")

# --- Auth -----------------------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
     "OPTIONS": {"min_length": 8}},
]
JWT_ACCESS_TOKEN_MINUTES = env.int("JWT_ACCESS_TOKEN_MINUTES", 720, minimum=1)
SIMPLE_JWT = {
    "ACCESS_TOKEN_LIFETIME": timedelta(minutes=JWT_ACCESS_TOKEN_MINUTES),
    "AUTH_HEADER_TYPES": ("Bearer",),
    "USER_ID_FIELD": "id",
    "USER_ID_CLAIM": "user_id",
    "SIGNING_KEY": SECRET_KEY,
    "UPDATE_LAST_LOGIN": False,
}

# --- Rate limits ----------------------------------------------------------------------------
DASHBOARD_RATE_LIMIT = env.str("DASHBOARD_RATE_LIMIT", "1000/m")
# Failed logins only (accounts/login_limits.py); sign-ups at a pace no run of the API
# reference reaches (docs/decisions.md, "Sign-up and login limits").
LOGIN_RATE_LIMIT = env.str("LOGIN_RATE_LIMIT", "10/15m")
LOGIN_RATE_LIMIT_PER_ADDRESS = env.str("LOGIN_RATE_LIMIT_PER_ADDRESS", "50/15m")
SIGNUP_RATE_LIMIT = env.str("SIGNUP_RATE_LIMIT", "1000/h")
DEFAULT_KEY_RATE_LIMIT = env.int("DEFAULT_KEY_RATE_LIMIT", 100_000, minimum=1)
RATELIMIT_ENABLE = env.bool("RATELIMIT_ENABLE", True)

# --- Tracking -------------------------------------------------------------------------------
SDK_MAX_BODY_BYTES = env.int("SDK_MAX_BODY_BYTES", 1_048_576, minimum=1024)
# The web endpoints (docs/web.md): a body's limit (the script sends at most 60,000 bytes) and
# requests per minute from one address, whatever the key (a flood with made-up keys included).
WEB_MAX_BODY_BYTES = env.int("WEB_MAX_BODY_BYTES", 65_536, minimum=1024)
WEB_IP_RATE_LIMIT = env.int("WEB_IP_RATE_LIMIT", 600, minimum=1)
CLICK_RATE_LIMIT_PER_APP = env.int("CLICK_RATE_LIMIT_PER_APP", 100_000, minimum=1)
# Clicks commit without waiting for the WAL flush (docs/decisions.md, "Clicks commit
# asynchronously"); installs, events and deliveries always wait for it.
CLICK_ASYNC_COMMIT = env.bool("CLICK_ASYNC_COMMIT", True)
# Apple measurement (docs/apple.md, "Setting it up"): count AdAttributionKit postbacks signed with
# Apple's development keys (test postbacks anyone can make on a device). Off in production.
SKAN_ACCEPT_DEVELOPMENT_POSTBACKS = env.bool("SKAN_ACCEPT_DEVELOPMENT_POSTBACKS", False)
DEFAULT_STORE_URLS = {
    "ios": env.str("DEFAULT_IOS_STORE_URL", "https://apps.apple.com/"),
    "android": env.str("DEFAULT_ANDROID_STORE_URL", "https://play.google.com/store/apps"),
    "other": env.str("DEFAULT_STORE_URL", "https://play.google.com/store/apps"),
}

# --- Links (docs/links.md) ------------------------------------------------------------------
# The scheme and host of short links on the service's own host ({LINKS_BASE_URL}/l/{code}).
# Unset: each API response builds it from the request's scheme and host.
LINKS_BASE_URL = env.str("LINKS_BASE_URL").rstrip("/")
if LINKS_BASE_URL:
    _links_base = urlsplit(LINKS_BASE_URL)
    if (_links_base.scheme not in ("http", "https") or not _links_base.hostname
            or _links_base.path or _links_base.query or _links_base.fragment):
        raise ImproperlyConfigured(
            f"LINKS_BASE_URL must be an origin such as https://go.example.com, "
            f"got {LINKS_BASE_URL!r}")

# --- Email (docs/teams.md, "Invitations") ---------------------------------------------------
# Invitations are emailed only when EMAIL_HOST is set; without it the admin who invites gets
# the accept URL once and passes it on. Django's SMTP settings, read from the environment.
EMAIL_HOST = env.str("EMAIL_HOST")
EMAIL_PORT = env.int("EMAIL_PORT", 587, minimum=1)
EMAIL_HOST_USER = env.str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", True)
EMAIL_USE_SSL = env.bool("EMAIL_USE_SSL", False)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("Set one of EMAIL_USE_TLS (STARTTLS) and EMAIL_USE_SSL, not both")
# The admin who invites waits for the mail server's answer: a server that hangs must not hold
# the request for long.
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT_SECONDS", 10, minimum=1)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", "Attribution <noreply@localhost>")

# --- Django REST framework ------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # First: it takes only `Bearer pat_…` and leaves every JWT to the next.
        "teams.authentication.PersonalAccessTokenAuthentication",
        "accounts.authentication.BearerTokenAuthentication",
    ],
    # A view's `capability` is checked wherever it is declared (attribution_site/capabilities.py).
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated",
                                   "attribution_site.api.permissions.CapabilityRequired"],
    "DEFAULT_THROTTLE_CLASSES": ["attribution_site.api.throttling.DashboardUserThrottle"],
    "DEFAULT_RENDERER_CLASSES": ["attribution_site.api.renderers.EnvelopeJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["attribution_site.api.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "attribution_site.api.exceptions.envelope_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "apps_registry.schema.AccessRulesAutoSchema",
    "UNAUTHENTICATED_USER": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Install attribution API",
    "DESCRIPTION": "Self-hosted install attribution: clicks, installs, events, postbacks, "
    "webhooks and analytics. Every JSON body is wrapped in the envelope "
    "`{success, data}` or `{success: false, error: {code, message, details}}`.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": ["attribution_site.api.schema.envelope_postprocessing_hook"],
    "COMPONENT_SPLIT_REQUEST": True,
    # The click redirector is a plain Django view (no JSON, always a 302); described by hand.
    "APPEND_PATHS": {
        "/api/v1/clicks": {"get": {
            "operationId": "clicks_redirect",
            "summary": "Record an ad click and redirect to the store",
            "tags": ["clicks"],
            "security": [],
            "parameters": [
                {"name": name, "in": "query", "required": name == "app_id",
                 "schema": {"type": "string"}, "description": description}
                for name, description in [
                    ("app_id", "App UUID"), ("c", "Campaign id"),
                    ("pid", "Media source (publisher id)"), ("af_adset", "Ad set"),
                    ("af_ad", "Ad"), ("advertising_id", "IDFA or GAID"),
                    ("redirect_url", "Absolute http(s) URL; highest priority")]
            ],
            "responses": {"302": {"description": "Redirect to redirect_url, the app's store "
                                  "URL for the device's platform, or the default store URL. "
                                  "Always a 302, whatever the input."}},
        }},
    },
}

# --- Internationalization, static -----------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns on every request without it
WHITENOISE_USE_FINDERS = True  # serve the admin's files from the apps: no collectstatic step
# The admin's CSS and JS, served by the app itself under gunicorn (no separate web server).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- Analytics ------------------------------------------------------------------------------
# Beat refreshes the daily rollups every INTERVAL: what committed since the last refresh is
# added, so figures lag by about INTERVAL; queued day rebuilds (repairs, backlogs) go on for at
# most BUDGET per run. Without Redis the web process runs beat's schedule itself
# (attribution_site/scheduler.py), and every analytics request refreshes the rollups first too,
# so a write shows on the next read. See docs/analytics.md.
ANALYTICS_ROLLUP_INTERVAL_SECONDS = env.int("ANALYTICS_ROLLUP_INTERVAL_SECONDS", 2, minimum=1)
ANALYTICS_ROLLUP_BUDGET_SECONDS = env.int("ANALYTICS_ROLLUP_BUDGET_SECONDS", 50, minimum=1)
ANALYTICS_REFRESH_ON_READ = env.bool("ANALYTICS_REFRESH_ON_READ", not REDIS_URL)
ANALYTICS_MAX_RANGE_DAYS = env.int("ANALYTICS_MAX_RANGE_DAYS", 366, minimum=1)
ANALYTICS_TIME_DECAY_HALF_LIFE_HOURS = env.int("ANALYTICS_TIME_DECAY_HALF_LIFE_HOURS", 24,
                                               minimum=1)
_default_currency = env.str("ANALYTICS_DEFAULT_CURRENCY", "USD")
if currency_code(_default_currency) is None:
    raise ImproperlyConfigured("ANALYTICS_DEFAULT_CURRENCY must be an ISO 4217 code such as USD, "
                               f"got {_default_currency!r}")
ANALYTICS_DEFAULT_CURRENCY = currency_code(_default_currency)
# Who may change the instance-wide exchange rates in the console (docs/analytics.md,
# "Currencies"): `admins`, any organization's admin; `staff`, only Django staff users.
CURRENCY_RATES_EDITORS = env.choice("CURRENCY_RATES_EDITORS", "admins",
                                    {"ADMINS", "STAFF"}).lower()

# --- Scheduled jobs (celery beat) -----------------------------------------------------------
# Every job beat sends, in one place. A frequent job expires before its next run, so runs that
# piled up while no worker was free are dropped rather than replayed.
CELERY_BEAT_SCHEDULE = {
    "analytics.rollups_refresh": {
        "task": "analytics.rollups_refresh", "schedule": float(ANALYTICS_ROLLUP_INTERVAL_SECONDS),
        "options": {"expires": ANALYTICS_ROLLUP_INTERVAL_SECONDS}},
    "analytics.flood_check": {  # click flooding and post-attribution (docs/fraud.md)
        "task": "analytics.flood_check", "schedule": 600.0, "options": {"expires": 540}},
    "outbox-sweep": {  # every outbox kind's, in turn (docs/outbox.md, "Sweep")
        "task": "outbox.sweep", "schedule": float(OUTBOX_SWEEP_INTERVAL_SECONDS),
        "options": {"expires": max(1, OUTBOX_SWEEP_INTERVAL_SECONDS - 5)}},
    "delivery-prune": {
        "task": "delivery.prune", "schedule": 3600.0, "options": {"expires": 3000}},
    "tracking.prune_clicks": {
        "task": "tracking.prune_clicks", "schedule": crontab(hour=3, minute=17)},
    "tracking.partitions_ensure": {  # time partitions, PostgreSQL (tracking/partition_sql.py)
        "task": "tracking.partitions_ensure", "schedule": crontab(minute=1),
        "options": {"expires": 3000}},
    "retention.enforce": {  # each app's IP and raw-row limits (docs/privacy.md, "Retention")
        "task": "retention.enforce", "schedule": crontab(minute=23),
        "options": {"expires": 3000}},
    "teams.prune": {  # expired invitations and ended access tokens (docs/teams.md)
        "task": "teams.prune", "schedule": crontab(minute=37), "options": {"expires": 3000}},
    "audit.prune": {  # entries older than AUDIT_RETENTION_DAYS (docs/teams.md, "Audit log")
        "task": "audit.prune", "schedule": crontab(hour=4, minute=41),
        "options": {"expires": 3000}},
    "raw-export-schedule": {  # a run of every destination (docs/export.md, "Runs")
        "task": "raw_export.schedule", "schedule": float(RAW_EXPORT_INTERVAL_SECONDS),
        "options": {"expires": max(5, RAW_EXPORT_INTERVAL_SECONDS - 5)}},
    "networks.cost_pulls_schedule": {  # ad spend (docs/networks.md, "Ad spend")
        "task": "networks.cost_pulls_schedule", "schedule": 60.0 * COST_PULL_INTERVAL_MINUTES,
        "options": {"expires": 60 * COST_PULL_INTERVAL_MINUTES - 5}},
}

# --- Logging --------------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {"django.request": {"level": "ERROR"},
                # Their DEBUG lines carry signed request headers (an access key ID among
                # them): kept out of the log whatever LOG_LEVEL says.
                "botocore": {"level": "WARNING"}, "boto3": {"level": "WARNING"},
                "s3transfer": {"level": "WARNING"}},
}
