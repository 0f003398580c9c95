"""The benchmark baseline: a minimal Django project with the default middleware whose only view
answers 302. Served with the same gunicorn settings as the service (bench/hotpaths.py)."""

from django.http import HttpResponseRedirect
from django.urls import path

SECRET_KEY = "baseline-only"
DEBUG = False
ALLOWED_HOSTS = ["*"]
ROOT_URLCONF = __name__
INSTALLED_APPS = [
    "django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes",
    "django.contrib.sessions", "django.contrib.messages", "django.contrib.staticfiles",
]
MIDDLEWARE = [  # Django's startproject default
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
USE_TZ = True


def redirect(request):
    return HttpResponseRedirect("https://play.google.com/store/apps/details?id=bench")


urlpatterns = [path("r", redirect)]

if __name__ != "__main__":
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "baseline_site")
    from django.core.wsgi import get_wsgi_application

    application = get_wsgi_application()
