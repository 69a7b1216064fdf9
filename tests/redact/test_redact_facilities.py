"""Facility names in notes without case, issue 32's second round (redact/facilities.py): names a facility list
holds, names grown over 'and', 'of the <place>', a town or a campus after them, and the sentences that look like
them but are not. Every example is invented, apart from real hospitals' names as notes write them."""

from __future__ import annotations

import pytest
from support.detected import Case, flagged, in_every_case

from medhelm_local.redact.detector import detector_for
from medhelm_local.settings import default_redaction_dir


def _whole(text: str, value: str) -> bool:
    """Whether one detected span covers `value` whole."""
    start = text.index(value)
    from medhelm_local.redact import detect
    return any(s.start <= start and start + len(value) <= s.end for s in detect(text))


@pytest.mark.parametrize(("text", "value"), [
    ("PT HAD CATARACT SURGERY AT MASS EYE AND EAR 09'.", "MASS EYE AND EAR"),
    ("pt listed for transplant at brigham and women's. lvad eval.", "brigham and women's"),
    ("PT'S ONCOLOGIST AT DANA-FARBER", "DANA-FARBER"),
    ("TRANSFERRED FROM BETH ISRAEL DEACONESS FOR ECMO", "BETH ISRAEL DEACONESS"),
    ("GOING TO ST. LUKE'S TOMORROW", "ST. LUKE'S"),
])
def test_listed_facilities_of_several_words_anywhere(text: str, value: str) -> None:
    assert _whole(text, value), flagged(text)


@pytest.mark.parametrize(("text", "value"), [
    ("pt came from the elms rehab and nursing center.", "elms rehab and nursing center"),
    ("pt from maplewood nursing and rehab, returning there is doubtful", "maplewood nursing and rehab"),
    ("PT FROM LIFE CARE CENTER OF THE PIONEER VALLEY, WILL RETURN THERE.", "LIFE CARE CENTER OF THE PIONEER VALLEY"),
    ("dialysis at fresenius medical care of plymouth m/w/f", "fresenius medical care of plymouth"),
    ("Pt discharged to Radius Healthcare Center at Danvers via chair van.", "Radius Healthcare Center at Danvers"),
    ("PT ASKED ABOUT TRANSPLANT AT LAHEY BURLINGTON.", "LAHEY BURLINGTON"),
    ("PT TRANSFERRED FROM LOWELL GENERAL SAINTS CAMPUS 6/3", "LOWELL GENERAL SAINTS CAMPUS"),
    ("STAYING AT THE HOPE LODGE.", "HOPE LODGE"),
    ("WANTS TO RETURN TO SOUTHERN NH MEDICAL CENTER.", "SOUTHERN NH MEDICAL CENTER"),
    ("pt admitted from univ of vermont med ctr", "univ of vermont med ctr"),
    ("RESIDES AT THE BOSTONIAN NURSING CARE", "BOSTONIAN NURSING CARE"),
    ("lives at golden living center in lowell", "golden living center"),
])
def test_facility_names_grown_to_their_whole(text: str, value: str) -> None:
    assert _whole(text, value), flagged(text)


@pytest.mark.parametrize("text", [
    "ABD MASS GENERAL SURGERY AWARE. PT HAD A MASS. GENERAL APPEARANCE OK.",
    "PT NEEDS MEDICAL CARE. NO ACCESS TO MEDICAL CARE AT HOME. CARE PLAN REVIEWED.",
    "pt's wife at home and nursing aware. rehab and pt eval in am.",
])
def test_sentences_that_read_like_facility_names_are_not(text: str) -> None:
    assert [f for f in flagged(text) if f.lower() not in ("home",)] == []


def test_the_facility_list_is_read_with_the_pack_and_its_one_word_names_need_a_place_cue() -> None:
    words = detector_for(default_redaction_dir().resolve()).words
    assert "mass eye and ear" in words.facilities and "brigham and womens" in words.facilities
    assert "youville" in words.facility_names_one and "mass" in words.facility_firsts
    assert flagged("PT WAS AT YOUVILLE FOR 2 WEEKS") == ["YOUVILLE"]
    assert flagged("YOUVILLE") == []


@pytest.mark.parametrize(("text", "value"), [
    ("PT TRANSFERRED TO PULMONARY ASSOCIATES OF CENTRAL MASS FOR REHAB", "PULMONARY ASSOCIATES OF CENTRAL MASS"),
    ("pt came over from vibra hospital of western massachusetts this am", "vibra hospital of western massachusetts"),
])
@in_every_case
def test_a_clinical_word_after_the_facility_word_and_of_still_names_it(text: str, value: str, case: Case) -> None:
    """Round five stopped a clinical word before a specialty from making a practice's name ("CENTRAL PULMONARY
    ARTERIES"); the same word after "<facility> of" is the facility's region and stays masked."""
    assert _whole(case(text), case(value)), flagged(case(text))
    assert not flagged(case("CT: CENTRAL PULMONARY ARTERIES PATENT. NORMAL PULMONARY VASCULATURE."))


