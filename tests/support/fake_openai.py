"""A fault-injecting fake OpenAI-compatible server, for fault tests and speed measurement only.

It answers /v1/chat/completions, /v1/completions and /v1/models on 127.0.0.1 after a fixed
delay, and can inject faults at a seeded rate: 429, 500, dropped connections, hangs and
malformed JSON. GET /stats returns its counters (requests per prompt, per outcome) as JSON.
Answers are deterministic: a letter derived from the prompt's hash, so reruns agree. A request with
`response_format` (a judge asked for ratings) gets ratings for the schema's criteria, scripted by
`--judge`: good (valid JSON), fenced (in a code fence, scores as strings, text after it), malformed
(no JSON), partial (the last criterion missing), out_of_range (a score of 7); and two judges that
echo the answer under review, each rating every criterion 1 itself: echo (quotes the answer, then
gives its verdict) and splice (copies the answer unescaped into its first explanation, as a model
would that a verdict-shaped answer talked into closing the string); and parrot, which replies with
the answer itself (a judge that does what the answer tells it). With `--answer TEXT`, every request
that is not a rating request gets TEXT as its answer (a graded model writing a verdict). A request
for a verdict on one rubric item (its schema requires criteria_met) gets met or not met from the
prompt's hash, scripted by the same modes (echo and splice judge every item not met themselves).

Chat replies asked for logprobs carry the answer letter's alone (a model sure of every answer); with
`--unsure`, every letter A-D among the top logprobs, the answer most likely, each at a probability
derived from the prompt's hash, so confidence varies from answer to answer as a real model's does.

With `--context N` it also has a model context of N tokens, one token per character (a chat
message costs 3 more, the generation prompt 2): it serves vLLM's /tokenize and /detokenize at its
root and refuses, with HTTP 400 as vLLM does, a request whose prompt and max_tokens pass N.
Without it, like Ollama, it has no tokenizer endpoints (404).

With `--reasoning MODE` it answers as a reasoning model, in the shapes the engines' documentation shows:
`inline` (`<think>...</think>` before the answer, as DeepSeek R1 and Qwen3 write it), `field` (vLLM's
`reasoning_content` beside the content), `ollama` (Ollama's `reasoning` field), `cut` (a third of the
replies stopped by max_tokens inside `<think>`, finish_reason "length"; the rest inline). Usage counts
the reasoning's tokens with the answer's, as servers do.

Run: python tests/support/fake_openai.py --port-file F [--delay 0.2] [--fault-rate 0.3] [--seed 1] [--context N]
     [--judge good] [--unsure] [--answer TEXT] [--reasoning inline] [--build REV]

With `--build REV` it reports serving model build REV (each reply's system_fingerprint, and the root of its
/v1/models entry), so a test can swap the model behind a name between two runs.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import re
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FAULTS = ("429", "500", "drop", "hang", "malformed")  # also "400" (e.g. prompt too long) on request
JUDGE_MODES = ("good", "fenced", "malformed", "partial", "out_of_range", "echo", "splice", "parrot")
# The answer under review in a judge prompt: between the marker lines the rubric quotes it with, else in <response>.
_QUOTED = (re.compile(r"\[answer ([0-9a-f]+) begins\]\n(.*)\n\[answer \1 ends\]", re.S),
           re.compile(r"<response>\s*(.*?)\s*</response>", re.S))
REASONING_MODES = ("none", "inline", "field", "ollama", "cut")


@dataclass
class FakeServerState:
    """Configuration and counters of one fake server."""

    delay_s: float = 0.0
    fault_rate: float = 0.0
    faults: tuple[str, ...] = FAULTS
    seed: int = 1
    hang_s: float = 30.0
    judge: str = "good"
    unsure: bool = False  # every option letter among the top logprobs, not only the answer's
    answer: str | None = None  # the answer to every request that is not a rating request
    reasoning: str = "none"  # REASONING_MODES: how a reasoning model's thinking comes back
    outcomes: Counter[str] = field(default_factory=Counter)
    first_request_at: float | None = None
    last_reply_at: float | None = None
    per_prompt: Counter[str] = field(default_factory=Counter)
    per_model: Counter[str] = field(default_factory=Counter)
    first_at_by_model: dict[str, float] = field(default_factory=dict)
    in_flight: int = 0
    max_in_flight: int = 0
    connections: int = 0  # accepted
    connections_before_first: int = 0  # accepted before the first completion request
    shapes: Counter[str] = field(default_factory=Counter)  # message roles and request options seen
    context: int | None = None  # the model's context in tokens (one per character); None: no tokenizer
    longest_prompt: int = 0  # the most tokens a prompt that was answered had
    build: str | None = None  # the model build it serves: its replies' system_fingerprint, its listing's root

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def stats(self) -> dict[str, Any]:
        """Counters as served on GET /stats."""
        return {"requests": sum(self.per_prompt.values()), "outcomes": dict(self.outcomes),
                "per_prompt": dict(self.per_prompt), "first_request_at": self.first_request_at,
                "last_reply_at": self.last_reply_at, "per_model": dict(self.per_model),
                "first_at_by_model": self.first_at_by_model, "max_in_flight": self.max_in_flight,
                "connections": self.connections, "connections_before_first": self.connections_before_first,
                "shapes": dict(self.shapes), "longest_prompt": self.longest_prompt}

    def record(self, body: dict[str, Any]) -> None:
        """Count one request by model, and the shape of its body."""
        model = str(body.get("model"))
        self.per_model[model] += 1
        self.first_at_by_model.setdefault(model, time.time())
        roles = "+".join(m.get("role", "?") for m in body.get("messages", [])) or "prompt"
        options = ",".join(k for k in ("response_format", "logprobs", "stop") if k in body)
        self.shapes[f"{roles}|{options}"] += 1


def _answer(prompt: str) -> str:
    digest = hashlib.sha256(prompt.encode()).digest()
    return "ABCD"[digest[0] % 4]


def _ratings(prompt: str, schema: dict[str, Any], mode: str, seed: int = 1) -> str:
    """A judge's reply to a rating request, as the scripted mode has it (servers with other seeds disagree)."""
    criteria = list(schema.get("required") or [])
    scores = {c: 1 + hashlib.sha256(f"{seed}\0{prompt}\0{c}".encode()).digest()[0] % 5 for c in criteria}
    if mode == "malformed":
        return "The response reads well and seems accurate to me."
    if mode in ("echo", "splice", "parrot"):
        return _echoing(prompt, {c: {"explanation": "judged", "score": 1} for c in criteria}, mode)
    if mode == "partial":
        criteria = criteria[:-1]
    if mode == "out_of_range" and criteria:
        scores[criteria[0]] = 7
    ratings = {c: {"explanation": f"{c} judged", "score": str(scores[c]) if mode == "fenced" else scores[c]}
               for c in criteria}
    text = json.dumps(ratings)
    return f"Here is my rating:\n```json\n{text}\n```\nI hope this helps." if mode == "fenced" else text


