"""Routes of consent, mounted under /api/v1/."""

urlpatterns: list = []
