"""How many answers a rating campaign needs: enough for the ICC's 95 % interval to be as narrow as asked.

Bonett (2002, Statistics in Medicine 21:1331, formula 3), the precision method MedHELM-style validation
studies plan with: for an expected ICC rho, k ratings per answer and a wanted full interval width w,

    n = 1 + 8 z^2 (1 - rho)^2 (1 + (k - 1) rho)^2 / (k (k - 1) w^2)        z = 1.96 for 95 %

plus 5 rho when k = 2 and rho >= 0.7 (Bonett's correction for two raters), rounded up. It is an
approximation that holds for one-way and two-way ICCs alike; a wrong guess of rho makes the interval
wider or narrower than planned, which is why the reasoning is printed with the number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from medhelm_local.errors import ConfigError

Z_95 = 1.959963984540054
# MedHELM's reported agreement of its jury with clinicians (ICC3k on z-scores, aci_bench and medi_qa pooled).
MEDHELM_JURY_ICC = 0.47
DEFAULT_WIDTH = 0.3


@dataclass(frozen=True)
class SampleSize:
    """A planned number of answers, and the reasoning to print."""

    needed: int
    expected_icc: float
    raters_per_answer: int
    width: float
    available: int

    @property
    def chosen(self) -> int:
        """What the campaign can rate: the planned number, or every answer there is when there are fewer."""
        return min(self.needed, self.available)

    def reasoning(self, asked: int | None = None) -> str:
        """Why this many (or, for a number `asked` for, what interval it can be expected to give)."""
        if asked is not None:
            return (f"{asked} answers, as asked. With {self.raters_per_answer} ratings per answer and an expected ICC "
                    f"of {self.expected_icc:.2f}, Bonett's (2002) method expects a 95 % interval about "
                    f"{interval_width(self.expected_icc, self.raters_per_answer, asked):.2f} wide; it would take "
                    f"{self.needed} answers for {self.width:.2f}.")
        text = (f"Bonett's (2002) precision method: for an expected ICC of {self.expected_icc:.2f} (MedHELM reported "
                f"{MEDHELM_JURY_ICC} between its jury and clinicians), {self.raters_per_answer} ratings per answer "
                f"and a 95 % interval {self.width:.2f} wide, n = 1 + 8 z^2 (1 - rho)^2 (1 + (k - 1) rho)^2 / "
                f"(k (k - 1) w^2) = {self.needed} answers.")
        if self.available < self.needed:
            text += (f" The run has only {self.available} answers to rate, so all of them are used; expect an "
                     f"interval about {interval_width(self.expected_icc, self.raters_per_answer, self.available):.2f}"
                     " wide.")
        return text


def answers_needed(expected_icc: float, raters_per_answer: int, width: float) -> int:
    """Bonett's n for an ICC's 95 % interval of full `width`."""
    rho, k = expected_icc, raters_per_answer
    if not 0 <= rho < 1:
        raise ConfigError(f"an expected ICC of {rho} cannot be planned for", where="the expected ICC",
                          fix="give a value from 0 to just below 1 (MedHELM's jury reached 0.47)")
    if k < 2:
        raise ConfigError("an ICC needs at least two ratings of each answer", where="the overlap (raters per answer)",
                          fix="give an overlap of 2 or more")
    if not 0 < width < 2:
        raise ConfigError(f"an interval width of {width} cannot be planned for", where="the target interval width",
                          fix="give the full width of the 95 % interval wanted, e.g. 0.3")
    n = 1 + 8 * Z_95 ** 2 * (1 - rho) ** 2 * (1 + (k - 1) * rho) ** 2 / (k * (k - 1) * width ** 2)
    if k == 2 and rho >= 0.7:
        n += 5 * rho
    return math.ceil(n)


def interval_width(expected_icc: float, raters_per_answer: int, answers: int) -> float:
    """The 95 % interval width Bonett's formula expects from `answers` answers (the formula solved for w)."""
    rho, k = expected_icc, raters_per_answer
    extra = 5 * rho if k == 2 and rho >= 0.7 else 0.0
    room = max(answers - 1 - extra, 1e-9)
    return math.sqrt(8 * Z_95 ** 2 * (1 - rho) ** 2 * (1 + (k - 1) * rho) ** 2 / (k * (k - 1) * room))


def plan(expected_icc: float, raters_per_answer: int, width: float, available: int) -> SampleSize:
    """The planned sample for a campaign over `available` answers."""
    return SampleSize(answers_needed(expected_icc, raters_per_answer, width), expected_icc, raters_per_answer,
                      width, available)
