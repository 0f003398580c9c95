"""Routes of this module (filled in by its author)."""

urlpatterns: list = []
