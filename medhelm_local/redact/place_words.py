"""Words the place rules read: connectors inside names, street suffixes, region words after a facility's "of",
whom a facility is for, practice and facility words, places that are no town, what a house number may carry, and
the words around a hospital's abbreviation or a ward, the moves that bring a patient to one, a town's services and
compass words, the states a town is written before, the words streets are named with, and two tests of the words before
a token (a place cue, "university of")."""

from __future__ import annotations

from medhelm_local.redact.tokens import Token

# Words that may sit inside a street, town or facility name without a capital: "Rua do Salitre".
CONNECTORS = frozenset("de del la las los el do da dos das di della van von der den ten y e of the".split())


# Suffixes that name a street written without its number after "on" or "at": "FOUND DOWN ON WASHINGTON ST".
NAMED_STREET_SUFFIXES = frozenset({"street", "st", "avenue", "ave", "road", "rd", "boulevard", "blvd", "lane",
                                    "terrace", "parkway", "highway"})
# Postal codes of states that a note writes after a town without a comma ("from concord nh tomorrow", "LOWELL MA"),
# less those that are words or shorthand there ("in", "or", "me", "hi", "ok", "pa", "md", "co", "ct", "de", "la").
STATE_CODES_AFTER_A_TOWN = frozenset({"ma", "nh", "ri", "vt", "ny", "nj", "fl", "nc", "sc", "ga", "tx", "az", "nm",
                                      "nv", "ut", "wa", "wv", "ky", "tn", "mn", "wi", "il", "ia", "ks", "ne",
                                      "nd", "sd", "mt", "wy", "id", "ak", "ar", "ms", "mo", "va", "ca"})
# Words that clinical writing uses too but that name streets all over New England ("on cedar st in somerville", "AT
# CENTRE ST AND SOUTH ST"): before a street's suffix after "on", "at", "off" or "near" they are its name.
STREET_NAME_WORDS = frozenset({"cedar", "oak", "main", "high", "school", "church", "summer", "spring", "center",
                               "centre", "south", "north", "east", "west", "mission", "chestnut", "walnut", "water",
                               "bridge", "river", "union", "mill", "prospect", "pleasant", "central", "beacon", "green",
                               "forest", "lake", "grove", "broad", "market", "state", "front", "canal", "highland",
                               "locust", "spruce", "birch", "hawthorne", "linden", "laurel", "myrtle", "holly",
                               "cottage", "academy", "college", "court", "middle", "common", "village", "orchard",
                               "crescent", "cross", "bay", "shore", "harbor", "ridge", "brook", "temple", "pearl",
                               "silver", "cherry", "vine"})
# Words that name a region before a place after a facility's "of": "ASSOCIATES OF GREATER LOWELL", "CENTER OF NEW
# ENGLAND", "HOSPITAL OF WESTERN MASS" (not "upper" or "lower", which name parts of a body).
REGION_WORDS = frozenset({"greater", "western", "eastern", "northern", "southern", "central", "north", "south", "east",
                           "west", "new", "northeast", "northwest", "southeast", "southwest", "northeastern",
                           "northwestern", "southeastern", "southwestern", "metro", "metrowest", "upstate", "coastal"})
# Region names a note writes short or that a town list does not hold: "OF CENTRAL MASS", "of new england".
REGION_NAMES = frozenset({"mass", "england", "shore", "valley", "berkshires", "cape"})
# Whom a named facility is for, which its name goes on with: "SHRINERS HOSPITAL FOR CHILDREN", "mercy hospital for
# women", "LAKEVIEW HOSPITAL FOR SPECIAL SURGERY".
FOR_WHOM = (("children",), ("sick", "children"), ("women",), ("infants",), ("veterans",), ("special", "surgery"),
             ("joint", "diseases"))
# Words after a facility's "of" that on a line without case, with no place after them, read as a side or a part
# ("CARDIAC REHAB OF LEFT SIDE", "HOSPITAL OF CENTRAL LINE", "rehab of north side"), not a place.
SIDE_WORDS = REGION_WORDS | frozenset({"left", "right", "upper", "lower", "mid", "anterior", "posterior", "inferior",
                                         "superior", "lateral", "medial", "proximal", "distal", "bilateral"})
# Words a practice's name goes on with after its specialty and before its "of": "NEUROLOGY CENTER OF NEW ENGLAND".
PRACTICE_WORDS = frozenset({"center", "centre", "ctr", "associates", "assoc", "group", "clinic", "practice",
                             "physicians", "specialists", "consultants", "partners", "institute"})
# Facility words that only a name goes before ("VIBRA HOSPITAL"), unlike a clinic, a rehab or nursing, which a
# service's short form does ("ophth clinic", "INPAT REHAB", "SUBAC REHAB").
NAMED_FACILITY_WORDS = frozenset({"hospital", "hosp", "infirmary", "manor", "healthcare", "medical", "med",
                                   "sanatorium", "sanitarium"})


