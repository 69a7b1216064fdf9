"""Words and word tests the name rules read: what stands between a cue and a name, who a credential names, what
reports to a person, and the shapes of words that are shorthand rather than names (issue 32)."""

from __future__ import annotations

import re

# What may stand between a cue and the name: "Dr. Lee", "Name: Lee", "wife (Mary)", "hi, Martha".
SKIP_AFTER_CUE = {"titles_abbrev": ".", "titles_word": "", "name_labels": ".:#-", "name_verbs": ':,?"',
                   "relations": ':,;(-"', "greetings": ",", "credentials": ""}


# Weekdays as notes write them, whole or cut to three or four letters ("since tues 3/2", "WED 3-12"); "sun" is left out,
# being a word too.
WEEKDAYS = frozenset({"mon", "tue", "tues", "wed", "weds", "thu", "thur", "thurs", "fri", "sat", "monday", "tuesday",
                      "wednesday", "thursday", "friday", "saturday", "sunday"})

# Words that say which nurse or doctor, written before a credential: "(NIGHT RN)", "float rn", "ICU RN".
ROLE_WORDS = frozenset("""night day days nights evening evenings charge float travel traveler agency staff student
primary bedside resource admitting triage covering oncoming offgoing relief icu floor unit transport dialysis pacu cath
ed er or the my your her his their our new care wound ostomy iv picc infusion transplant cardiac oncology psych bmt
ccu micu sicu neuro surgical trauma research clinical practice home visiting vna school hospice palliative prior
previous next other enterostomal apheresis second third 2nd 3rd another extra additional assigned incoming outgoing
medicine surgery ortho gi renal pulm pulmonary cards cardiology neurology nephrology urology gyn ob anesthesia ent
vascular thoracic colorectal burn stroke pain peds pediatric geriatrics""".split())
# Words after which the word before names a team, not a person: "per eve team", "PER PAH SERVICE".
TEAMS = frozenset({"team", "teams", "service", "services", "svc", "team's"})
# Eponym followers that after a possessive are a person's things: "DAUGHTER BRIANNA'S CELL".
OWNED = frozenset({"cell", "bed", "bag", "line", "phone", "number", "home", "car", "house", "room", "belt", "mask"})
# Followers that after two joined names may still be about people ("MARY AND JOE-BOB CELLS"): no eponym pair then.
PERSONAL = frozenset({"cells", "body", "bodies", "type", "position", "stage", "class", "grade", "lift", "vest"})
# Dotted letters that are an abbreviation, not a nurse's initials: "p.o.", "b.i.d.", "n.b.".
DOTTED_WORDS = frozenset({"po", "pr", "iv", "im", "sq", "sc", "bid", "tid", "qid", "qd", "qod", "prn", "hs", "ac",
                          "pc", "nb", "ok", "am", "pm", "ie", "eg", "vs", "us", "md", "rn", "np", "pa", "dr",
                          "qh", "gi"})
# Words before a saint's or a holy figure's name, which names a place, a statue or a thing: "ST JUDE", "SAN LAZARO",
# "the virgin mary".
SAINT_WORDS = frozenset({"st", "saint", "san", "santo", "santa", "sao", "virgin", "virgen"})
# Cue verbs of speech: a quote after them opens what was said ('said "ok"', 'SAYS "MÈSI" TO EVERYONE'), where "goes by"
# or "called" open a name.
SPEECH_VERBS = frozenset({"says", "said", "states", "stated", "say", "saying"})
# Words that report to a person named just before them: "BAKER AWARE", "j lund notified", "sue rn notified".
REPORTED = frozenset({"aware", "notified", "paged", "informed", "updated"})
# What follows a person's name and not a verb or a modal: "WIFE MAY IS AT", "wife hope and daughter".
SAID_OF_A_PERSON = frozenset({"is", "was", "and", "called", "visited", "visiting", "here", "aware", "at", "lives",
                              "says", "said", "came", "arrived", "updated", "wants", "asked", "phoned", "present",
                              "has", "had", "who", "(", ",", "stayed", "left", "went", "brought", "stays", "requests",
                              "requested", "agrees", "agreed", "declined", "states", "stated", "feels", "understands",
                              "signed", "spent", "slept", "remains", "drove", "flew", "brings", "took",
                              # a verb in -s, which no modal goes before: "NIECE MAY CHECKS ON HER DAILY"
                              "checks", "helps", "comes", "visits", "calls", "works", "drives", "knows", "speaks",
                              "handles", "manages", "takes", "plans", "thinks", "prefers", "reports"})
