"""concbench: measures what concurrency costs."""