# Places a person calls from or lives in that are no town, though a town somewhere has the name ("Home, PA").
NOT_A_TOWN = frozenset({"home", "work", "school", "church", "rehab", "bed", "lab", "floor", "there", "here", "clinic",
                         "jail", "court", "hospital", "shelter", "office", "car", "hotel", "college", "university",
                         "camp", "time"})  # "HOME IN TIME FOR THE GAME"
# Letters written on a house number: one letter ("221B"), or an ordinal's ("5th"); "h", "l", "g", "x" and "m" are units.
HOUSE_LETTERS = frozenset("abcdefijknopqrstuvwyz") | {"st", "nd", "rd", "th"}
# Street suffixes that are common words in notes ("WALK", "CT", "GREEN", "RUN", "PARK"): on a line without case they
# end a street only after a place cue ("LIVES AT") or before a comma, a unit or the line's end.
WORD_SUFFIXES = frozenset({"ct", "green", "walk", "run", "pass", "path", "loop", "row", "park", "point", "pt",
                            "commons", "mall", "crossing", "ridge", "heights", "hts", "trail", "way", "place", "pl",
                            "square", "sq", "terrace", "ter", "circle", "cir", "plaza", "alley", "crescent", "pike"})
# Before a hospital abbreviation or a ward: "from KMC", "to BLAKE 12", "ON WANG 3", "From: Phillips 5", "frm umass",
# "@lahey".
PLACE_BEFORE = frozenset({"from", "at", "to", "into", "via", "on", "off", "frm", "@"})
# After one: "BVH ER", "CMH ED", "WANG 3 TELEMETRY".
UNIT_AFTER = frozenset({"er", "ed", "ew", "icu", "ccu", "micu", "sicu", "hospital", "hosp", "telemetry", "tele",
                        "floor", "unit", "rehab", "clinic", "ward", "dialysis"})
# Words before "to" that change a dose or a setting, so that what follows is no place: "SWITCHED TO CVVHD",
# "INCREASED TO M3".
CHANGE_BEFORE_TO = frozenset({"changed", "switched", "increased", "decreased", "weaned", "titrated", "converted",
                              "advanced", "up", "down", "added", "increase", "decrease", "wean", "titrate", "change",
                              "switch", "dropped", "tapered", "taper", "went", "due", "according", "attached",
                              "connected", "advance", "advancing", "lowered", "raised", "reduced", "turned",
                              "decreasing", "increasing", "rising", "falling", "dropping"})
# Words before "from" that change a drug, a dose or a setting, so that what follows is what was changed, not a place
# ("SWITCHED FROM ZOSYN TO CEFEPIME", "weaned from levophed"); not "went" or "transitioned", which move patients too.
CHANGE_BEFORE_FROM = frozenset({"changed", "switched", "weaned", "titrated", "converted", "tapered", "increased",
                                "decreased", "change", "switch", "wean", "titrate", "taper", "increase", "decrease",
                                "dropped", "advanced"})
# What follows a ward's name: "... 4 WHEN BED AVAILABLE", "FROM 12 STONE TODAY".
WARD_AFTER = frozenset({"when", "once", "after", "tomorrow", "today", "tonight", "later", "bed"})
# Words that move a patient to a ward or a facility: "TRANSFERRED TO PHELPS", "back to saint agnes".
MOVES = frozenset({"transfer", "transferred", "xfer", "xferred", "xfered", "out", "back", "moved", "admitted",
                   "go", "going", "return", "returned", "returning", "sent", "dispo", "accepted", "d/c", "discharged",
                   "referral", "referrals", "referred", "admit", "bumped", "taken"})
# Words before a place that a patient comes from or goes to (not "on" or "off", which name drips and devices).
MOVED_FROM = PLACE_BEFORE - {"on", "off"}
# A town's services, written after its name: "CONCORD PD", "newton fire", "QUINCY EMS".
TOWN_SERVICES = frozenset({"pd", "fd", "police", "fire", "ems", "rescue"})
# A compass word before a town names a village of it: "SOUTH WEYMOUTH", "east falmouth", "West Newbury".
COMPASS = frozenset({"north", "south", "east", "west"})


def changed_from(tokens: list[Token], i: int) -> bool:
    """Whether token i follows a word that changes a drug or a setting and "from" ("SWITCHED FROM ZOSYN"): what was
    changed, not where a patient came from."""
    return i >= 2 and tokens[i - 1].key == "from" and tokens[i - 2].key in CHANGE_BEFORE_FROM \
        and not tokens[i].first and not tokens[i - 1].first


def after_cue(tokens: list[Token], i: int, cues: frozenset[str]) -> bool:
    """Whether the two or three words before token i are a place cue ("back from", "grew up in")."""
    before = f"{tokens[i - 2].key} {tokens[i - 1].key}" if i > 1 else ""
    before3 = f"{tokens[i - 3].key} {before}" if i > 2 else ""
    return before in cues or before3 in cues


def after_university_of(tokens: list[Token], k: int) -> bool:
    """Whether token k follows "university of" (within two words): "univ of north somewhere hospital"."""
    for j in range(k - 1, max(0, k - 3) - 1, -1):
        if tokens[j].key == "of":
            return j > 0 and tokens[j - 1].key in ("university", "univ")
    return False
