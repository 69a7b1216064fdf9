"""Issue 32, thirteenth round: in ICU notes written all in capitals or all in lower case, shelters, jails, churches,
schools and other named places are masked as places, with dialysis units, one-digit house numbers and case workers;
a name that is an everyday word is the word where a determiner, a number or a hyphen makes it one, and the person
where only a person acts; dates after a weekday or a study are masked, settings weaned to and clock ranges are not."""

from __future__ import annotations

import pytest
from support.detected import covered, flagged, found

from medhelm_local.redact import detect

BOTH = pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])


@BOTH
@pytest.mark.parametrize("text, place", [
    ("68 yo m from st brendan house shelter after witnessed seizure", "st brendan house shelter"),
    ("staying at crossroads shelter, adm w/ cellulitis", "crossroads shelter"),
    ("80 yo m, inmate at mci cedar junction, transferred for gib", "mci cedar junction"),
    ("resident of orchard lane residence, a group home", "orchard lane residence"),
    ("now lives at granite house halfway house.", "granite house"),
    ("collapsed in gym at malden high school, ems found her in vf", "malden high school"),
    ("brought in from nashua street jail after found hanging", "nashua street jail"),
    ("found down at st. anselm church, bystander cpr", "st. anselm church"),
    ("student at bunker hill community college, where he is", "bunker hill community college"),
    ("transferred from middleton jail w/ severe opioid withdrawal", "middleton jail"),
])
def test_a_named_shelter_jail_church_or_school_is_a_place(case, text: str, place: str) -> None:
    text = case(text)
    assert covered(text, case(place))
    assert {"CITY", "HOSPITAL"} & set(found(text))  # a place; one named for a saint reads as a facility too


@BOTH
@pytest.mark.parametrize("text", [
    "pt lives at a shelter, sw aware.", "returned to county jail when stable.", "teacher at local high school.",
    "mom asked abt college plans.", "injured after diving into shallow pond.", "a 20 yo male college student.",
    "plan to return to prison infirmary.", "collapsed while running around the pond.", "hx mci, a&o x2.",
    "goes to church on sundays, wife at bedside.",
])
def test_a_kind_of_place_alone_or_after_words_for_which_kind_names_none(case, text: str) -> None:
    text = case(text)
    assert not {"CITY", "HOSPITAL"} & set(found(text)), flagged(text)


@BOTH
@pytest.mark.parametrize("text, place, kept", [
    ("hd mwf at charles river dialysis, missed fri", "charles river dialysis", None),
    ("pt from fresh pond dialysis after becoming hypotensive", "fresh pond dialysis", None),
    ("68 yo m from cedar knoll nursing ctr admitted w/ copd", "cedar knoll nursing ctr", None),
    ("plan to start dialysis in am, son raj aware.", "raj", "start dialysis"),
    ("pt on cvvh dialysis, wife mary at bedside.", "mary", "cvvh dialysis"),
])
def test_a_dialysis_unit_or_nursing_centre_is_named_with_its_kind(case, text: str, place: str,
                                                                  kept: str | None) -> None:
    text = case(text)
    assert covered(text, case(place))
    if kept is not None:
        assert all(case(kept) not in f and not set(f.split()) & set(case(kept).split()) for f in flagged(text))


@BOTH
@pytest.mark.parametrize("text, street", [
    ("pt lives alone at 9 cottage st apt 2, everett.", "9 cottage st apt 2"),
    ("home: 4 elm st apt 3, chelsea.", "4 elm st apt 3"),
])
def test_a_one_digit_house_number_before_an_apartment_is_a_street(case, text: str, street: str) -> None:
    assert covered(case(text), case(street))


@BOTH
@pytest.mark.parametrize("text, name", [
    ("pt unable to give hx. case worker ray tolliver from shelter at bedside.", "ray tolliver"),
    ("asked that pastor green from pt's church visit.", "green"),
    ("social: crystal (daughter) stayed overnight.", "crystal"),
    ("fio2 to 80% at 1000 via rusty (rt). sats 88-92.", "rusty"),
    ("social: candy (wife) at bedside all day.", "candy"),
])
def test_a_name_after_a_role_or_a_pastor_or_before_a_bracketed_relation_is_masked(case, text: str,
                                                                                  name: str) -> None:
    text = case(text)
    assert covered(text, case(name))


