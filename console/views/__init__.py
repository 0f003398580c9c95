"""Console pages, one module per area; console/urls.py routes them under /console/."""
