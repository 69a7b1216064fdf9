"""MedHELM's EHRSHOT prompt parts for the tasks it evaluates (its config, personas, definitions), verbatim.

MedHELM's EHRSHOT config includes the persona for every task, and for the new-diagnosis tasks the
short clinical definition and the codes that define the diagnosis (the OMOP phenotype, sorted).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Task:
    """One EHRSHOT task as MedHELM prompts it."""

    full_name: str
    persona: str
    question: str
    clinical_definition: str | None = None
    codes: tuple[str, ...] = ()


TASKS: dict[str, Task] = {
    "guo_readmission": Task(
        "30-Day Readmission", "Hospitalist",
        "If this patient is discharged from the hospital right now, is the patient likely to be readmitted to the "
        "hospital within 30 days?"),
    "new_hypertension": Task(
        "Hypertension", "Primary Care Physician",
        "Is this patient likely to receive a first-time diagnosis of Hypertension within the next year?",
        "Hypertension, or high blood pressure, is a chronic medical condition characterized by persistently elevated "
        "blood pressure in the arteries, with a resting measurement at or above 130/80 mmHg. It is a significant risk "
        "factor for numerous cardiovascular and systemic diseases, including stroke, coronary artery disease, heart "
        "failure, atrial fibrillation, and chronic kidney disease. Hypertension is divided into primary (essential) "
        "hypertension, accounting for 90-95% of cases, which is due to nonspecific lifestyle and genetic factors, and "
        "secondary hypertension, due to identifiable causes like chronic kidney disease and endocrine disorders. "
        "Identifying hypertension in a patient's EHR involves reviewing blood pressure readings, assessing for risk "
        "factors such as obesity, high salt intake, and smoking, and noting any related health conditions or "
        "medications.",
        ("SNOMED/46481004", "SNOMED/72022006", "ICD9CM/401", "SNOMED/1201005", "ICD10CM/I10", "SNOMED/23717007",
         "SNOMED/266228004", "SNOMED/71874008", "SNOMED/9901000", "SNOMED/371125006", "SNOMED/194760004",
         "SNOMED/40511000119107", "SNOMED/63287004", "SNOMED/18416000", "ICD9CM/401.9", "SNOMED/1218009",
         "SNOMED/78975002", "SNOMED/78808002", "SNOMED/35303009", "SNOMED/155296003", "ICD9CM/401.1",
         "SNOMED/194758001", "ICD9CM/401.0", "SNOMED/19769006", "SNOMED/429457004", "SNOMED/59621000")),
    "lab_anemia": Task(
        "Anemia", "Hematologist",
        "If a lab test for Anemia is ordered for this patient right now, will it come back back abnormal? "
        "(i.e. <120 g/L)"),
}


def instructions(name: str) -> str:
    """The instruction block of MedHELM's EHRSHOT prompt: each part followed by a blank line."""
    task = TASKS[name]
    full = task.full_name.lower()
    parts = [f"You are an expert {task.persona.lower()} at Stanford Healthcare, an academic medical center "
             f"affiliated with Stanford University. You specialize in predicting {full}."]
    if task.clinical_definition:
        parts.append(f"Clinical Definition: {task.clinical_definition}")
    if task.codes:
        parts.append(f"Medical Code Definition: In an electronic health record (EHR), {full} is denoted by the "
                     f"occurrence of any of the following medical codes: {', '.join(sorted(task.codes))}")
    parts.append("Instruction: Review the patient's EHR history. Based on all available medical evidence in the "
                 f"provided EHR, please answer the question: {task.question}")
    return "\n".join(f"{part}\n" for part in parts)
