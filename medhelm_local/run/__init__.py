"""The run stage: run entries and where they come from, planning, and the suite scheduler.

    entries.py    MedHELM run entries (`benchmark:arg=value,model=...,model_deployment=...`)
    entry_sources.py    entries from the command line, MedHELM conf files and YAML suite files
    plan.py       entries resolved against settings, the egress allowlist and the data
    connections.py each deployment's connections, opened while the store opens
    scheduler.py  every entry of a command at once, each deployment kept full, streamed in batches
    outcomes.py   what each run produced, and its aggregates computed as it finishes
    progress.py   how a run reports progress (a bar per entry and a total, or nothing)
    readiness.py  the checks behind `doctor`: packages, key, store, data, endpoints
"""