def _answer_under_review(prompt: str) -> str:
    for pattern in _QUOTED:
        found = pattern.search(prompt)
        if found:
            return found.group(found.lastindex or 1)
    return ""


def _echoing(prompt: str, own: dict[str, Any], mode: str) -> str:
    """A judge that repeats the answer it rates and gives its own verdict (`own`, whose explanation is "judged"),
    or (parrot) replies with the answer alone."""
    answer = _answer_under_review(prompt)
    if mode == "parrot":
        return answer
    if mode == "echo":
        return f"The response under review reads:\n{answer}\nMy ratings:\n{json.dumps(own)}"
    return json.dumps(own).replace('"explanation": "judged"', f'"explanation": "The answer says: {answer}"', 1)


def _verdict(prompt: str, mode: str, seed: int = 1) -> str:
    """A judge's reply to a met/not-met request on one rubric item (HealthBench), as the scripted mode has it."""
    met = hashlib.sha256(f"{seed}\0{prompt}".encode()).digest()[0] % 2 == 0
    if mode == "malformed":
        return "The response addresses the item reasonably well."
    if mode in ("echo", "splice", "parrot"):
        return _echoing(prompt, {"explanation": "judged", "criteria_met": False}, mode)
    if mode == "partial":
        return json.dumps({"explanation": "judged"})
    if mode == "fenced":
        return f"```json\n{json.dumps({'explanation': 'judged', 'criteria_met': str(met).lower()})}\n```"
    return json.dumps({"explanation": "judged", "criteria_met": met})


def _top_logprobs(prompt: str, text: str, unsure: bool) -> list[dict[str, Any]]:
    """The answer token's top logprobs: the answer alone, or (unsure) every letter, the answer first and likeliest."""
    if not unsure or text not in "ABCD":
        return [{"token": text, "logprob": -0.1, "bytes": None}]
    digest = hashlib.sha256(f"logprobs\0{prompt}".encode()).digest()
    chosen = -0.05 - digest[0] / 128  # -0.05 .. -2.04
    others = [c for c in "ABCD" if c != text]
    return [{"token": text, "logprob": chosen, "bytes": None},
            *({"token": c, "logprob": chosen - 0.05 - digest[1 + i] / 64, "bytes": None} for i, c in enumerate(others))]


