"""A jury-scored suite store, raters added and a campaign started through the CLI, and HTTP as a rater's browser.

The store is written through the store API (support.report_store): one MedicationQA run of a model named
`local/secret-model`, rated by one judge of the jury `medhelm`, whose ratings vary by instance.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from conftest import run_cli

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek
from support.report_store import FakeRun, Rating, write_store

MODEL = "local/secret-model"
JUDGE = "judge-visible-only-to-admins"


def _question(i: int) -> str:
    return f"Patient question {i}: can I take drug {i} with food? <script>alert(1)</script>"


def jury_store(folder: Path, kek: Kek, n: int = 8, access: str = "public",
               prompt: Callable[[int], str] = _question, jury_score: bool = False) -> tuple[Path, str]:
    """A suite store `ward` with one jury-scored run of n answers: (path, run id). With `jury_score`, the jury's
    scores are derived too (as `judge` stores them), so reports show the jury's column."""
    path = folder / "ward.duckdb"
    ids = write_store(path, kek, "ward", [FakeRun(
        MODEL, "medication_qa", n, values=[0.5] * n, seed=3, access=access, prompt=prompt,
        extra_metrics={"jury_score": lambda i: (2 + i % 5 + (i * 3) % 5 + 5 - i % 3) / 3} if jury_score else {},
        ratings=lambda i: [Rating(JUDGE, jury_ratings(i))])])
    return path, ids[0]


def jury_ratings(i: int) -> dict[str, int]:
    """The jury's ratings of answer i in `jury_store`."""
    return {"accuracy": 1 + i % 5, "completeness": 1 + (i * 3) % 5, "clarity": 5 - i % 3}


def clinicians_rate(store: Path, run_id: str, kek: Kek, agree: bool, n: int = 12) -> None:
    """A campaign in which two clinicians rate n answers of `jury_store`'s run: about as the jury did (agree), or
    the scale turned upside down; written through the campaign API, as the rating pages write it."""
    from medhelm_local.annotate.rubric import load_rubric
    from medhelm_local.raters.campaigns import campaign, create_campaign, record_rating

    rubric = load_rubric("patient_answer")
    handle = open_store(store, kek)
    try:
        made = create_campaign(handle.con, run_id, ["dr_a", "dr_b"], n, 2, 4, "as asked", "tester")
        found = campaign(handle.con, made.campaign_id)
        assert found is not None
        for shift, rater in enumerate(found.raters):
            for position, instance_id in handle.con.execute(
                    "SELECT position, instance_id FROM rating_assignments WHERE campaign_id = ? AND rater = ?",
                    [found.campaign_id, rater]).fetchall():
                i = int(instance_id[1:])
                given = jury_ratings(i)
                if (i + shift) % 3 == 0:  # clinicians differ from the jury, and each other, now and then
                    given["completeness"] = min(5, given["completeness"] + 1)
                record_rating(handle.con, found, rubric, rater, position,
                              given if agree else {c: 6 - v for c, v in given.items()}, "")
    finally:
        handle.close()


def add_rater(name: str, env: dict[str, str], role: str = "clinician") -> str:
    """`raters add NAME`; the sign-in token of the link it printed."""
    done = run_cli("raters", "add", name, "--role", role, env=env)
    assert done.returncode == 0, done.stderr
    found = re.search(r"/rate/signin\?link=(\S+)", done.stdout)
    assert found is not None, done.stdout
    return found.group(1)


@dataclass
class Browser:
    """A rater's HTTP client: keeps the session cookie, follows no redirect."""

    base: str
    cookies: dict[str, str] = field(default_factory=dict)

    def request(self, path: str, form: dict[str, str] | list[tuple[str, str]] | None = None,
                method: str | None = None, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
        """One request: status, headers (lower-case names; set-cookie values joined by newlines), body text. A form
        given as pairs may repeat a field (checkboxes)."""
        data = urlencode(form).encode() if form is not None else None
        sent = {**(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if data is not None:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        request = urllib.request.Request(self.base + path.lstrip("/"), data=data, headers=sent,
                                         method=method or ("POST" if data is not None else "GET"))
        opener = urllib.request.build_opener(_NoRedirect)
        try:
            response: Any = opener.open(request, timeout=30)
        except urllib.error.HTTPError as exc:
            response = exc
        with response:
            got = {k.lower(): v for k, v in response.headers.items()}
            got["set-cookie"] = "\n".join(response.headers.get_all("Set-Cookie") or [])
            for line in got["set-cookie"].splitlines():
                name, _, rest = line.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
            return response.status if hasattr(response, "status") else response.code, got, response.read().decode()

    def sign_in(self, link: str) -> int:
        """POST the sign-in form as the sign-in page does; the status."""
        return self.request("/rate/signin", {"link": link})[0]

    def csrf(self, path: str) -> str:
        """The CSRF token of the rating form at `path`."""
        status, _, body = self.request(path)
        assert status == 200, body
        found = re.search(r'name="csrf" value="([0-9a-f]+)"', body)
        assert found is not None, body
        return found.group(1)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None
