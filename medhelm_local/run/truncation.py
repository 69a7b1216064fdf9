"""Long records cut to fit the model, counted with the model's own tokenizer (the server's /tokenize).

A benchmark whose card sets `prompt.truncate` may send prompts longer than the model's context (a
patient's whole record). Before such a prompt is sent, its length is asked of the server that
will answer it; when the prompt and its answer (max_tokens) do not fit the model's context, or
MedHELM's `max_length=` where the card takes it, only the instance's record is shortened, keeping
its start or its end as the card says, and the prompt is rebuilt and counted again. Nothing else
of the prompt (instructions, question, options) is ever cut. A server that offers no tokenizer
gets the prompt whole; one that is still too long when the record is gone is sent whole too, and
the server's refusal is stored as that instance's failure.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from medhelm_local.client.tokenizer import ServerTokenizer
from medhelm_local.records import Instance, Prompt
from medhelm_local.scenarios import Benchmark
from medhelm_local.scenarios.long_inputs import long_span, with_record

log = logging.getLogger("medhelm_local.run")
ATTEMPTS = 4  # re-count after each cut: text re-tokenised at the cut can differ by a few tokens


async def fit(tokenizer: ServerTokenizer, bench: Benchmark, instance: Instance, prompt: Prompt) -> Prompt:
    """The prompt, with the instance's record cut so that it and its answer fit the model."""
    if bench.truncation is None:
        return prompt
    count = await tokenizer.count(prompt)
    if count is None:
        return prompt
    limit = min(count.context, bench.max_length) if bench.max_length else count.context
    budget = limit - prompt.max_tokens
    if count.tokens <= budget:
        return prompt
    start, end = long_span(instance)
    tokens = await tokenizer.encode(instance.input[start:end])
    if tokens is None:
        return prompt
    over = count.tokens - budget
    for _ in range(ATTEMPTS):
        keep = len(tokens) - over
        if keep <= 0:
            break  # the rest of the prompt alone does not fit: the server's refusal is stored
        record = await tokenizer.decode(tokens[:keep] if bench.truncation == "keep_start" else tokens[-keep:])
        if record is None:
            break
        cut = bench.prompt(with_record(instance, record))
        recount = await tokenizer.count(cut)
        if recount is None:
            break
        if recount.tokens <= budget:
            log.info("instance %s: record cut from %d to %d prompt tokens to fit %d", instance.id, count.tokens,
                     recount.tokens, limit)
            return replace(cut, cut_from_tokens=count.tokens)
        over += recount.tokens - budget
    log.warning("instance %s: the prompt does not fit %d tokens even with its record cut; sent whole", instance.id,
                limit)
    return prompt
