"""Issue 32, sixteenth round: what consumer health pages and drug leaflets (MEDIQA 2019's answers, MedicationQA's
answers) say, in capitals and lower case, and the detector read as names: a thing named with "called" or "known as",
an abbreviation defined in brackets after its words, eponyms of two words written without a hyphen, a letter that
names a hepatitis or a vitamin before a full stop, "MS." closing a sentence, "many" before "states", and the
credentials of a signature. The people those same words name are still masked."""

from __future__ import annotations

import pytest
from support.detected import Case, covered, flagged, found, in_every_case


@in_every_case
@pytest.mark.parametrize("text", [
    "This gene provides instructions for making a protein called bestrophin.",
    "Your doctor may check your eye pressure. This is called tonometry.",
    "A small amount of mercury (called thimerosal) is a preservative in multidose vaccines.",
    "The milder adult-onset form is also known as adrenomyeloneuropathy.",
    "One example is a new drug in development called relamorelin.",
    "Hemoglobin is carried by a protein sometimes called glycophorin in the membrane.",
    "The early stage of frostbite is called frostnip.",
])
def test_a_thing_named_with_called_or_known_as_is_no_name(case: Case, text: str) -> None:
    text = case(text)
    assert "NAME" not in found(text), flagged(text)


@in_every_case
@pytest.mark.parametrize("text, name", [
    ("Pt prefers to be called Bud.", "Bud"),
    ("Husband, called Bob, visited today.", "Bob"),
    ("Pt is known as Bud on the unit.", "Bud"),
    ("Son called Joe at 1400.", "Joe"),
    ("Pharmacy called Joan re: vanco level.", "Joan"),
])
def test_a_person_named_with_called_or_known_as_is_still_a_name(case: Case, text: str, name: str) -> None:
    text = case(text)
    assert covered(text, case(name)), flagged(text)


@in_every_case
@pytest.mark.parametrize("text", [
    "Acute lung injury (ALI) on the vent. ALI improving.",
    "Juvenile absence epilepsy (JAE) is a genetic epilepsy.",
    "Report to the Centers for Disease Control (CDC).",
])
def test_an_abbreviation_defined_in_brackets_is_no_name(case: Case, text: str) -> None:
    text = case(text)
    assert "NAME" not in found(text), flagged(text)


@in_every_case
@pytest.mark.parametrize("text, name", [
    ("Spoke with Ali (son) at the bedside.", "Ali"),
    ("Wife (Ann) at bedside overnight.", "Ann"),
])
def test_a_name_in_brackets_the_words_before_do_not_spell_is_still_a_name(case: Case, text: str, name: str) -> None:
    text = case(text)
    assert covered(text, case(name)), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text", [
    "hx ramsay hunt syndrome",
    "kegel exercises taught",
    "amsler grid at home",
    "on a modified atkins diet",
    "hamilton rating scale for depression",
    "becker's muscular dystrophy",
    "leber congenital amaurosis",
    "ellis-van creveld syndrome",
    "petit mal seizures as a child",
    "arnold chiari malformation",
    "zollinger ellison syndrome",
    "legg calve perthes disease",
    "osler weber rendu",
    "charcot marie tooth",
    "prader willi syndrome",
    "russell viper venom time",
    "does tai chi twice a week",
])
def test_eponyms_of_two_words_and_their_nouns_are_no_names_without_case(case: Case, text: str) -> None:
    text = case(text)
    assert "NAME" not in found(text), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text", [
    "support group can help with having hepatitis c. ask your provider about it",
    "avoid extra calcium and vitamin d. treat high calcium if it occurs",
    "carriers of hemophilia a and b. click on the link",
    "d and c may also be done using suction",
    "many states have additional laws protecting patients",
])
def test_a_letter_that_names_a_disease_and_many_before_states_are_no_names(case: Case, text: str) -> None:
    text = case(text)
    assert "NAME" not in found(text), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text, name", [
    ("seen by e. north aware", "e. north"),
    ("per k lund rn", "k lund"),
    ("nick says pt walks", "nick"),
])
def test_initials_and_a_first_name_saying_are_still_names(case: Case, text: str, name: str) -> None:
    text = case(text)
    assert covered(text, case(name)), flagged(text)


