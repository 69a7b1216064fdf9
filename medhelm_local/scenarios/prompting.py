"""Prompts from a card's prompt section, laid out as MedHELM's adapters lay them out.

Multiple choice (HELM's `multiple_choice_joint`): instructions, a blank line, the input (after
`Question:` when the card names an input noun), the options lettered `A. ...`, then `Answer:`.
Other tasks (HELM's generation adapter): instructions, a blank line, the input, then the answer
cue on its own line (`Answer:`), or, when the card names no cue, the line break HELM ends the input
with. Few-shot examples come between the instructions and the input, each laid out like the input
with its answer after the cue.
A conversation (HELM's chat adapter, `prompt.conversation`) is sent as its turns, nothing added.
"""

from __future__ import annotations

import json
import string
from collections.abc import Sequence

from medhelm_local.records import Instance, Prompt, TaskType
from medhelm_local.scenarios.card import CardPrompt

LETTERS = string.ascii_uppercase


def lettered_options(options: Sequence[str]) -> str:
    """Options as MedHELM lists them: `A. first\\nB. second\\n`."""
    return "".join(f"{LETTERS[i]}. {text}\n" for i, text in enumerate(options))


def _body(spec: CardPrompt, task: TaskType, instance: Instance, options_inline: bool) -> str:
    """The input block of one instance up to (not including) its answer."""
    after = "\n" if spec.nouns_on_own_line else " "
    head = f"{spec.input_noun}:{after}" if spec.input_noun else ""
    if task is TaskType.MULTIPLE_CHOICE:
        cue = spec.output_noun or "Answer"
        # The options start on their own line: after "Question: ...\n", or after an input that ends one.
        tail = "\n" if spec.input_noun or not instance.input.endswith("\n") else ""
        options = "" if options_inline else lettered_options([r.text for r in instance.references])
        return f"{head}{instance.input}{tail}{options}{cue}:"
    if spec.output_noun:
        # HELM: "Noun: input\nCue:"; inputs that end in a newline (MedCalc's) keep their blank line.
        return f"{head}{instance.input}\n{spec.output_noun.rstrip()}:{after.strip(' ')}"
    # HELM's generation adapter ends every input with a line break (its input_suffix), cue or none.
    return f"{head}{instance.input}\n"


def _answer(task: TaskType, instance: Instance) -> str:
    """What a few-shot example shows as its answer: the correct letter, or the reference text."""
    if task is TaskType.MULTIPLE_CHOICE:
        return next(LETTERS[i] for i, r in enumerate(instance.references) if r.correct)
    return instance.correct_references[0].text if instance.correct_references else ""


def conversation_prompt(spec: CardPrompt, instance: Instance) -> Prompt:
    """A conversation (a reader's `messages`, ending with the user's turn) as chat turns, as they are."""
    turns = [(str(m["role"]), str(m["content"])) for m in json.loads(instance.extra.get("messages") or "[]")]
    if not turns or turns[-1][0] != "user":
        raise ValueError(f"instance {instance.id}: the conversation does not end with a user turn")
    return Prompt(instance.id, turns[-1][1], max_tokens=spec.max_tokens, stop=tuple(spec.stop), system=spec.system,
                  history=tuple(turns[:-1]))


def render(spec: CardPrompt, task: TaskType, instance: Instance, shots: Sequence[Instance] = (),
           options_inline: bool = False) -> Prompt:
    """The prompt for one instance, with its few-shot examples (already drawn)."""
    if spec.conversation:
        return conversation_prompt(spec, instance)
    blocks = [f"{_body(spec, task, shot, options_inline)} {_answer(task, shot)}" for shot in shots]
    body = "\n\n".join([*blocks, _body(spec, task, instance, options_inline)])
    text = f"{spec.instructions}\n\n{body}" if spec.instructions else body
    return Prompt(instance.id, text, max_tokens=spec.max_tokens, stop=tuple(spec.stop),
                  logprobs=task is TaskType.MULTIPLE_CHOICE, system=spec.system)
