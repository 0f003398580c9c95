"""Read-only reporting over tracking's tables, in plain rows, for the analytics and links apps
(spec: Analytics endpoints; Links, "Reports"): they read clicks, installs and events only
through this package. `rollup_rows` feeds the daily rollups, `export_rows` streams the CSV
exports, `link_rows` counts a link's clicks and installs per day, and `demo_load` is its one
write, the demo seeder's bulk loader.
"""
