"""Session results outside pytest: what is recorded per comparison, aggregates, baselines and
their statistics, gates, the JSON report and its renderings. Nothing here imports pytest, so the
command line scores datasets with the same rules as the plugin."""
