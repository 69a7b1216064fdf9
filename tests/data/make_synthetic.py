"""Write the synthetic fixtures of the gated datasets, the private formats and med_dialog / med_mcqa.

Every row is invented for these tests (no real patient, note or code assignment): small files in
exactly the published layouts (csv.gz, JSON lines, Feather, Parquet, XML, TSV, XLSX), so the
loaders read them as they would read the real data. The output is byte-for-byte reproducible;
tests/scenarios/test_synthetic_fixtures.py checks the committed files are what this script writes.

Run: python tests/data/make_synthetic.py [OUT]   (default: tests/data)
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import sys
import zipfile
from datetime import datetime
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
MARK = "SYNTHETIC: invented for medhelm-local's tests; no real patient data.\n"


def _csv_bytes(header: list[str], rows: list[list[object]], delimiter: str = ",") -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _csv_gz(path: Path, header: list[str], rows: list[list[object]]) -> None:
    # mtime=0 and no file name: the same rows give the same bytes.
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as gz:
        gz.write(_csv_bytes(header, rows))
    _write(path, buffer.getvalue())


def _readme(folder: Path, what: str) -> None:
    _write(folder / "SYNTHETIC.md", f"{MARK}\n{what}\n".encode())


# ---------------------------------------------------------------- gated: Discharge Me!
BHC = {"20000001": "Patient admitted with community acquired pneumonia, treated with ceftriaxone and azithromycin, "
                   "improved over three days.",
       "20000002": "Admitted for a fall at home; imaging showed no fracture; physical therapy cleared discharge."}
DI = {"20000001": "Finish the antibiotic course and return if fever comes back.",
      "20000002": "Use the walker at home and keep the follow-up appointment with your doctor."}


def dischargeme(out: Path) -> None:
    folder = out / "gated" / "dischargeme" / "test_phase_1"
    notes = {
        "20000001": ("10000001", "Name: ___ Unit No: ___\nChief Complaint: cough and fever\n"
                     f"Brief Hospital Course:\n{BHC['20000001']}\nDischarge Instructions:\n{DI['20000001']}\n"),
        "20000002": ("10000002", "Name: ___ Unit No: ___\nChief Complaint: fall\n"
                     f"Brief Hospital Course:\n{BHC['20000002']}\nDischarge Instructions:\n{DI['20000002']}\n"),
        "20000003": ("10000003", "Chief Complaint: headache (patient has no triage row)\n"),
        "20000004": ("10000004", "Chief Complaint: rash (patient has no diagnosis row)\n"),
        "20000005": ("10000001", "Chief Complaint: follow-up (admission has no radiology report)\n"),
    }
    _csv_gz(folder / "discharge.csv.gz", ["note_id", "subject_id", "hadm_id", "note_type", "note_seq", "charttime",
                                         "storetime", "text"],
            [[f"{s}-DS-1", s, h, "DS", 1, "2180-01-05 00:00:00", "2180-01-05 12:00:00", text]
             for h, (s, text) in notes.items()])
    _csv_gz(folder / "discharge_target.csv.gz", ["note_id", "hadm_id", "discharge_instructions",
                                                "brief_hospital_course", "discharge_instructions_word_count",
                                                "brief_hospital_course_word_count"],
            [[f"{notes[h][0]}-DS-1", h, DI.get(h, "Rest."), BHC.get(h, "Observed."), 3, 3] for h in notes])
    _csv_gz(folder / "radiology.csv.gz", ["note_id", "subject_id", "hadm_id", "note_type", "note_seq", "charttime",
                                         "storetime", "text"],
            [["10000001-RR-1", "10000001", "20000001", "RR", 1, "2180-01-02 00:00:00", "", "CHEST X-RAY: right lower "
              "lobe opacity."],
             ["10000001-RR-2", "10000001", "20000001", "RR", 2, "2180-01-04 00:00:00", "", "CHEST X-RAY: improving."],
             ["10000002-RR-1", "10000002", "20000002", "RR", 1, "2180-02-02 00:00:00", "", "HIP X-RAY: no fracture."],
             ["10000003-RR-1", "10000003", "20000003", "RR", 1, "2180-03-02 00:00:00", "", "HEAD CT: normal."]])
    _csv_gz(folder / "edstays.csv.gz", ["subject_id", "hadm_id", "stay_id", "intime", "outtime", "gender", "race",
                                       "arrival_transport", "disposition"],
            [[notes[h][0], h, f"3000000{i}", "2180-01-01 08:00:00", "2180-01-01 12:00:00", "F", "UNKNOWN", "WALK IN",
              "ADMITTED"] for i, h in enumerate(notes)])
    _csv_gz(folder / "diagnosis.csv.gz", ["subject_id", "stay_id", "seq_num", "icd_code", "icd_version", "icd_title"],
            [["10000001", "30000000", 1, "J189", 10, "Pneumonia, unspecified organism"],
             ["10000001", "30000000", 2, "R509", 10, "Fever, unspecified"],
             ["10000002", "30000001", 1, "W19XXXA", 10, "Unspecified fall, initial encounter"],
             ["10000003", "30000002", 1, "R51", 10, "Headache"]])
    _csv_gz(folder / "triage.csv.gz", ["subject_id", "stay_id", "temperature", "heartrate", "resprate", "o2sat", "sbp",
                                      "dbp", "pain", "acuity", "chiefcomplaint"],
            [["10000001", "30000000", 101.2, 104, 22, 93, 128, 80, 4, 2, "Cough"],
             ["10000002", "30000001", 98.1, 80, 16, 99, 140, 85, 6, 3, "Fall"],
             ["10000004", "30000003", 98.6, 72, 14, 99, 120, 70, 0, 4, "Rash"]])
    _readme(folder.parent, "Discharge Me! (discharge-me 1.3) test_phase_1 layout: 5 discharge notes, of which 2 "
                           "admissions pass MedHELM's joins (4 instances).")


# ---------------------------------------------------------------- gated: MIMIC-IV-Ext-BHC, MIMIC-RRS
def mimic_bhc(out: Path) -> None:
    lines = [{"input": "<SEX> F <SERVICE> MEDICINE <CHIEF COMPLAINT> chest pain <HISTORY> invented history one.",
              "target": "Ms. ___ was admitted for chest pain; troponins were negative and she went home."},
             {"input": "<SEX> M <SERVICE> SURGERY <CHIEF COMPLAINT> abdominal pain <HISTORY> invented history two.",
              "target": "Mr. ___ underwent laparoscopic appendectomy without complication."},
             {"input": "<SEX> M <SERVICE> MEDICINE <CHIEF COMPLAINT> weakness", "target": ""},
             {"input": "<SEX> F <SERVICE> NEUROLOGY <CHIEF COMPLAINT> seizure <HISTORY> invented history four.",
              "target": "Ms. ___ had a breakthrough seizure; levetiracetam was increased."}]
    folder = out / "gated" / "mimic_bhc"
    _write(folder / "mimic_iv_bhc.json", "".join(json.dumps(line) + "\n" for line in lines).encode())
    _readme(folder, "MIMIC-IV-Ext-BHC as MedHELM reads it (JSON lines, input and target): 4 lines, one without a "
                    "target (3 instances).")


def mimic_rrs(out: Path) -> None:
    findings = ["the heart is normal in size . the lungs are clear .", "", "mild cardiomegaly . no effusion .",
                "small left pleural effusion with adjacent atelectasis ."]
    impressions = ["no acute cardiopulmonary process .", "normal study .", "mild cardiomegaly .",
                   "small left effusion ."]
    folder = out / "gated" / "mimic_rrs"
    _write(folder / "test.findings.tok", "".join(f"{line}\n" for line in findings).encode())
    _write(folder / "test.impression.tok", "".join(f"{line}\n" for line in impressions).encode())
    _readme(folder, "MIMIC-RRS test split layout: 4 aligned lines, one with empty findings (3 instances).")


# ---------------------------------------------------------------- gated: MIMIC-IV billing codes (Feather)
def mimiciv_billing_code(out: Path) -> None:
    import pyarrow as pa
    import pyarrow.feather as feather

    table = pa.table({
        "subject_id": pa.array([1, 2, 3, 4], pa.int64()),
        "_id": pa.array([11, 12, 13, 14], pa.int64()),
        "text": ["discharge diagnosis: essential hypertension, hyperlipidemia.",
                 "discharge diagnosis: pneumonia. procedure: none.",
                 "discharge diagnosis: hip fracture after a fall; open reduction performed.",
                 "note without coded diagnoses."],
        "target": pa.array([["I10", "E78.5"], ["J18.9"], ["S72.001A", "W19.XXXA", "0QS604Z"], []],
                           pa.list_(pa.string())),
    })
    folder = out / "gated" / "mimiciv_billing_code"
    folder.mkdir(parents=True, exist_ok=True)
    feather.write_feather(table, folder / "mimiciv_icd10.feather", compression="uncompressed")
    _readme(folder, "mimiciv_icd10.feather layout (text, target list of ICD-10 codes): 4 rows, one without codes "
                    "(3 instances).")


# ---------------------------------------------------------------- gated: n2c2 2018 Track 1 (XML)
CRITERIA = ("ABDOMINAL", "ADVANCED-CAD", "ALCOHOL-ABUSE", "ASP-FOR-MI", "CREATININE", "DIETSUPP-2MOS", "DRUG-ABUSE",
            "ENGLISH", "HBA1C", "KETO-1YR", "MAJOR-DIABETES", "MAKES-DECISIONS", "MI-6MOS")


def _n2c2_patient(notes: list[str], met: set[str]) -> bytes:
    text = ("\n" + "*" * 100 + "\n").join(notes)
    tags = "\n".join(f'<{c} met="{"met" if c in met else "not met"}" />' for c in CRITERIA)
    return (f'<?xml version="1.0" encoding="UTF-8" ?>\n<PatientMatching>\n<TEXT><![CDATA[\n{text}\n]]></TEXT>\n'
            f"<TAGS>\n{tags}\n</TAGS>\n</PatientMatching>\n").encode()


def n2c2(out: Path) -> None:
    folder = out / "gated" / "n2c2_ct_matching"
    _write(folder / "test" / "100.xml", _n2c2_patient(
        ["Record date: 2090-01-05\n\nInvented visit. History of appendectomy in 2080.\n\n\n\nCreatinine 0.9.",
         "Record date: 2091-03-10\nFollow-up. Stable angina on two anti-anginal medications."],
        {"ABDOMINAL", "ENGLISH", "MAKES-DECISIONS"}))
    _write(folder / "test" / "101.xml", _n2c2_patient(
        ["Record date: 2088-07-01\nInvented visit. Creatinine 2.4, above normal. Prior myocardial infarction.",
         "Record date: 2089-02-14\nOn aspirin, metoprolol and isosorbide; angina persists.",
         "Undated addendum: no surgery history."],
        {"ADVANCED-CAD", "CREATININE", "ASP-FOR-MI", "ENGLISH", "MAKES-DECISIONS"}))
    _write(folder / "test" / "102.xml", _n2c2_patient(["Invented note without a record date."], set()))
    _write(folder / "train" / "200.xml", _n2c2_patient(["Record date: 2080-01-01\nA training patient."],
                                                       {"ABDOMINAL"}))
    _readme(folder, "n2c2 2018 Track 1 layout (test/*.xml with <TEXT> and <TAGS met=...>): 3 test patients and one "
                    "training patient the benchmark must not read.")


# ---------------------------------------------------------------- gated: EHRSHOT (MEDS Parquet)
def ehrshot(out: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = out / "gated" / "ehrshot"
    events = [(1, None, "Gender/F"), (1, datetime(2019, 5, 1), "SNOMED/38341003"),
              (1, datetime(2020, 5, 30, 9), "Visit/IP"), (1, datetime(2020, 6, 1), "LOINC/2160-0"),
              (1, datetime(2020, 12, 1), "ICD10CM/I10"), (2, datetime(2018, 1, 1), "Visit/OP"),
              (2, datetime(2020, 2, 1), "LOINC/718-7"), (4, datetime(2020, 1, 1), "Visit/ER")]
    data = pa.table({"subject_id": pa.array([e[0] for e in events], pa.int64()),
                     "time": pa.array([e[1] for e in events], pa.timestamp("us")),
                     "code": [e[2] for e in events],
                     "numeric_value": pa.array([None] * len(events), pa.float32())})
    options = {"write_statistics": False, "compression": "NONE"}
    (folder / "data").mkdir(parents=True, exist_ok=True)
    pq.write_table(data, folder / "data" / "data.parquet", **options)
    (folder / "metadata").mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"subject_id": pa.array([1, 2, 3, 4], pa.int64()),
                             "split": ["train", "tuning", "held_out", "held_out"]}),
                   folder / "metadata" / "subject_splits.parquet", **options)
    labels = {"guo_readmission": [(1, datetime(2020, 6, 1), True), (1, datetime(2021, 1, 1), False),
                                  (2, datetime(2020, 3, 1), False), (3, datetime(2020, 1, 1), True)],
              "new_hypertension": [(2, datetime(2020, 3, 1), True), (1, datetime(2019, 6, 1), False)],
              "lab_anemia": [(2, datetime(2020, 2, 1), True)]}
    for task, rows in labels.items():
        (folder / "labels" / task).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table({"subject_id": pa.array([r[0] for r in rows], pa.int64()),
                                 "prediction_time": pa.array([r[1] for r in rows], pa.timestamp("us")),
                                 "boolean_value": [r[2] for r in rows]}),
                       folder / "labels" / task / "labels.parquet", **options)
    _readme(folder, "EHRSHOT in MEDS format (data/data.parquet sorted by subject_id, metadata/subject_splits.parquet, "
                    "labels/<task>/labels.parquet): 4 patients (patient 3 has no events), 4 readmission labels.")


# ---------------------------------------------------------------- gated: MedAlign (TSV + XML)
def _long_record(visits: int) -> str:
    parts = ['<eventstream person_id="1002">']
    for day in range(1, visits + 1):
        parts.append(f'<visit type="Outpatient" start="01/{day:02d}/2099 08:00">'
                     f'<entry><event type="condition" code="SNOMED/{38341000 + day}">Invented condition {day}'
                     f'</event><event type="note">Follow-up visit {day}: patient feels well, invented text.</event>'
                     "</entry></visit>")
    parts.append("</eventstream>")
    return "\n".join(parts)


def medalign(out: Path) -> None:
    folder = out / "gated" / "medalign"
    header = ["instruction_id", "question", "person_id", "is_selected_ehr", "model_name", "model_response"]
    _write(folder / "clinician-reviewed-model-responses.tsv", _csv_bytes(header, [
        [1, "What medication was started at the last visit?", 1001, "yes", "model-a", "aspirin"],
        [1, "What medication was started at the last visit?", 1001, "yes", "model-b", "none"],
        [2, "Summarise the allergy history.", 1001, "yes", "model-a", "penicillin"],
        [3, "List the past surgeries.", 1001, "no", "model-a", "none"],
        [4, "When was the first outpatient visit?", 1002, "yes", "model-a", "January"],
    ], "\t"))
    _write(folder / "clinician-instruction-responses.tsv", _csv_bytes(
        ["instruction_id", "annotator_num", "clinician_response"], [
            [1, "Annotator_1", "Lisinopril was started at the last visit."],
            [1, "Annotator_2", "Lisinopril."],
            [2, "Annotator_1", "Allergic to penicillin (rash)."],
            [3, "Annotator_2", "Appendectomy."],
            [4, "Annotator_1", "On 01/01/2099."],
        ], "\t"))
    _write(folder / "medalign_ehr_xml" / "1001.xml", (
        b'<eventstream person_id="1001">\n<visit type="Outpatient" start="03/01/2098 09:00"><entry>'
        b'<event type="drug">lisinopril 10 mg</event><event type="note">Allergy: penicillin (rash).</event>'
        b"</entry></visit>\n</eventstream>\n"))
    _write(folder / "medalign_ehr_xml" / "1002.xml", (_long_record(120) + "\n").encode())
    _readme(folder, "MedAlign release layout (two TSVs and medalign_ehr_xml/<person_id>.xml): 4 instructions, one "
                    "without a first-annotator response (3 instances); patient 1002's record is long, for truncation.")


# ---------------------------------------------------------------- private formats
def _xlsx(header: list[str], rows: list[list[str]]) -> bytes:
    """A minimal one-sheet workbook with inline strings (what Excel and pandas read)."""
    def cell(col: int, row: int, value: str) -> str:
        return f'<c r="{chr(65 + col)}{row}" t="inlineStr"><is><t>{escape(value)}</t></is></c>'

    sheet_rows = [f'<row r="{r}">' + "".join(cell(c, r, v) for c, v in enumerate(values) if v) + "</row>"
                  for r, values in enumerate([header, *rows], start=1)]
    ns = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    parts = {
        "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
        'package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/'
        'workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        'spreadsheetml.worksheet+xml"/></Types>',
        "xl/workbook.xml": f'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{ns}"><sheets><sheet name="Sheet1" '
        'sheetId="1"/></sheets></workbook>',
        "xl/worksheets/sheet1.xml": f'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="{ns}"><sheetData>'
        + "".join(sheet_rows) + "</sheetData></worksheet>",
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as book:
        for name, text in parts.items():
            info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))
            book.writestr(info, text)
    return buffer.getvalue()


def private(out: Path) -> None:
    folder = out / "private"
    _write(folder / "shc_ptbm_med.csv", _csv_bytes(["prompt", "context", "label"], [
        ["Does the note recommend parent training in behavior management?",
         "Discussed behavior therapy; referred parents to a parent training group.", "A"],
        ["Does the note recommend parent training in behavior management?",
         "Started stimulant medication; no behavioral referral documented.", "B"],
        ["Does the note recommend parent training in behavior management?",
         "Discussed behavior therapy; referred parents to a parent training group.", "A"],
        ["Does the note recommend parent training in behavior management?", "x" * 140_000, "B"],
    ]))
    _write(folder / "shc_sequoia_med.csv", _csv_bytes(["question", "context", "label"], [
        ["Was the referral accepted?", "Referral reviewed and scheduled for next week.", "A"],
        ["Was the referral accepted?", "Referral declined: out of network.", "B"],
    ]))
    _write(folder / "CLEAR" / "alcohol_dependence.xlsx", _xlsx(["text", "result_human"], [
        ["Patient reports drinking a fifth of vodka daily; prior withdrawal seizures.", "1"],
        ["Denies alcohol use.", "0"],
        ["", "1"],
        ["Social history unclear; family mentions drinking.", "2"],
    ]))
    _write(folder / "chw_care_plan.csv", _csv_bytes(["MO Note", "site"], [
        ["Client reports knee pain for two weeks, worse on stairs, better with rest. Rates it 6 of 10.", "A"],
        ["", "B"],
        ["Client has headaches every afternoon since starting a new job; no other symptoms.", "A"],
    ]))
    _write(folder / "mental_health.csv", _csv_bytes(
        ["topic", "dialogue_type", "context", "gold_counselor_response"], [
            ["Workplace", "1", "counselor: Hi, what brings you in?\nclient: I feel I do not fit in at work.",
             "It sounds lonely to feel out of place at work. Can you tell me more about when it started?"],
            ["Anxiety", "2", "counselor: How have you been sleeping?\nclient: Barely, I keep worrying.",
             "Worry that keeps you up is exhausting. What goes through your mind at night?"],
        ]))
    _write(folder / "starr_patient_instructions.csv", _csv_bytes(
        ["QC", "Diagnosis", "ActualProcedure", "HistoryPhysicalNoteText", "OperativeNoteText",
         "DischargeInstructionNoteText"], [
            ["TRUE", "Inguinal hernia", "Laparoscopic inguinal hernia repair", "Invented H&P: reducible hernia.",
             "Invented operative note: mesh placed.", "No lifting over 10 pounds for 2 weeks. Call for fever."],
            ["FALSE", "Cataract", "Phacoemulsification", "Invented H&P.", "Invented op note.", "Use eye drops."],
            ["TRUE", "Carpal tunnel syndrome", "Carpal tunnel release", "Invented H&P: numbness.",
             "Invented operative note: ligament released.", "Keep the dressing dry for 48 hours."],
            ["TRUE", "Gallstones", "Cholecystectomy", "", "Invented op note.", "Walk daily."],
        ]))
    _readme(folder, "One file per MedHELM private format (shc_med, its question variant, CLEAR's per-condition "
                    "workbook, NoteExtract, MentalHealth, PatientInstruct); rows to skip and duplicate rows included.")


# ---------------------------------------------------------------- public: MedDialog, MedMCQA
def public(out: Path) -> None:
    folder = out / "datasets" / "med_dialog"
    dialogues = {
        "healthcaremagic": [("Patient: I get cramps in my forearm when I bend my arm. Doctor: It may be a pinched "
                             "nerve; try physiotherapy.", "Could forearm cramps come from a pinched nerve?"),
                            ("Patient: My child has a fever of 101 for two days. Doctor: Give fluids and "
                             "paracetamol; see a doctor if it lasts.", "What to do for a child's two-day fever?")],
        "icliniq": [("Patient: Hello doctor, my knee hurts above the kneecap. Doctor: The MRI shows a small tear.",
                     "Please interpret my knee MRI.")],
    }
    for subset, items in dialogues.items():
        _write(folder / subset / "test.json", json.dumps({"data": [{"src": s, "tgt": t} for s, t in items]},
                                                         indent=2).encode())
    _readme(folder, "MedDialog layout as HELM's CodaLab copy holds it ({subset}/test.json with data: [src, tgt]).")
    questions = [("In a patient with heart disease, antibiotic prophylaxis for dental extraction is:", "Amoxicillin",
                  "Imipenem", "Gentamicin", "Erythromycin", 1),
                 ("Which vitamin deficiency causes scurvy?", "Vitamin A", "Vitamin B12", "Vitamin C", "Vitamin D", 3),
                 ("The normal adult resting heart rate range is:", "20-40", "60-100", "120-160", "180-200", 2)]
    lines = [json.dumps({"question": q, "exp": "", "cop": cop, "opa": a, "opb": b, "opc": c, "opd": d,
                         "subject_name": "Medicine", "topic_name": None, "id": f"synthetic-{i}",
                         "choice_type": "single"}) for i, (q, a, b, c, d, cop) in enumerate(questions)]
    folder = out / "datasets" / "medmcqa"
    _write(folder / "dev.json", "".join(f"{line}\n" for line in lines).encode())
    _readme(folder, "MedMCQA dev.json layout (JSON lines: question, opa-opd, cop 1-4).")


def write_all(out: Path) -> None:
    """Write every synthetic fixture under `out`."""
    for make in (dischargeme, mimic_bhc, mimic_rrs, mimiciv_billing_code, n2c2, ehrshot, medalign, private, public):
        make(out)


if __name__ == "__main__":
    write_all(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
