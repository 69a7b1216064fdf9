"""What a run's results are: the one owner of computing and reading them.

Above `store/` (which stores rows) and `metrics/` (which scores one answer and declares how a metric
aggregates): a run's aggregates (`aggregates`), its run-level figures such as efficiency, calibration,
agreement and robustness (`figures`), what a command's runs produced (`outcomes`), shards merged into one
store (`merge`), a suite store opened for reading from Python (`suite`), and comparisons between models:
paired differences on the same instances (`paired`) and HELM's mean win rates (`winrate`).
"""
