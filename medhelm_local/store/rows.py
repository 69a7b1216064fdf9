"""The rows a run writes: each record (instance, prompt, completion, score) as the store declares it."""

from __future__ import annotations

import functools
import json

from medhelm_local.metrics.calibration import chosen_probability
from medhelm_local.records import Completion, Instance, Prompt, Score
from medhelm_local.store.writer import row_of


def instance_row(run_id: str, ordinal: int, inst: Instance) -> tuple[object, ...]:
    """An instance as the writer stores it."""
    return row_of("instances", run_id=run_id, instance_id=inst.id, ordinal=ordinal, split=inst.split,
                  input=inst.input, references_json=json.dumps([{"text": r.text, "correct": r.correct}
                                                                for r in inst.references]),
                  extra_json=json.dumps(dict(inst.extra)),
                  slices_json=json.dumps(dict(inst.slices), sort_keys=True) if inst.slices else None)


def request_row(run_id: str, p: Prompt) -> tuple[object, ...]:
    """A prompt and its decoding settings as the writer stores them."""
    params = _params_json(p.max_tokens, p.temperature, tuple(p.stop), p.logprobs, p.system, p.cut_from_tokens)
    if p.history:  # a conversation: its earlier turns are part of what was sent
        params = json.dumps({**json.loads(params), "history": [list(turn) for turn in p.history]})
    return row_of("requests", run_id=run_id, instance_id=p.instance_id, prompt=p.text, params_json=params)


@functools.lru_cache(maxsize=256)
def _params_json(max_tokens: int, temperature: float, stop: tuple[str, ...], logprobs: bool, system: str | None,
                 cut_from_tokens: int | None) -> str:
    """A request's decoding settings as stored. Cached: a run's prompts nearly all share them, and encoding them
    was ~3 % of the event loop's time per instance."""
    params: dict[str, object] = {"max_tokens": max_tokens, "temperature": temperature, "stop": list(stop),
                                 "logprobs": logprobs, "system": system}
    if cut_from_tokens is not None:  # the record was cut to fit the model: say from how long
        params["cut_from_tokens"] = cut_from_tokens
    return json.dumps(params)


def completion_row(run_id: str, c: Completion, options: int | None = None) -> tuple[object, ...]:
    """A completion as the writer stores it; `options`: a multiple-choice instance's option count, whose
    chosen option's probability (its confidence, for calibration) is then read from the logprobs."""
    confidence = chosen_probability(c.logprobs_json, options) if options and c.ok else None
    return row_of("completions", run_id=run_id, instance_id=c.instance_id, ok=c.ok, text=c.text,
                  finish_reason=c.finish_reason, prompt_tokens=c.prompt_tokens,
                  completion_tokens=c.completion_tokens, latency_s=c.latency_s, attempts=c.attempts,
                  error_type=c.error_type, error_message=c.error_message, logprobs_json=c.logprobs_json,
                  confidence=confidence, reasoning=c.reasoning, served_model=c.served_model)


def score_row(run_id: str, s: Score) -> tuple[object, ...]:
    """A score as the writer stores it."""
    return row_of("scores", run_id=run_id, instance_id=s.instance_id, metric=s.metric, value=s.value,
                  extracted=s.extracted, detail_json=json.dumps(dict(s.detail), sort_keys=True) if s.detail else None,
                  error=s.error)
