"""The stores' tables. One version number per kind; a store of another version or kind is refused.

Two kinds of encrypted store share one format: a suite store (results, one per suite) and the
audit log (one per appliance, kept longer than any result, so never inside a suite store).
"""

from __future__ import annotations

from typing import Literal

StoreKind = Literal["suite", "audit"]
SCHEMA_VERSION = 1
AUDIT_SCHEMA_VERSION = 1

# Every table is keyed by (run_id, instance_id) so a killed run resumes where it stopped.
DDL = """
CREATE TABLE IF NOT EXISTS meta (
    key VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    run_id VARCHAR PRIMARY KEY,
    suite VARCHAR NOT NULL,
    run_entry VARCHAR NOT NULL,
    scenario VARCHAR NOT NULL,
    scenario_args VARCHAR NOT NULL,
    model VARCHAR NOT NULL,
    deployment VARCHAR NOT NULL,
    main_metric VARCHAR NOT NULL,
    access VARCHAR NOT NULL,  -- public | gated | private: gated and private results are sensitive
    settings VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS instances (
    run_id VARCHAR NOT NULL,
    instance_id VARCHAR NOT NULL,
    ordinal INTEGER NOT NULL,
    split VARCHAR NOT NULL,
    input VARCHAR NOT NULL,
    references_json VARCHAR NOT NULL,
    extra_json VARCHAR NOT NULL,
    PRIMARY KEY (run_id, instance_id)
);
CREATE TABLE IF NOT EXISTS requests (
    run_id VARCHAR NOT NULL,
    instance_id VARCHAR NOT NULL,
    prompt VARCHAR NOT NULL,
    params_json VARCHAR NOT NULL,
    PRIMARY KEY (run_id, instance_id)
);
CREATE TABLE IF NOT EXISTS completions (
    run_id VARCHAR NOT NULL,
    instance_id VARCHAR NOT NULL,
    ok BOOLEAN NOT NULL,
    text VARCHAR,
    finish_reason VARCHAR,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    latency_s DOUBLE,
    attempts INTEGER NOT NULL,
    error_type VARCHAR,
    error_message VARCHAR,
    logprobs_json VARCHAR,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (run_id, instance_id)
);
CREATE TABLE IF NOT EXISTS scores (
    run_id VARCHAR NOT NULL,
    instance_id VARCHAR NOT NULL,
    metric VARCHAR NOT NULL,
    value DOUBLE NOT NULL,
    extracted VARCHAR,
    PRIMARY KEY (run_id, instance_id, metric)
);
"""

# Append-only by code: nothing in the program updates or deletes a row. Each record's hash covers
# its fields and the previous record's hash, so an edited or removed record breaks the chain.
AUDIT_DDL = """
CREATE TABLE IF NOT EXISTS meta (
    key VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    seq BIGINT PRIMARY KEY,
    recorded_at VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    actor VARCHAR NOT NULL,
    details_json VARCHAR NOT NULL,
    prev_hash VARCHAR NOT NULL,
    hash VARCHAR NOT NULL
);
"""

SCHEMAS: dict[StoreKind, tuple[str, int]] = {"suite": (DDL, SCHEMA_VERSION), "audit": (AUDIT_DDL, AUDIT_SCHEMA_VERSION)}