# After a relation and a first name that is also a word, more that is said of a person: "daughter peg in all
# afternoon", "husband ed asking", "HUSBAND ART ON PHONE", "ed very shaken".
SAID_OF_A_RELATIVE = SAID_OF_A_PERSON | {"asking", "asks", "very", "in", "on", "staying", "spending", "upset",
                                          "tearful", "crying"}
# Verbs only a person does, that make the word between a relation and them a name: "son chip called".
PERSON_VERBS = frozenset({"called", "visited", "phoned", "updated", "met", "spoke"})
# Credentials of a person whom a note names right after them ("BY NP DELACROIX"); "PT", "OT" and "SLP" are also
# services, written before what they do ("SLP EVALS").
NAMING_CREDENTIALS = frozenset({"np", "md", "rn", "pa", "crna", "lpn", "rrt"})
# Words after which a person may be named before a credential on a line without case: "REPORT TO HOPE RN".
BEFORE_A_NURSE = frozenset({"to", "by", "with", "w", "per", "from", "and", "called", "paged", "notified", "informed"})
# How a sign read, after its eponym (kept out of rules.yaml's eponym_followers, which the vocabulary build reads
# as the nouns eponyms name: "antibody positive" is no eponym).
SIGN_READ = frozenset({"neg", "pos", "negative", "positive"})
# Endings of the infections and inflammations an organism or eponym names ("candida esophagitis"): read after a name
# word only (so "-itis", which ends surnames too, is safe here); procedures and findings ("-ectomy", "-emia") follow
# a clinician's or patient's name in notes too often.
DISEASE_ENDINGS = ("itis", "osis", "iasis")
NOT_DISEASES = frozenset({"diagnosis", "diagnoses", "prognosis", "hypnosis"})  # "NAME: ANN LEE DIAGNOSIS: ..."
# Words never part of a name: the patient and staff as roles, and words a note writes after a name that are never
# its surname ("ALONZO LEFT # FOR SW", "bev work # 781...", "from puerto rico friday").
NEVER_NAMES = frozenset({"patient", "pt", "doctor", "nurse", "left", "right", "work", "cell", "home", "monday",
                         "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "done", "mon", "tue",
                         "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
                         # "CALL MD IF", "ON-CALL RN", "INTERPRETER SERVICES CALLED": a service, not a person
                         "call", "services", "service", "svcs",
                         "relations",  # "PT RELATIONS SPOKE W/ HER": the hospital's patient relations office
                         "office",  # "PT'S PCP OFFICE CALLED": the practice, not a person
                         "wave", "waves",  # "ST AND T WAVE CHANGES", "PEAKED T WAVES": a tracing's wave
                         "many", "several"})  # "MANY STATES HAVE LAWS": how many, before a verb that reads as "says"
_ABBREVIATION = re.compile(r"[a-z][A-Z]{2}|[a-z][A-Z]$")
# How many answers a memo keeps before it starts again (a word's answers depend on its text and its line's case
# alone; a long export meets new identifiers without end, so the memo is bounded).
MEMO_LIMIT = 1 << 16


def mixed_abbreviation(text: str) -> bool:
    """Capitals after a small letter ("MoCA", "HbA1c", "FiO2"): a word in one case never is (asked of every word)."""
    return not (text.islower() or text.isupper()) and _ABBREVIATION.search(text) is not None


def verb_shaped(key: str) -> bool:
    """A word no list knows that ends like a verb in the past ("trached", "desatted", "tol'd"): shorthand, not a
    surname. Not "-eed" (Rasheed, Hameed) nor "-ing", which ends given names too (Xiaoling)."""
    return len(key) >= 6 and (key.endswith("'d") or (key.endswith("ed") and not key.endswith("eed")))


def phrase_index(lists: dict[str, frozenset[str]]) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """Cue phrases by their first word: each phrase split into its words (stops, apostrophes and spaces apart)."""
    index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for kind, phrases in lists.items():
        for phrase in phrases:
            parts = tuple(p for p in re.split(r"[\s.'’]+", phrase.replace("'s", " s")) if p)
            if parts:
                index.setdefault(parts[0], []).append((parts, kind))
    return index
