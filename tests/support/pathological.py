"""Inputs built to make a regex engine backtrack or a token rule loop: each, cut to 1 KB, must take milliseconds
(tests/redact/test_redact_patterns.py checks it; bench/phi.py prints the worst time)."""

ADVERSARIAL = ("1" * 120 + " " + "1/" * 60 + " " + "a" * 80 + "@" + " " + "." * 60 + " " + "7.35/45/88 " * 6
               + "a-" * 40 + " " + "x" * 30 + "@" + "b." * 40 + " " + "Dr. " * 20 + "(617) " * 10 + "A1" * 30
               + " http://" + "a/" * 40 + " " + "12-" * 30 + " MARCH " * 5 + "9" * 40 + ":" * 20)

PATHOLOGICAL = {
    "mixed": ADVERSARIAL,
    "digits and separators": "1-2 3/4 5.6 " * 100,
    "capitalised unknown words": "Qzx Vrbl Kwyth Pnorf, " * 60,
    "address cues without addresses": "lives at address: Calle de la, Hospital of " * 30,
    "one long line of labels": "MRN: NASS: ZIP: Tel.: " * 60,
    "masks": "[NAME] [DATE] [STREET], " * 50,
    "newlines": "\n \n>" * 400,
}