@pytest.mark.parametrize("text", [
    "There are no specific tests for MS. Instead, a diagnosis relies on the history.",
    "Depression is common in MS. Currently there is no cure.",
    "Pt with severe MR. Beta blockers held.",
])
def test_ms_and_mr_closing_a_sentence_in_capitals_are_no_titles(text: str) -> None:
    assert "NAME" not in found(text), flagged(text)


@pytest.mark.parametrize("text, name", [
    ("Seen with MR. Smith today.", "Smith"),
    ("Spoke with MS. Jones about discharge.", "Jones"),
    ("Spoke with Ms. Tests.", "Tests"),
])
def test_a_title_in_capitals_before_a_name_is_still_a_title(text: str, name: str) -> None:
    assert covered(text, name), flagged(text)


@in_every_case
@pytest.mark.parametrize("text", [
    "Reviewed by David Zieve, MD, MHA, Isla Ogilvie, PhD, and the team.",
    "Jane Doe, RN, CCRN, signed at 0700.",
])
def test_credentials_of_a_signature_are_not_part_of_a_name(case: Case, text: str) -> None:
    text = case(text)
    spans = flagged(text)
    assert not any(case("MHA") in s or case("CCRN") in s for s in spans), spans


@in_every_case
@pytest.mark.parametrize("text", [
    "Copper builds up in Menkes syndrome.",
    "Soak the foot in Epsom salts twice a day.",
    "X-ray not needed by the Ottawa ankle rules.",
    "Hx of San Joaquin Valley fever.",
])
def test_eponyms_and_remedies_named_after_places_are_no_towns(case: Case, text: str) -> None:
    text = case(text)
    assert "CITY" not in found(text), flagged(text)


@in_every_case
@pytest.mark.parametrize("text, town", [
    ("Moved to Ottawa last year.", "Ottawa"),
    ("Lives in Remniku with son.", "Remniku"),
])
def test_those_towns_as_places_are_still_towns(case: Case, text: str, town: str) -> None:
    text = case(text)
    assert covered(text, case(town)), flagged(text)


@pytest.mark.parametrize("text, name", [
    ("Mae Smith was at bedside.", "Mae Smith"),
    ("Spoke with Elisa Jones, RN.", "Elisa Jones"),
    ("Bari Klein called back.", "Bari Klein"),
])
def test_a_capitalised_first_name_that_is_jargon_too_joins_the_surname_after_it(text: str, name: str) -> None:
    assert covered(text, name), flagged(text)


@pytest.mark.parametrize("text", ["MAE, SMITH AWARE", "Pt MAE, Smith aware."])
def test_the_same_word_in_capitals_stays_shorthand(text: str) -> None:
    assert not covered(text, "MAE"), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text", ["neuro: pt mae, follows commands", "w/ interpreter, mae, no deficits."])
def test_jargon_spelt_like_a_first_name_after_a_label_is_no_name(case: Case, text: str) -> None:
    text = case(text)
    assert "NAME" not in found(text), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text, name", [("aa sponsor ed called, pt ok'd", "ed"), ("wife mae, visited", "mae")])
