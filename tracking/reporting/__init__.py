"""Read-only reporting over tracking's tables, in plain rows, for the analytics app (spec:
Analytics endpoints): analytics reads clicks, installs and events only through this package.
`rollup_rows` feeds the daily rollups, `export_rows` streams the CSV exports, and `demo_load`
is its one write, the demo seeder's bulk loader.
"""