def masked_at(text: str, word: str, mention: str) -> bool:
    """Whether `word` is inside a detected span where it stands in `mention` (its last occurrence in `text`)."""
    at = text.rindex(mention) + mention.index(word)
    return any(s.start <= at < s.end for s in detect(text))


@BOTH
@pytest.mark.parametrize("text, word, mention", [
    ("daughter summer called. summer tearful, asking about prognosis.", "summer", "summer tearful"),
    ("niece joy is hcp. joy brought list of meds.", "joy", "joy brought"),
    ("sister penny at bedside. penny also worried about cost.", "penny", "penny also"),
    ("wife hope here. per hope's request no visitors.", "hope", "hope's"),
])
def test_a_name_that_is_a_clinical_word_too_is_masked_again_where_only_a_person_acts(case, text: str, word: str,
                                                                                      mention: str) -> None:
    text = case(text)
    assert covered(text, case(word)) and masked_at(text, case(word), case(mention))


@BOTH
@pytest.mark.parametrize("text, word, mention", [
    ("son rocky called at 2000. rather rocky night, sbp 80s.", "rocky", "rather rocky"),
    ("brother miles updated. lives 30 miles away.", "miles", "30 miles"),
    ("daughter honey at bedside. on honey-thick liquids.", "honey", "honey-thick"),
    ("son frank here. frank was very frank about wishes.", "frank", "very frank"),
    ("dr hall aware. pt walked in hall w/o difficulty.", "hall", "in hall"),
    ("wife patience here, thanked staff for their patience.", "patience", "their patience"),
])
def test_an_everyday_word_that_names_someone_elsewhere_is_the_word_after_a_determiner_or_a_number(
        case, text: str, word: str, mention: str) -> None:
    text = case(text)
    assert covered(text, case(word)) and not masked_at(text, case(word), case(mention))


@BOTH
@pytest.mark.parametrize("text, date", [
    ("k repletion held since tues 3/2, last dose", "3/2"), ("dx on cta 3-4 after syncope", "3-4"),
    ("seen wed 3-12 in clinic", "3-12"),
])
def test_a_date_after_a_weekday_or_a_study_is_masked(case, text: str, date: str) -> None:
    assert covered(case(text), date)


@BOTH
@pytest.mark.parametrize("text", [
    "psv weaned to 5/5, trach collar trial this pm.", "peep 5 40% weaned to 8/5 at 1000, rr 18.",
    "jp to gravity, output 0800-1400 110 cc serosang.", "pt overbreathing to 22 on psv.",
    "discuss rehab vs ltac at fam mtg thurs.", "report called to rn at receiving ltac.",
])
def test_a_setting_weaned_to_a_clock_range_or_a_meeting_is_no_identifier(case, text: str) -> None:
    assert flagged(case(text)) == []


@BOTH
@pytest.mark.parametrize("text, value, kind", [
    ("pt worried that his mother, 93, is weaker.", "93", "AGE"),
    ("home address confirmed: 27 ledgewood rd, weymouth 02188. f/u in 2 wks.", "02188", "ZIP"),
    ("lives alone at 58 summer st, malden 02148. nephew closest.", "02148", "ZIP"),
])
def test_a_relatives_age_between_commas_and_a_zip_after_a_town_that_is_a_surname_too(case, text: str, value: str,
                                                                                     kind: str) -> None:
    assert value in found(case(text)).get(kind, [])


@BOTH
@pytest.mark.parametrize("text", [
    "psych/sw evals needed, 6 month plan.", "neurosurg res notified, stat ct.",
    "deafness, uses asl. hospital interpreter", "mother, 95% on ra overnight.",
])
def test_shorthand_for_evaluations_residents_and_sign_language_is_no_name(case, text: str) -> None:
    assert not {"NAME", "HOSPITAL", "AGE"} & set(found(case(text))), flagged(case(text))


