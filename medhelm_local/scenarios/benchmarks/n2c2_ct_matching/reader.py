"""n2c2 2018 Track 1 (cohort selection for clinical trials): does the patient meet one inclusion criterion?

One instance per patient file of the test set (`test/*.xml`: the notes in `<TEXT>`, the gold labels
in `<TAGS>` as `<CRITERION met="met|not met"/>`), for the criterion named by `subject=`. The prompt
is MedHELM's (Wornow et al. 2024), verbatim: notes split at the rows of 100 asterisks, each headed
by its "Record date:", and the last date as the current one. The notes are the record that may be
cut to fit a model (their end, the most recent, is kept).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from xml.etree import ElementTree

from medhelm_local.errors import RunEntryError
from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.long_inputs import compose
from medhelm_local.scenarios.readers import reader

_PAD = " " * 4  # MedHELM's definitions and prompt continue lines inside strings: 4 spaces stay in the text
# MedHELM's definitions of the criteria it evaluates (its LONG_DEFINITIONS), verbatim.
DEFINITIONS = {
    "ABDOMINAL": "History of intra-abdominal surgery. This could include any form of intra-abdominal surgery, "
                 f"{_PAD}including but not limited to small/large intestine resection or small bowel obstruction",
    "ADVANCED-CAD": f"Advanced cardiovascular disease (CAD). For the purposes of this annotation, we define {_PAD}"
                    "“advanced” as having 2 or more of the following: (a) Taking 2 or more medications to treat CAD "
                    f"(b) History {_PAD}of myocardial infarction (MI) (c) Currently experiencing angina (d) Ischemia, "
                    f"past or present. {_PAD}The patient must have at least 2 of these categories (a,b,c,d) to meet "
                    f"this criterion, otherwise the patient {_PAD}does not meet this criterion. For ADVANCED-CAD, be "
                    f"strict in your evaluation of the patient -- if they just {_PAD}have cardiovascular disease, "
                    "then they do not meet this criterion.",
    "CREATININE": "Serum creatinine level above the upper normal limit",
}
SUBJECTS = tuple(DEFINITIONS)
_DATE = re.compile(r"Record date: (\d{4}-\d{2}-\d{2})")
_NOTE_BREAK = "*" * 100
_RULE = "-" * 100


def check_subject(args: Mapping[str, str]) -> None:
    """subject= must name a criterion MedHELM evaluates."""
    if args.get("subject", SUBJECTS[0]) not in DEFINITIONS:
        raise RunEntryError(f"n2c2_ct_matching has no subject '{args['subject']}'", where="run entry for "
                            "n2c2_ct_matching", fix=f"use one of: {', '.join(SUBJECTS)}")


def parse_patient(path: Path) -> tuple[list[str], dict[str, str]]:
    """The patient's notes (split at the asterisk rows) and the criteria labels, as MedHELM reads them."""
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as exc:
        raise ValueError(f"{path.name} is not well-formed XML ({exc})") from None
    text = (root.findtext("TEXT") or "").replace("\n\n\n", "\n")
    notes = [part.strip() for part in text.split(_NOTE_BREAK) if part.strip()]
    tags = {tag.tag: tag.get("met", "") for element in root.iter("TAGS") for tag in element}
    return notes, tags


def _date(note: str) -> str | None:
    found = _DATE.search(note)
    return found.group(1) if found else None


def prompt_parts(subject: str, notes: list[str]) -> tuple[str, str, str]:
    """MedHELM's prompt as (text before the notes, the notes, text after them)."""
    record = ("\n" + "*" * 50 + "\n\n").join(f"## Note #{i + 1}\nDate: {_date(note) or ''}\n{note}"
                                              for i, note in enumerate(notes))
    current = next((d for d in map(_date, reversed(notes)) if d), None)
    before = (f"\n{_PAD}# Task\n{_PAD}Your job is to decide whether the given patient meets the inclusion criterion "
              f"for a clinical trial.\n\n{_PAD}# Inclusion Criterion\n{_PAD}The inclusion criterion being assessed "
              f"is: \"{subject}\".\n{_PAD}The definition of the inclusion criterion is: \"{DEFINITIONS[subject]}\"."
              f"\n\n{_PAD}# Patient Clinical Notes\n{_PAD}Below is a set of {len(notes)} clinical notes describing "
              f"the patient's current health status. {_PAD}Each note is separated by a header with the date that "
              f"the note was written, as well as a long list of asterisks.\n\n{_PAD}{_RULE}\n\n{_PAD}")
    after = (f"\n\n{_PAD}{_RULE}\n\n{_PAD}# Current Date\n{_PAD}Assume that the current date is: {current}\n\n"
             f"{_PAD}# Question\n{_PAD}Does the patient meet the inclusion criterion \"{subject}\"?\n{_PAD}")
    return before, record, after


@reader("n2c2_ct_matching", check_args=check_subject)
def read_n2c2_ct_matching(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per test/*.xml patient file, in file-name order, keyed by its name (e.g. 100)."""
    subject = args.get("subject", SUBJECTS[0])
    names = sorted(n for n in paths if PurePosixPath(n).parent.name == "test" and n.endswith(".xml"))
    if not names:
        raise ValueError("there is no test/*.xml file (the n2c2 2018 Track 1 test set)")
    for name in names:
        notes, tags = parse_patient(paths[name])
        if subject not in tags:
            raise ValueError(f"{name} has no {subject} tag")
        met = tags[subject] == "met"
        text, extra = compose(*prompt_parts(subject, notes))
        yield Instance(PurePosixPath(name).stem, text, (Reference("yes", met), Reference("no", not met)),
                       extra=MappingProxyType(extra))