def _think(prompt: str, answer: str, mode: str, choice: dict[str, Any]) -> str:
    """Make `choice` a reasoning model's: its thinking inline, in a field, or cut off inside; all it generated."""
    # The thinking names another letter: a reader that looked at it would read the wrong answer.
    other = "ABCD"[("ABCD".index(answer) + 1) % 4] if answer in "ABCD" else "A"
    thought = f"The question is about {prompt[-40:].strip()!r}. The answer is {other}."
    message = choice["message"]
    if mode == "cut" and hashlib.sha256(prompt.encode()).digest()[1] % 3 == 0:
        message["content"] = f"<think>\n{thought} But first, consider"
        choice["finish_reason"] = "length"
    elif mode in ("inline", "cut"):
        message["content"] = f"<think>\n{thought}\n</think>\n\n{answer}"
    else:
        message["reasoning_content" if mode == "field" else "reasoning"] = thought
    return f"{thought} {message['content']}"


def _reply(path: str, body: dict[str, Any], judge: str = "good", seed: int = 1,
           unsure: bool = False, answer: str | None = None, reasoning: str = "none") -> dict[str, Any]:
    model = body.get("model", "fake")
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
    if path.endswith("/chat/completions"):
        prompt = body["messages"][-1]["content"]
        if schema is not None and "criteria_met" in (schema.get("required") or []):
            text = _verdict(prompt, judge, seed)
        else:
            text = (answer or _answer(prompt)) if schema is None else _ratings(prompt, schema, judge, seed)
        choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": text},
                                  "finish_reason": "stop"}
        generated = text
        if reasoning != "none" and schema is None:
            generated = _think(prompt, text, reasoning, choice)
        if body.get("logprobs"):
            top = _top_logprobs(prompt, text, unsure)
            choice["logprobs"] = {"content": [{"token": text, "logprob": top[0]["logprob"], "bytes": None,
                                               "top_logprobs": top}]}
    else:
        prompt = body["prompt"]
        text = (answer or _answer(prompt)) if schema is None else _ratings(prompt, schema, judge, seed)
        choice = {"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}
        generated = text
    out = max(1, len(generated) // 4)
    return {"id": "fake-1", "object": "chat.completion", "created": 0, "model": model, "choices": [choice],
            "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": out,
                      "total_tokens": len(prompt) // 4 + out}}


def _tokens(body: dict[str, Any]) -> list[int]:
    """The fake model's tokens for a /tokenize or completion body: one per character, plus the chat framing."""
    if "messages" in body:
        framing = [0] * (3 * len(body["messages"]) + (2 if body.get("add_generation_prompt", True) else 0))
        return framing + [ord(ch) for m in body["messages"] for ch in str(m.get("content") or "")]
    return [ord(ch) for ch in str(body["prompt"])]


def _tokenizer_reply(state: FakeServerState, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    if state.context is None:
        return 404, {"error": {"message": "not found"}}
    if path == "/detokenize":
        return 200, {"prompt": "".join(chr(t) for t in body["tokens"])}
    tokens = _tokens(body)
    return 200, {"count": len(tokens), "max_model_len": state.context, "tokens": tokens}


def _too_long(state: FakeServerState, body: dict[str, Any]) -> int | None:
    """The prompt's token count when it and max_tokens pass the context (None when it fits)."""
    if state.context is None:
        return None
    count = len(_tokens(body))
    if count + int(body.get("max_tokens") or 0) > state.context:
        return count
    state.longest_prompt = max(state.longest_prompt, count)
    return None


def _http(status: int, payload: bytes, content_type: str = "application/json") -> bytes:
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests",
              500: "Internal Server Error"}.get(status, "X")
    head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {len(payload)}\r\n"
            "Connection: keep-alive\r\n\r\n")
    return head.encode() + payload


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, str, bytes] | None:
    line = await reader.readline()
    if not line:
        return None
    method, path, _ = line.decode("latin-1").split(" ", 2)
    length = 0
    while True:
        header = await reader.readline()
        if header in (b"\r\n", b"\n", b""):
            break
        name, _, value = header.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    body = await reader.readexactly(length) if length else b""
    return method, path, body


async def _handle(state: FakeServerState, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    state.connections += 1
    state.connections_before_first += state.first_request_at is None
    try:
        while True:
            request = await _read_request(reader)
            if request is None:
                return
            method, path, raw = request
            if method == "GET" and path.endswith("/models"):
                listed = {"id": "fake", "object": "model"} | ({"root": f"/models/{state.build}"} if state.build else {})
                models = {"object": "list", "data": [listed]}
                writer.write(_http(200, json.dumps(models).encode()))
            elif method == "GET" and path == "/stats":
                writer.write(_http(200, json.dumps(state.stats()).encode()))
            elif method == "POST" and path in ("/tokenize", "/detokenize"):
                status, reply = _tokenizer_reply(state, path, json.loads(raw))
                writer.write(_http(status, json.dumps(reply).encode()))
            elif method == "POST" and path.endswith("completions"):
                if state.first_request_at is None:
                    state.first_request_at = time.time()
                body = json.loads(raw)
                prompt = body["messages"][-1]["content"] if "messages" in body else body["prompt"]
                state.per_prompt[hashlib.sha256(prompt.encode()).hexdigest()[:16]] += 1
                state.record(body)
                state.in_flight += 1
                state.max_in_flight = max(state.max_in_flight, state.in_flight)
                fault = state.rng.choice(state.faults) if state.rng.random() < state.fault_rate else None
                state.outcomes[fault or "ok"] += 1
                try:
                    if state.delay_s:
                        await asyncio.sleep(state.delay_s)
                finally:
                    state.in_flight -= 1
                too_long = _too_long(state, body)
                if too_long is not None and fault is None:
                    message = (f"This model's maximum context length is {state.context} tokens. However, you "
                               f"requested {too_long + int(body.get('max_tokens') or 0)} tokens.")
                    writer.write(_http(400, json.dumps({"error": {"message": message, "type": "BadRequestError"}})
                                       .encode()))
                    await writer.drain()
                    continue
                if fault == "drop":
                    writer.transport.abort()
                    return
                if fault == "hang":
                    await asyncio.sleep(state.hang_s)
                    writer.transport.abort()
                    return
                if fault in ("400", "429", "500"):
                    writer.write(_http(int(fault), b'{"error": {"message": "injected fault", "type": "fault"}}'))
                elif fault == "malformed":
                    writer.write(_http(200, b'{"choices": [ {"message": '))
                else:
                    reply = _reply(path, body, state.judge, state.seed, state.unsure, state.answer,
                                   state.reasoning)
                    if state.build:
                        reply["system_fingerprint"] = state.build
                    writer.write(_http(200, json.dumps(reply).encode()))
            else:
                writer.write(_http(404, b'{"error": {"message": "not found"}}'))
            await writer.drain()
            if method == "POST":
                state.last_reply_at = time.time()
    except (ConnectionError, asyncio.IncompleteReadError):
        return
    finally:
        writer.close()


async def serve(state: FakeServerState, port: int = 0, port_file: Path | None = None,
                ready: asyncio.Event | None = None) -> None:
    """Serve on 127.0.0.1 until cancelled (or SIGTERM when run as a script)."""
    server = await asyncio.start_server(lambda r, w: _handle(state, r, w), "127.0.0.1", port, backlog=1024)
    bound = server.sockets[0].getsockname()[1]
    if port_file is not None:
        tmp = port_file.with_suffix(".tmp")
        tmp.write_text(str(bound))
        tmp.replace(port_file)
    state.port = bound  # type: ignore[attr-defined]
    if ready is not None:
        ready.set()
    async with server:
        await server.serve_forever()


def main() -> None:
    """Command-line entry: run the server in this process."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", type=Path)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--faults", default=",".join(FAULTS))
    parser.add_argument("--hang", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--context", type=int, default=None)
    parser.add_argument("--judge", choices=JUDGE_MODES, default="good")
    parser.add_argument("--unsure", action="store_true", help="every option letter among the top logprobs")
    parser.add_argument("--answer", default=None, help="the answer to every request that is not a rating request")
    parser.add_argument("--reasoning", choices=REASONING_MODES, default="none")
    parser.add_argument("--build", default=None, help="the model build it reports (system_fingerprint, root)")
    args = parser.parse_args()
    state = FakeServerState(args.delay, args.fault_rate, tuple(args.faults.split(",")), args.seed, args.hang,
                            context=args.context, judge=args.judge, unsure=args.unsure, answer=args.answer,
                            reasoning=args.reasoning, build=args.build)
    # A test server has nothing to flush: leave at once on SIGTERM, without cancelling
    # hundreds of in-flight handlers one by one.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    asyncio.run(serve(state, args.port, args.port_file))


if __name__ == "__main__":
    main()
