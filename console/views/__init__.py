"""Console pages, one module per area; each module lists its own `urlpatterns`, which
console/urls.py includes under /console/."""