def test_such_a_word_before_a_person_verb_or_after_a_relation_is_still_a_name(case: Case, text: str,
                                                                               name: str) -> None:
    text = case(text)
    assert covered(text, case(name)), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text, name", [
    ("daughter mary brown at bedside.", "mary brown"),
    ("son john white (hcp) called", "john white"),
    ("wife mary brown.", "mary brown"),
    ("john brown (son) called", "john brown"),
    ("john brown, son, called.", "john brown"),
    ("spoke with john brown, son.", "john brown"),
    ("per mary white (dtr), pt lives alone.", "mary white"),
    ("john brown called for update", "john brown"),
    ("mary white at bedside", "mary white"),
    ("dr john white aware", "john white"),
])
def test_a_surname_that_is_a_colour_is_kept_with_its_first_name_without_case(case: Case, text: str,
                                                                            name: str) -> None:
    text = case(text)
    assert covered(text, case(name)), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text", [
    "stool: soft brown, guaiac neg",
    "amber brown urine via foley",
    "no frank blood.",
    "heels offloaded. sage boots.",
    "#19 blake drain was placed",
    "between the arachnoid and pia mater.",
    "with dark brown, son at bedside",
])
def test_colours_and_drains_after_a_first_name_like_word_stay_words(case: Case, text: str) -> None:
    text = case(text)
    assert "NAME" not in found(text), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text, kept", [
    ("husband tristan back and forth to nicu", "back"),
    ("daughter beatrice works at north shore", "works"),
])
def test_where_a_relative_goes_is_no_surname(case: Case, text: str, kept: str) -> None:
    text = case(text)
    assert not covered(text, case(kept)), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text, pager", [
    ("page 44123 with questions", "44123"),
    ("beep 41234 if sbp < 90", "41234"),
    ("page dr smith 44123", "44123"),
    ("dr smith (44123) aware", "44123"),
    ("np o'neil #41234 aware", "41234"),
    ("paged dr lee 41234.", "41234"),
])
def test_a_pager_after_the_verb_or_a_clinician_is_a_phone(case: Case, text: str, pager: str) -> None:
    text = case(text)
    assert "PHONE" in found(text) and covered(text, pager), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text, kept", [
    ("dr smith 10000 units given", "10000"),
    ("paged 2x, no answer", "2x"),
    ("sara stedy to chair", "sara"),
])
def test_a_dose_a_count_and_a_standing_aid_are_no_pager_or_name(case: Case, text: str, kept: str) -> None:
    text = case(text)
    assert not covered(text, case(kept)), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text, name", [
    ("hcp is tom (son)", "tom"),
    ("hcp is tom smith (son)", "tom smith"),
    ("boss tom called for update", "tom"),
    ("fil ann visited", "ann"),
])
def test_the_proxy_named_after_hcp_is_and_a_boss_are_names(case: Case, text: str, name: str) -> None:
    text = case(text)
    assert covered(text, case(name)), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text", ["hcp is her son", "hcp is a friend", "edema 2+ bil, le warm", "bil infiltrates"])
def test_bil_is_bilateral_and_hcp_is_a_relation_names_no_one(case: Case, text: str) -> None:
    text = case(text)
    assert "NAME" not in found(text), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text, name", [
    ("np green notified of k 5.9", "green"),
    ("fellow park paged re: bp", "park"),
    ("resident lane aware", "lane"),
    ("resident pike aware", "pike"),
    ("charge rn park aware", "park"),
])
def test_a_surname_that_is_a_word_after_a_role_and_before_a_report_word_is_a_name(case: Case, text: str,
                                                                                  name: str) -> None:
    text = case(text)
    assert covered(text, case(name)), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text", [
    "md also aware", "rn verbally updated", "md made aware", "md day aware", "rn house aware", "np team aware",
    "pt park aware", "sputum green, rn aware",
])
def test_which_role_or_how_it_was_told_is_no_name(case: Case, text: str) -> None:
    text = case(text)
    assert "NAME" not in found(text), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text, date", [
    ("seen in ew 3/4 for sob", "3/4"),
    ("admitted to micu 3/2 with urosepsis", "3/2"),
    ("intubated in ed 1/2, extubated 1/4", "1/2"),
    ("seen at osh 2/3", "2/3"),
    ("pancultured 3/2 for t 101.5", "3/2"),
    ("transfused 3/3 for hct 21", "3/3"),
])
def test_a_short_date_after_an_event_and_the_unit_it_happened_in_is_a_date(case: Case, text: str, date: str) -> None:
    text = case(text)
    assert covered(text, date), flagged(text)


@pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])
@pytest.mark.parametrize("text", ["given in ed 1/2 ns bolus", "to floor 3/4 tab", "seen in ed 1/2 hour later"])
def test_a_fraction_after_a_unit_without_an_event_stays_a_fraction(case: Case, text: str) -> None:
    text = case(text)
    assert "DATE" not in found(text), flagged(text)
