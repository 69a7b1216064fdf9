"""MedCalc-Bench parity: the official rule and HELM's rule agree with their references on every vector."""

from __future__ import annotations

import pytest
from support.parity import Claim, check_agreement, check_departures_explained, claims_of


@pytest.mark.parametrize("claim", claims_of("medcalc_bench", claims=True), ids=lambda c: c.metric)
def test_a_metric_that_claims_a_reference_agrees_with_it_on_every_vector(claim: Claim) -> None:
    check_agreement(claim, at_least=3000)


@pytest.mark.parametrize("claim", claims_of("medcalc_bench", claims=False), ids=lambda c: c.metric)
def test_a_documented_improvement_departs_only_where_the_readme_says_why(claim: Claim) -> None:
    check_departures_explained(claim)
