"""The viewer's campaign pages (`/campaigns`): the viewer's own user starts a rating campaign, as `judge campaign` does.

    who         the viewer's own session only (its access token: `gate.AdminPages`); a rater's session
                never reaches these pages (RaterGate answers 403 first). Who started a campaign is the
                viewer process's user (`current_actor()`, read once when `serve` starts), recorded in the
                store and the audit log: no form field names a person or a role
    raters      only active raters (`medhelm-local raters add`) whose role is one of the policy's roles
                (roles.yaml, read once when `serve` starts); a rater whose role the policy no longer lists
                cannot be given a campaign
    page        every served store's jury-scored runs and campaigns (run, raters, answers, progress, who
                started it); a form: run, raters, answers (empty: as many as Bonett's method plans for the
                interval width asked), raters per answer, seed. After a start, the sizing's reasoning
    writes      POST only, with the viewer's CSRF token for this purpose (compared in constant time) and a
                same-origin check; each start is a `campaign.created` audit record, as from the CLI
"""

from __future__ import annotations

import hmac
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import duckdb
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from medhelm_local.errors import ConfigError, MedhelmError, StoreLockedError
from medhelm_local.raters.campaigns import answered, create_campaign, size_campaign
from medhelm_local.raters.gate import AdminPages, form_csrf
from medhelm_local.raters.pages import html_page, parse_form_lists, read_body
from medhelm_local.raters.web import RatingDesk
from medhelm_local.report.server import ASGIApp

# Bonett's plan, as `judge campaign` plans it by default: MedHELM's jury reached 0.47 with its clinicians.
EXPECTED_ICC = 0.47
DEFAULT_WIDTH = 0.3


@dataclass(frozen=True)
class CampaignAdmin:
    """Who starts campaigns from the viewer (its process's user) and the policy's role names (both read once)."""

    desk: RatingDesk
    actor: str
    roles: frozenset[str]