@BOTH
@pytest.mark.parametrize("text, ward", [
    ("tomorrow may go to cc7 on tele to wait for bed", "cc7"), ("neuro stepdown on cc-7 per attending.", "cc-7"),
    ("to be called to far 6 at 0730 by day team", "far 6"), ("vs transfer to far6 if bed available", "far6"),
    ("back to reis 12 when stable", "reis 12"),
    ("transferred on 1/19 from univ of vt hosp for eval", "univ of vt hosp"),
])
def test_a_ward_code_a_wards_short_form_and_a_university_hospital_by_its_states_code(case, text: str,
                                                                                     ward: str) -> None:
    text = case(text)
    assert covered(text, case(ward)) and "HOSPITAL" in found(text)


@BOTH
@pytest.mark.parametrize("text", [
    "so far 6 stools today.", "increased to cc-7.", "went far 6 miles on bike.", "pt to univ of ma for school.",
])
def test_far_and_cc_as_words_and_units_are_no_ward(case, text: str) -> None:
    assert "HOSPITAL" not in found(case(text)), flagged(case(text))


@BOTH
@pytest.mark.parametrize("text, value", [
    ("cards fellow pager 91-442 if cp recurs.", "91-442"), ("pmh: hip replacement 93, right breast lump.", "93"),
    ("hx of dt's 98 and withdrawal sz 01. last drink 2 d ago", "01"), ("w/ hx breast ca 97 (lumpectomy/xrt)", "97"),
    ("plan: thoracic np g.t. asks for ct to be read.", "g.t."), ("bleeding.\nplan: m.h. (cards np) will see", "m.h."),
    ("close family, the driscolls, in and out all day.", "driscolls"),
    ("large family, the kowalczyks, 6 visitors at once.", "kowalczyks"),
    ("daughter-in-law, the o'shaughnessys, visited 1900-2100.", "o'shaughnessys"),
])
def test_a_pager_a_year_after_an_operation_initials_beside_a_credential_and_a_family_by_its_name(case, text: str,
                                                                                                 value: str) -> None:
    assert covered(case(text), case(value))


@BOTH
@pytest.mark.parametrize("text", [
    "ca 10, mg 2.0, phos 3.1", "sz 15 min, ativan given.", "md p.o. meds given.", "the nurses, rt and md aware.",
    "the results, pending.", "a&o x3, maes, perrla.", "hibiclens shower am.",
])
def test_values_after_ca_and_sz_the_plural_of_a_word_and_shorthand_are_no_identifier(case, text: str) -> None:
    assert flagged(case(text)) == []


@BOTH
@pytest.mark.parametrize("text, value", [
    ("mediastinal blake to atrium, 110cc. daughter wilhelmina strand called @ 2030.", "wilhelmina strand"),
    ("son fitzgerald long called, updated on plan.", "fitzgerald long"),
    ("moved from california. a. hussein aware of plan.", "a. hussein"),
    ("c/o from csru to f-6 delayed d/t new rapid af.", "f-6"), ("admitted from r-10 this am w/ hypotension.", "r-10"),
])
def test_a_surname_that_is_a_word_before_what_a_person_does_an_initial_a_and_hyphened_ward_codes(case, text: str,
                                                                                                 value: str) -> None:
    assert covered(case(text), case(value))


@BOTH
@pytest.mark.parametrize("text", [
    "ct: 2 mediastinal blakes + l pleural blake to pleurevac, 110cc.", "on j-1 summer work visa, family in cork.",
    "charge rn aware, bed on 7 may be ready by 1000.", "given via a. line aware of plan.",
])
def test_blake_drains_a_visa_and_may_as_a_modal_are_no_identifier(case, text: str) -> None:
    assert flagged(case(text)) == []


def test_so_before_a_name_in_a_dialogue_leaves_the_name_masked() -> None:
    """ACI-Bench's doctors turn to the patient with "so": "so frank, what does that mean" names him again."""
    text = "[doctor] hi frank, how are you? your legs show pitting edema bilaterally so frank what does that mean"
    assert masked_at(text, "frank", "so frank what")
