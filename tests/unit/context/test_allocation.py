"""The review budget by priority, whole units, and lazily (issue 16), on a generated change.

The change has 236 kept units of mixed risk: security code whose callers live elsewhere (high),
public functions whose signature changed (high, with call sites to find), config files (medium,
with config-usage searches), plain function changes (medium) and documentation (low, noise).
The review budget is made to hold the high-risk units and part of the rest, and the tests check
what a reviewer would notice: who got in, whole or not, who waited and why, and that no search,
parse or token count was spent on what waited.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from reviewtui.code import analyze
from reviewtui.context import excerpt
from reviewtui.context.render import render_bundle_markdown
from reviewtui.context.search import references
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.git.runner import GitRepo
from reviewtui.llm.tokens import TokenCounter, counter_for_encoding
from reviewtui.models import BundleSet, SymbolSearchRequest
from reviewtui.pipeline import LoadedChange, load_change
from reviewtui.plan import FusedPlan, OverrideSet, UnitOverride
from tests.conftest import GitRepoBuilder

AUTH, LIB, CONFIG, DOCS, NOTES = 12, 160, 12, 40, 30


def _lib(i: int) -> str:
    body = "".join(f"    v{k} = helper_{i}({k})\n" for k in range(6 + i % 20))
    return f"def helper_{i}(x):\n    return x\n\n\ndef work_{i}(items):\n{body}    return items\n"


def _auth(i: int) -> str:
    return (f"def check_password_{i}(user, password):\n    token = user.token\n"
            "    return password == user.secret and token\n")


def large_change(repo: GitRepoBuilder) -> LoadedChange:
    for i in range(AUTH):
        repo.write(f"app/auth/login_{i}.py", _auth(i))
        repo.write(f"app/views/use_{i}.py", f"from app.auth.login_{i} import check_password_{i}"
                                            f"\n\n\ndef view_{i}(user):\n"
                                            f"    return check_password_{i}(user, 'x')\n")
    for i in range(CONFIG):
        repo.write(f"config/service_{i}.yaml",
                   f"service:\n  name: s{i}\n  port: {8000 + i}\n  debug: false\n")
    for i in range(LIB):
        repo.write(f"app/lib/mod_{i}.py", _lib(i))
    for i in range(DOCS):
        repo.write(f"docs/page_{i}.md", "".join(f"Line {k} of page {i}.\n" for k in range(30)))
    for i in range(NOTES):
        repo.write(f"app/notes/n_{i}.py", f"# note {i}\nVALUE_{i} = {i}\n")
    repo.commit("base")
    for i in range(AUTH):
        repo.write(f"app/auth/login_{i}.py", _auth(i).replace(
            "password == user.secret", "hmac.compare_digest(password, user.secret)"))
    for i in range(CONFIG):
        repo.write(f"config/service_{i}.yaml",
                   f"service:\n  name: s{i}\n  port: {8000 + i}\n  debug: true\n")
    for i in range(LIB):
        text = _lib(i).replace("return items", "return sorted(items)")
        if i % 8 == 0:  # a public signature change: its callers are searched for
            text = text.replace(f"def work_{i}(items):", f"def work_{i}(items, reverse=False):")
        repo.write(f"app/lib/mod_{i}.py", text)
    for i in range(DOCS):
        repo.write(f"docs/page_{i}.md", "".join(f"Line {'three' if k == 3 else k} of page {i}.\n"
                                                for k in range(30)))
    for i in range(NOTES):
        repo.write(f"app/notes/n_{i}.py", f"# a note {i}\nVALUE_{i} = {i}\n")
    return load_change(repo.root, ChangeSelector(SelectorMode.AUTO))


def _risks(plan: FusedPlan) -> dict[str, str]:
    return {item.unit_id: item.risk or "unknown" for item in plan.plan}


@dataclass
class Work:
    """Every ``git grep``, parse and token count the bundle stage did."""

    greps: list[str] = field(default_factory=list)
    parsed: list[bytes] = field(default_factory=list)
    counted: list[str] = field(default_factory=list)


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Iterator[Work]:
    done = Work()
    run_status = GitRepo.run_status

    def counting_run(self: GitRepo, *args: str, **kwargs: Any) -> Any:
        if args and args[0] == "grep":
            done.greps.append(" ".join(args))
        return run_status(self, *args, **kwargs)

    class CountingParser:
        def __init__(self, real: Any) -> None:
            self._real = real

        def parse(self, data: bytes, *args: Any, **kwargs: Any) -> Any:
            done.parsed.append(bytes(data))
            return self._real.parse(data, *args, **kwargs)

    count = TokenCounter.count

    def counting(self: TokenCounter, text: str) -> int:
        done.counted.append(text)
        return count(self, text)

    monkeypatch.setattr(GitRepo, "run_status", counting_run)
    for module in (analyze, references):
        real_parser = module.parser
        monkeypatch.setattr(module, "parser", lambda g, _p=real_parser: CountingParser(_p(g)))
    monkeypatch.setattr(TokenCounter, "count", counting)
    excerpt.parse_structure.cache_clear()  # no parse may hide in a cache of an earlier test
    yield done


def _budget_for(loaded: LoadedChange, plan: FusedPlan) -> tuple[int, BundleSet]:
    """A review budget that holds every high-risk unit and about half of the rest."""
    everything = loaded.bundles(plan, review_budget=10_000_000)
    assert not everything.allocation.deferred
    risks = _risks(plan)
    high = sum(b.budget.used for b in everything.bundles if risks[b.unit_id] == "high")
    rest = sum(b.budget.used for b in everything.bundles if risks[b.unit_id] != "high")
    return high + rest // 2, everything


def test_high_risk_first_and_whole_noise_last_nothing_shredded(repo: GitRepoBuilder) -> None:
    loaded = large_change(repo)
    plan = loaded.plan(use_llm=False)
    risks = _risks(plan)
    kept = [i.unit_id for i in plan.plan if not i.skip_review]
    assert len(kept) >= 230 and {risks[u] for u in kept} == {"high", "medium", "low"}
    budget, everything = _budget_for(loaded, plan)
    wanted = {b.unit_id: b.budget.used for b in everything.bundles}
    built = loaded.bundles(plan, review_budget=budget)
    allocation = built.allocation
    included = {b.unit_id for b in built.bundles}
    deferred = {d.unit_id: d for d in allocation.deferred}
    assert included and deferred and included | set(deferred) == set(kept)
    assert allocation.used == sum(b.budget.used for b in built.bundles) <= budget

    # Every high-risk unit is in, complete: diff, its level's context, previous version, callers.
    high = [b for b in built.bundles if risks[b.unit_id] == "high"]
    assert len(high) == sum(1 for u in kept if risks[u] == "high") == 32
    for bundle in high:
        assert all(p.status in ("included", "empty") for p in bundle.budget.pieces), bundle
        assert bundle.file_context and bundle.previous_version
    assert sum(1 for b in high if b.callers) >= AUTH  # the views that call check_password_i
    # Noise (documentation) waits until everything else is in: here, all of it waits.
    docs = [u for u in kept if loaded.unit(u).file_path.startswith("docs/")]  # type: ignore
    assert len(docs) == DOCS and all(u in deferred for u in docs)
    assert [d.unit_id for d in allocation.deferred][-DOCS:] == sorted(
        docs, key=lambda u: [d.unit_id for d in allocation.deferred].index(u))
    # No kept diff was clipped to make room for another unit's extras, nothing was shredded.
    for bundle in built.bundles:
        assert all(p.status in ("included", "empty") for p in bundle.budget.pieces)
        assert bundle.budget.used == wanted[bundle.unit_id]
    # The units that wait are listed with the reason and the tokens they would need.
    left = budget - allocation.used
    for unit in allocation.deferred:
        assert unit.tokens == pytest.approx(wanted[unit.unit_id], rel=1.0)
        if unit.unit_id in docs:
            assert unit.reason.startswith("noise (docs, lockfiles, generated, comments or "
                                          "whitespace only) comes after the units still waiting")
            continue
        assert unit.tokens > left
        assert re.fullmatch(r"over the review budget: needs ~?\d+ tokens \((estimated|counted)\),"
                            r" \d+ left", unit.reason), unit.reason
    by_risk = {r.risk: r for r in allocation.by_risk}
    assert by_risk["high"].deferred_units == 0 and by_risk["high"].complete_units == 32
    assert by_risk["low"].included_units == 0 and by_risk["low"].deferred_units == DOCS
    assert by_risk["medium"].included_units > 0 and by_risk["medium"].deferred_units > 0


def _callers_everywhere(loaded: LoadedChange, plan: FusedPlan) -> FusedPlan:
    """As if the rules asked for the callers of every changed function."""
    items = []
    for item in plan.plan:
        if any(r.type == "search_callers" for r in item.extra_requests):
            items.append(item)
            continue
        provenance = item.provenance.model_copy(
            update={"extra_requests": [*item.provenance.extra_requests, "rule"]})
        items.append(item.model_copy(update={
            "extra_requests": [*item.extra_requests, SymbolSearchRequest(type="search_callers")],
            "provenance": provenance}))
    return plan.model_copy(update={"plan": items})


def test_what_waits_is_never_searched_parsed_or_counted(repo: GitRepoBuilder,
                                                        work: Work) -> None:
    loaded = large_change(repo)
    plan = _callers_everywhere(loaded, loaded.plan(use_llm=False))
    budget, _ = _budget_for(loaded, plan)
    work.greps.clear(), work.parsed.clear(), work.counted.clear()
    built = loaded.bundles(plan, review_budget=budget)
    included = {b.unit_id for b in built.bundles}
    waiting = [u for u in (loaded.unit(d.unit_id) for d in built.allocation.deferred) if u]
    assert len(waiting) > 40
    files_in = {loaded.unit(u).file_path for u in included}  # type: ignore[union-attr]
    deferred_lib = [int(m.group(1)) for u in waiting if u.file_path not in files_in
                    and (m := re.fullmatch(r"app/lib/mod_(\d+)\.py", u.file_path))]
    assert len(deferred_lib) > 40
    # git grep: a few batched searches, for names of included units only.
    assert 0 < len(work.greps) <= 8, work.greps
    searched = " ".join(work.greps)
    for i in deferred_lib:
        assert not re.search(rf"\b(work|helper)_{i}\b", searched)
    # Parsing: no deferred unit's file, in either version.
    parsed = set(work.parsed)
    for unit in waiting:
        if unit.file_path in files_in:
            continue
        if unit.file_path.endswith(".py"):
            assert (repo.root / unit.file_path).read_bytes() not in parsed, unit.file_path
            before = repo.git("show", f"HEAD:{unit.file_path}").encode()
            assert before not in parsed, unit.file_path
    # Token counting: nothing of a deferred unit (its diff names its helper).
    for i in deferred_lib:
        assert not any(f"helper_{i}(" in text for text in work.counted), i


def test_a_marked_unit_goes_before_its_risk_class(repo: GitRepoBuilder) -> None:
    loaded = large_change(repo)
    plain = loaded.plan(use_llm=False)
    risks = _risks(plain)
    medium = [i.unit_id for i in plain.plan if risks[i.unit_id] == "medium"
              and loaded.unit(i.unit_id).file_path.startswith("app/lib/")]  # type: ignore
    budget, _ = _budget_for(loaded, plain)
    before = loaded.bundles(plain, review_budget=budget).allocation
    last = next(d.unit_id for d in reversed(before.deferred) if d.unit_id in medium)
    # The person adds a request to a medium unit the budget had left out: it gets in now.
    overrides = OverrideSet(units={last: UnitOverride.model_validate(
        {"add_requests": [{"type": "previous_version"}]})})
    marked = loaded.plan(use_llm=False, overrides=overrides)
    after = loaded.bundles(marked, review_budget=budget).allocation
    assert last in {u.unit_id for u in after.included}
    assert {u.unit_id for u in after.included if risks[u.unit_id] == "high"} == {
        u.unit_id for u in before.included if risks[u.unit_id] == "high"}


def test_later_batches_take_the_deferred_units_in_priority_order(repo: GitRepoBuilder) -> None:
    loaded = large_change(repo)
    plan = loaded.plan(use_llm=False)
    budget, everything = _budget_for(loaded, plan)
    first = loaded.bundles(plan, review_budget=budget)
    two = loaded.bundles(plan, review_budget=budget, batches=2).allocation
    assert [u.unit_id for u in two.included if u.batch == 1] == [
        u.unit_id for u in first.allocation.included]
    second = [u.unit_id for u in two.included if u.batch == 2]
    assert second and second == [d.unit_id for d in first.allocation.deferred][:len(second)]
    assert two.batches == 2 and sum(u.tokens for u in two.included if u.batch == 2) <= budget
    every = loaded.bundles(plan, review_budget=budget, batches=None).allocation
    assert not every.deferred and len(every.included) == len(everything.bundles)
    assert every.batches >= 2


@pytest.mark.parametrize(("unit_budget", "review_budget"),
                         [(6000, 20_000), (1000, 8_000), (300, 6_000), (200, 3_000)])
def test_what_is_sent_is_what_the_budgets_count(repo: GitRepoBuilder, unit_budget: int,
                                                review_budget: int) -> None:
    """A bundle as the review, get_bundle and bundle --markdown send it (the heading, the
    metadata block, section titles, fences and labels around its pieces) takes the tokens its
    account says, within its unit budget, and the bundles together within the review budget;
    the diff is never squeezed out by the metadata."""
    loaded = large_change(repo)
    plan = _callers_everywhere(loaded, loaded.plan(use_llm=False))
    built = loaded.bundles(plan, unit_budget=unit_budget, review_budget=review_budget)
    assert len(built.bundles) > 3 and built.allocation.deferred
    sent = [counter_for_encoding(b.budget.counter).count(render_bundle_markdown(b))
            for b in built.bundles]
    for tokens, bundle in zip(sent, built.bundles, strict=True):
        assert tokens == bundle.budget.used <= unit_budget, bundle.unit_id
        assert bundle.budget.pieces[0].name == "rendering"
        assert "\n" in bundle.diff  # a header and some of the change
    assert sum(sent) == built.allocation.used <= review_budget
