"""The command-line layer: parse, call the library, print."""

import time

# When this process started (the package runs before any command module): timings in the log.
STARTED = time.perf_counter()
# `ctx.meta` key: the egress allowlist `settings_from` loaded with a command's settings, which the guard enforces.
# A command's clients take this one, not a second load of the policy: one read, and nothing the policy's files
# say between two reads can differ.
ALLOWLIST = "medhelm_local.allowlist"
