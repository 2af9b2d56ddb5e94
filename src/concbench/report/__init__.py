"""Reports on stored runs: aggregation, terminal tables, JSON records."""