@pytest.mark.parametrize(("text", "value"), [
    ("TRANSFERRED FROM VIBRA HOSPITAL ON 3/2", "VIBRA HOSPITAL"),
    ("Pt came over from Vibra Hospital of Western Massachusetts this am", "Vibra Hospital of Western Massachusetts"),
    ("F/U WITH CARDIOLOGY ASSOCIATES OF GREATER LOWELL NEXT WK", "CARDIOLOGY ASSOCIATES OF GREATER LOWELL"),
    ("Transferred from Neurology Center of New England on 3/2", "Neurology Center of New England"),
    ("pt transferred to renal associates of southern new hampshire for dialysis",
     "renal associates of southern new hampshire"),
    ("f/u with Dermatology Associates of Central Maine next wk", "Dermatology Associates of Central Maine"),
    ("PT FROM PULMONARY ASSOCIATES OF WESTERN MASS", "PULMONARY ASSOCIATES OF WESTERN MASS"),
    ("discharged to Sunnyside Rehab on 3/4", "Sunnyside Rehab"),
    ("Transferred from Heart Center of Greater Boston on 3/2", "Heart Center of Greater Boston"),
    ("f/u with orthopedic specialists of greater worcester next wk", "orthopedic specialists of greater worcester"),
])
@in_every_case
def test_a_facility_name_is_covered_whole_in_every_case(text: str, value: str, case: Case) -> None:
    """Without case the word before the facility word ("VIBRA", which a clinical list holds only as the start of
    "vibration") and a region after its "of" ("OF GREATER LOWELL", "OF NEW ENGLAND") are its name too."""
    assert _whole(case(text), case(value)), flagged(case(text))


@pytest.mark.parametrize("text", [
    "pt will begin cardiac rehab next week",
    "BEGIN PULMONARY REHAB WHEN STABLE",
    "CT: CENTRAL PULMONARY ARTERIES PATENT",
    "TRANSFERRED TO MEDICAL ICU",
    "PT WANTS TO GO TO REHAB",
    "case mgmt re nursing home placement",
    "PT WILL GO TO INPAT REHAB, SUBAC REHAB SCREEN IN AM",
    "f/u ophth clinic and nephro clinic",
    "CENTER OF GREATER CONCERN IS THE WOUND",
    "rehab of greater trochanter bursitis",
    "LESION IN CENTER OF LEFT LOBE, SMALL GROUP OF NEW LESIONS",
    "pt seen, support group of new moms info given",
])
@in_every_case
def test_clinical_phrases_around_facility_words_stay_unflagged(text: str, case: Case) -> None:
    assert flagged(case(text)) == []


@pytest.mark.parametrize(("text", "value"), [
    ("TRANSFERRED FROM SHRINERS HOSPITAL FOR CHILDREN ON 3/2", "SHRINERS HOSPITAL FOR CHILDREN"),
    ("pt came over from Lakeview Hospital for Special Surgery this am", "Lakeview Hospital for Special Surgery"),
    ("Mother delivered at Mercy Hospital for Women, transferred here", "Mercy Hospital for Women"),
    ("F/U AT JOSLIN DIABETES CENTER NEXT WK", "JOSLIN DIABETES CENTER"),
    ("pt from providence cancer center for 2nd opinion", "providence cancer center"),
])
@in_every_case
def test_whom_a_facility_is_for_and_its_specialty_are_its_name_too(text: str, value: str, case: Case) -> None:
    """After a name already read, 'for children' / 'for special surgery' goes on it, and so do one or two specialty
    words before a facility word ("JOSLIN DIABETES CENTER")."""
    assert _whole(case(text), case(value)), flagged(case(text))


@pytest.mark.parametrize(("text", "value"), [
    ("PT CAME OVER FROM HARBORVIEW SKILLED NURSING THIS AM", "HARBORVIEW SKILLED NURSING"),
    ("Pt transferred to Harborview Skilled Nursing for rehab", "Harborview Skilled Nursing"),
    ("d/c to maplecrest skilled nursing and rehab tomorrow", "maplecrest skilled nursing and rehab"),
])
@in_every_case
def test_a_name_reaches_across_skilled_to_nursing(text: str, value: str, case: Case) -> None:
    assert _whole(case(text), case(value)), flagged(case(text))
    for other in ("DISCHARGED TO SHORT TERM SKILLED NURSING", "PLAN TO SEND TO NEARBY SKILLED NURSING",
                  "APPLYING TO SEVERAL SKILLED NURSING", "d/c to skilled nursing for rehab"):
        assert flagged(case(other)) == []


@pytest.mark.parametrize("text", [
    "CARDIAC REHAB OF LEFT SIDE WEAKNESS",
    "HOSPITAL OF CENTRAL LINE INFECTION UNCLEAR",
    "rehab of north side of unit",
    "hospital of western medicine vs herbal remedies",
    "F/U DIABETES CENTER, CANCER CENTER CONSULT PENDING",
    "WOUND CARE CENTER TO SEE, SKILLED NURSING FACILITY VS SKILLED NURSING AT HOME",
    "REHAB FOR STRENGTHENING, IN HOSPITAL FOR 3 DAYS",
    "CENTRAL LINE ON LEFT SIDE",
    "FROM HOSPITAL FOR CHILDREN'S CLINIC",
])
@in_every_case
def test_a_side_after_of_and_a_specialty_alone_stay_unflagged(text: str, case: Case) -> None:
    """"<facility word> of <region word>" with no place after it reads as a side or a kind of medicine; a specialty
    and a facility word, and "for" after a facility word, with no name before them are no facility's name."""
    assert flagged(case(text)) == []
