"""The shipped rules' regexes and the texts their faster searches are checked on (test_redact_regex_speed and
test_redact_regex_lowered): every hand-annotated note, generated notes, each in capitals and lower case, the
pathological inputs, and random strings of the characters the rewrites reason about."""

from __future__ import annotations

import random
import re

from medhelm_local.redact.patterns import RuleFile, _expand
from medhelm_local.settings import default_redaction_dir
from medhelm_local.yaml_lines import parse_located
from support import phi_notes
from support.pathological import ADVERSARIAL, PATHOLOGICAL
from support.synthetic_notes import generate

RULES_PATH = default_redaction_dir() / "rules.yaml"
# Characters the rewrites reason about: letters whose case has more than two forms (Kelvin sign, long s, dotted
# and dotless i), digits, the marks the look-behinds name, line ends, and accented letters.
TRICKY = "aAkKsSiI\u212a\u017f\u0130\u0131é0123456789 \t\n\r.,/-'’#:()+@%$xX"


def shipped() -> list[tuple[str, str]]:
    """("pattern NAME" or "negative NAME", the regex with its macros expanded) for every rule of rules.yaml."""
    spec = RuleFile.model_validate(parse_located(RULES_PATH.read_text(encoding="utf-8"), RULES_PATH,
                                                 "redaction rule file").data)
    rules = [(f"pattern {p.name}", _expand(p.regex, spec.macros)) for p in spec.patterns]
    return rules + [(f"negative {n.name}", _expand(n.regex, spec.macros)) for n in spec.negatives]


def texts() -> list[str]:
    """The texts the checks run on (see the module's docstring)."""
    found = [note.text for name in phi_notes.SETS for note in phi_notes.load(name)]
    found += [note.text for note in generate(120, 3)]
    found += [t.upper() for t in found[:200]] + [t.lower() for t in found[:200]]
    found += [*PATHOLOGICAL.values(), ADVERSARIAL]
    rng = random.Random(32)
    found += ["".join(rng.choice(TRICKY) for _ in range(rng.randint(1, 60))) for _ in range(400)]
    return found


def found(pattern: re.Pattern[str], texts: list[str]) -> list[list[tuple[object, ...]]]:
    """Every match's span, groups and named groups, text by text."""
    return [[(m.span(), m.groups(), m.groupdict()) for m in pattern.finditer(t)] for t in texts]
