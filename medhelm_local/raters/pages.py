"""The viewer's pages for people (raters, reviewers, the admin's campaign pages): one owner for their templates
and forms, which `raters/web.py`, `raters/campaign_web.py` and `export/review_web.py` share.

    templates   `raters/templates/*.html`, Jinja2 with autoescape on and undefined names an error
    forms       a POST body read to at most MAX_FORM bytes (a larger one is refused, never truncated),
                parsed as application/x-www-form-urlencoded with blank values kept
    paging      long lists (a big export's review) in pages with plain links (`?page=N`, GET only); a
                page that does not exist is refused, never clamped to another
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse

MAX_FORM = 64 * 1024

_ENV: list[jinja2.Environment] = []


def render(name: str, **values: Any) -> str:
    """One template of the people's pages, rendered with `values`."""
    if not _ENV:
        loader = jinja2.FunctionLoader(
            lambda n: resources.files("medhelm_local.raters").joinpath("templates", n).read_text(encoding="utf-8"))
        _ENV.append(jinja2.Environment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined))
    return _ENV[0].get_template(name).render(**values)


def html_page(name: str, status: int = 200, **values: Any) -> HTMLResponse:
    """A people's page as a response (`rater` is None unless given: the base template names who is signed in)."""
    return HTMLResponse(render(name, **{"rater": None, **values}), status_code=status)


def parse_form(body: bytes) -> dict[str, str]:
    """A form body as a dict (the last value of a repeated field wins)."""
    return dict(parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True))


def parse_form_lists(body: bytes) -> dict[str, list[str]]:
    """A form body with every value of each field, in order (checkbox lists)."""
    found: dict[str, list[str]] = {}
    for key, value in parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True):
        found.setdefault(key, []).append(value)
    return found


async def read_body(request: Request) -> bytes | None:
    """A POST's body, or None when it is larger than MAX_FORM (stops reading there)."""
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_FORM:
            return None
    return data


@dataclass(frozen=True)
class Paging:
    """One page of a long list: which items it shows and the pages to link to (numbers from 1)."""

    page: int
    pages: int
    start: int  # index of the first item shown
    end: int  # one past the last
    total: int

    def links(self, window: int = 3) -> list[int | None]:
        """Page numbers to link: the first, the last and those near this one; None where some are left out."""
        wanted = sorted({1, self.pages, *range(max(1, self.page - window), min(self.pages, self.page + window) + 1)})
        shown: list[int | None] = []
        for number in wanted:
            if shown and shown[-1] is not None and number > shown[-1] + 1:
                shown.append(None)
            shown.append(number)
        return shown


def paging(total: int, asked: str | None, size: int) -> Paging | None:
    """The page `asked` (a query value; absent: the first) of `total` items, `size` a page; None if no such page."""
    pages = max(1, -(-total // size))
    if asked is None:
        page = 1
    elif asked.isdigit() and 1 <= int(asked) <= pages:
        page = int(asked)
    else:
        return None
    return Paging(page, pages, (page - 1) * size, min(total, page * size), total)


def page_of(index: int, size: int) -> int:
    """The page (from 1) on which the item at `index` stands."""
    return index // size + 1
