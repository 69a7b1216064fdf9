"""Clinicians in the loop: raters and their sign-in (`registry`), rating campaigns (`campaigns`), how many answers
a campaign needs (`sample_size`), and the viewer's rating pages (`web`)."""

from medhelm_local.raters.campaigns import Campaign, create_campaign
from medhelm_local.raters.registry import Rater, RaterRegistry, rater_registry
from medhelm_local.raters.sample_size import SampleSize, plan

__all__ = ["Campaign", "Rater", "RaterRegistry", "SampleSize", "create_campaign", "plan", "rater_registry"]
