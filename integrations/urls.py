"""Routes of integrations, mounted under /api/v1/."""

urlpatterns: list = []
