"""PHI detection and redaction: typed spans for the HIPAA Safe Harbor identifiers, masks or surrogates.

Rule packs (patterns, context words, dictionaries, surrogate policy) live in the `redaction_dir`
folder; nothing here reaches the network or loads a model.

    detect(text) -> list[Span]                    spans with the default rule pack
    Detector.from_dir(folder).detect(text)        spans with a given rule pack
    mask(text, spans) / DocumentSurrogates(...)   the two redaction styles
    scan_file / apply_file                        JSONL in, JSONL out, written atomically
"""

from medhelm_local.redact.batch import BatchResult, RedactionInputError, apply_file, scan_file
from medhelm_local.redact.detector import Detector, detect, detector_for
from medhelm_local.redact.patterns import RedactionRuleError
from medhelm_local.redact.surrogates import DocumentSurrogates, Policy, load_policy, mask, shift_date
from medhelm_local.redact.types import PhiType, Span, merge_spans

__all__ = [
    "BatchResult",
    "Detector",
    "DocumentSurrogates",
    "PhiType",
    "Policy",
    "RedactionInputError",
    "RedactionRuleError",
    "Span",
    "apply_file",
    "detect",
    "detector_for",
    "load_policy",
    "mask",
    "merge_spans",
    "scan_file",
    "shift_date",
]