def _runs(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The store's jury-scored runs: id, benchmark, model, answers to rate."""
    from medhelm_local.run.jury_runs import jury_scored_runs

    judged = jury_scored_runs(con)
    models = dict(con.execute("SELECT run_id, model FROM runs").fetchall())
    return [{"run_id": run_id, "benchmark": benchmark, "model": models.get(run_id, ""),
             "answered": len(answered(con, run_id))} for run_id, (_, _, benchmark) in sorted(judged.items())]


def _campaigns(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The store's campaigns, newest first, with their progress."""
    import json

    rows = con.execute("""
        SELECT c.campaign_id, c.run_id, c.raters_json, c.overlap, c.created_by, c.created_at, c.sizing,
               count(DISTINCT a.instance_id), count(a.instance_id), count(r.instance_id)
        FROM rating_campaigns c LEFT JOIN rating_assignments a USING (campaign_id)
        LEFT JOIN clinician_ratings r USING (campaign_id, rater, instance_id)
        GROUP BY ALL ORDER BY c.created_at DESC, c.campaign_id DESC""").fetchall()
    return [{"campaign": r[0], "run_id": r[1], "raters": json.loads(r[2]), "overlap": r[3], "created_by": r[4],
             "created_at": str(r[5])[:16], "sizing": r[6], "answers": r[7], "assigned": r[8], "done": r[9]}
            for r in rows]


def _whole(form: Mapping[str, list[str]], name: str, default: int | None, low: int, high: int) -> int | None:
    """A whole number from the form (None when left empty and there is no default)."""
    text = (form.get(name) or [""])[-1].strip()
    if not text:
        return default
    if not text.lstrip("-").isdigit() or not low <= int(text) <= high:
        raise ConfigError(f"'{text[:20]}' is not a whole number from {low} to {high}", where=f"field {name}",
                          fix=f"give {name} as a whole number from {low} to {high}")
    return int(text)


def _width(form: Mapping[str, list[str]]) -> float:
    text = (form.get("target_width") or [""])[-1].strip()
    try:
        width = float(text) if text else DEFAULT_WIDTH
    except ValueError:
        width = math.nan
    if not 0.01 <= width <= 1.99:
        raise ConfigError(f"'{text[:20]}' is not an interval width from 0.01 to 1.99", where="field target_width",
                          fix="give the full width of the ICC's 95 % interval to plan for, e.g. 0.3")
    return width


def create_campaign_app(admin: CampaignAdmin, csrf: str) -> Starlette:
    """The /campaigns routes (AdminPages checks the viewer's session before any of them)."""
    desk = admin.desk

    def raters() -> list[dict[str, str]]:
        return [{"name": r.name, "role": r.role} for r in desk.registry.raters() if r.active and r.role in admin.roles]

    def listing(status: int = 200, error: str | None = None, done: Mapping[str, str] | None = None) -> Response:
        stores: list[dict[str, Any]] = []
        for path in desk.stores:
            try:
                runs, held = desk.with_store(path, False, lambda con: (_runs(con), _campaigns(con)))
            except StoreLockedError:
                runs, held = [], None  # a run is writing to it: shown as busy
            except MedhelmError:
                continue  # a store of an older version, or not readable: nothing of it to rate
            stores.append({"name": path.stem, "runs": runs, "campaigns": held})
        started = None
        if done:
            started = next((c for s in stores if s["name"] == done.get("store") for c in s["campaigns"] or []
                            if c["campaign"] == done.get("done")), None)
        return html_page("admin_campaigns.html", status=status, actor=admin.actor, stores=stores, raters=raters(),
                     csrf=csrf, error=error, started=started, width=DEFAULT_WIDTH, expected=EXPECTED_ICC)

    async def page(request: Request) -> Response:
        return await run_in_threadpool(listing, 200, None, dict(request.query_params))

    def start(form: Mapping[str, list[str]]) -> Response:
        store_name, _, run_id = (form.get("run") or [""])[-1].partition("/")
        path = desk.store(store_name)
        if path is None or not run_id:
            raise ConfigError("choose a run to rate", where="field run", fix="pick one of the jury-scored runs listed")
        names = list(dict.fromkeys(form.get("rater", [])))
        offered = {r["name"] for r in raters()}
        unknown = [n for n in names if n not in offered]
        if unknown:
            raise ConfigError(f"not active raters in a role of the policy: {', '.join(unknown)[:200]}",
                              where="field rater", fix="choose among the raters listed (`medhelm-local raters add "
                                                       "NAME --role clinician` adds one)")
        overlap = _whole(form, "overlap", 2, 2, 100) or 2
        seed = _whole(form, "seed", 0, 0, 2**31 - 1) or 0
        instances, width = _whole(form, "instances", None, 1, 1_000_000), _width(form)

        def create(con: duckdb.DuckDBPyConnection) -> tuple[str, int]:
            planned = size_campaign(con, run_id, overlap, EXPECTED_ICC, width)
            count, sizing = (planned.chosen, planned.reasoning()) if instances is None else (
                instances, planned.reasoning(instances))
            made = create_campaign(con, run_id, names, count, overlap, seed, sizing, admin.actor)
            return made.campaign_id, made.instances

        campaign_id, count = desk.with_store(path, True, create)
        desk.audit.append("campaign.created", {"store": str(path), "campaign": campaign_id, "run": run_id,
                                               "raters": names, "instances": count, "overlap": overlap, "seed": seed,
                                               "from": "viewer"}, admin.actor)
        return RedirectResponse("/campaigns?" + urlencode({"store": path.stem, "done": campaign_id}), status_code=303)

    async def act(request: Request) -> Response:
        data = await read_body(request)
        if data is None:
            return PlainTextResponse("The form is too large.", status_code=413)
        form = parse_form_lists(data)
        # Before anything else: a form without the viewer's token for this page was not sent from it.
        if not hmac.compare_digest((form.get("csrf") or [""])[-1].encode(), csrf.encode()):
            return PlainTextResponse("This form is not from the campaign page (its CSRF token is missing or wrong). "
                                     "Reload the page and try again.", status_code=403)
        return await run_in_threadpool(_refused_as_page, lambda: start(form), listing)

    return Starlette(routes=[
        Route("/campaigns", page, methods=["GET", "HEAD"]),
        Route("/campaigns", act, methods=["POST"]),
    ])


def _refused_as_page(work: Callable[[], Response], listing: Callable[..., Response]) -> Response:
    """`work`'s answer; a store a run holds answers 503, and bad input the page again with the reason."""
    try:
        return work()
    except StoreLockedError:
        return PlainTextResponse("A run is writing to this store right now. Try again in a moment.", status_code=503,
                                 headers={"Retry-After": "5"})
    except MedhelmError as exc:
        return listing(400, exc.message)


class CampaignGate(AdminPages):
    """ASGI middleware: /campaigns for the viewer's own session (its token), everything else to `inner`."""

    def __init__(self, inner: ASGIApp, admin: CampaignAdmin, token: str, port: int, loopback: bool) -> None:
        super().__init__(inner, "/campaigns", create_campaign_app(admin, form_csrf(token, "campaign")),
                         "The campaign pages", token, port, loopback)


def campaign_admin(desk: RatingDesk) -> CampaignAdmin:
    """The campaign pages' admin for `serve`: this process's user, read now, and the policy's role names as the
    desk read them when the viewer started."""
    from medhelm_local.policy.identity import current_actor

    return CampaignAdmin(desk, current_actor(), frozenset(desk.text.views))
