"""Routes of privacy, mounted under /api/v1/."""

urlpatterns: list = []
