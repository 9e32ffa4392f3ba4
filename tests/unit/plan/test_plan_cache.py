"""The plan cache: what its key covers, and a database that is damaged or shared."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from reviewtui.cli.plan import kept_age
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.git.intent import ChangeIntent
from reviewtui.llm import LLMClient
from reviewtui.llm.settings import LLMConfig
from reviewtui.models import ContextLevel, PlannerIndex
from reviewtui.pipeline import load_change
from reviewtui.plan import LLMPlanItem, PlannerReport
from reviewtui.plan.cache import KeptPlan, PlanCache, age_text, plan_key
from reviewtui.plan.planner import Planner
from reviewtui.units.index import planner_index
from tests.conftest import GitRepoBuilder

CONFIG = LLMConfig(model="test-model", base_url="http://127.0.0.1:9/v1", api_key="secret")


def _index(repo: GitRepoBuilder) -> PlannerIndex:
    repo.write("app/service.py", "def charge(amount):\n    return amount * 2\n")
    repo.commit("base")
    repo.write("app/service.py", "def charge(amount):\n    return amount * 3\n")
    return planner_index(load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
                         .review_index())


def _planner(config: LLMConfig = CONFIG) -> Planner:
    return Planner(LLMClient(config), lambda text: len(text) // 4)


def _key(index: PlannerIndex, config: LLMConfig = CONFIG, change: str = "all:HEAD..worktree",
         intent: ChangeIntent | None = None) -> str:
    return plan_key(_planner(config), index, intent, change)


def test_the_key_covers_what_is_sent_and_nothing_else(repo: GitRepoBuilder) -> None:
    index = _index(repo)
    key = _key(index)
    later = index.review_metadata.model_copy(update={"timestamp": "2030-01-01T00:00:00+00:00"})
    assert _key(index.model_copy(update={"review_metadata": later})) == key  # when: not sent
    other_key = LLMConfig(model="test-model", base_url=CONFIG.base_url, api_key="other")
    assert _key(index, other_key) == key  # the API key changes no answer (and is not kept)
    unit = index.units[0]
    changes = {
        "rule confidence": index.model_copy(update={"units": [
            unit.model_copy(update={"rule_confidence": (unit.rule_confidence or 0) + 0.1})]}),
        "rule level": index.model_copy(update={"units": [
            unit.model_copy(update={"rule_context_level": ContextLevel.FULL_FILE})]}),
        "unit id": index.model_copy(update={"units": [
            unit.model_copy(update={"unit_id": "u_000000000000"})]}),
    }
    for what, changed in changes.items():
        assert _key(changed) != key, what
    configs = {
        "model": LLMConfig(model="other", base_url=CONFIG.base_url),
        "endpoint": LLMConfig(model="test-model", base_url="http://127.0.0.1:8/v1"),
        "temperature": LLMConfig(model="test-model", base_url=CONFIG.base_url, temperature=0.7),
        "output limit": LLMConfig(model="test-model", base_url=CONFIG.base_url,
                                  max_output_tokens=1000),
    }
    for what, config in configs.items():
        assert _key(index, config) != key, what
    assert _key(index, change="staged:HEAD..index") != key
    assert _key(index, intent=ChangeIntent(description="make it triple")) != key


def _kept(reason: str = "because") -> KeptPlan:
    item = LLMPlanItem(unit_id="u_1", llm_context_level=ContextLevel.FUNCTION, reason=reason)
    return KeptPlan(items=[item], planned=["u_1"],
                    report=PlannerReport(status="ok", model="m", batches=1))


def test_a_page_damaged_after_opening_is_a_miss_and_the_file_starts_again(
        tmp_path: Path) -> None:
    path = tmp_path / "plan-cache.sqlite3"
    cache = PlanCache.open(path)
    assert cache is not None
    for number in range(40):  # several pages of plans
        cache.put(f"k{number}", _kept("x" * 2000))
    cache.close()
    cache = PlanCache.open(path)  # (its pages written back into the file)
    assert cache is not None and cache.get("k39") is not None
    cache.close()
    data = bytearray(path.read_bytes())
    assert len(data) > 8 * 4096
    data[2 * 4096:] = b"\xff" * (len(data) - 2 * 4096)  # the header and schema page survive
    path.write_bytes(bytes(data))
    cache = PlanCache.open(path)
    assert cache is not None
    assert [cache.get(f"k{n}") for n in range(40)] == [None] * 40  # misses, never a raise
    cache.put("new", _kept())  # this run keeps nothing more...
    again = PlanCache.open(path)  # ...and the next starts a new file
    assert again is not None and again.get("k0") is None
    again.put("new", _kept())
    found = again.get("new")
    assert found is not None and found[0] == _kept()


def test_a_record_that_does_not_validate_is_a_miss(tmp_path: Path) -> None:
    cache = PlanCache.open(tmp_path / "plans.sqlite3")
    assert cache is not None
    cache.put("k", _kept())
    assert cache._db is not None
    cache._db.execute("UPDATE plans SET plan = ? WHERE key = 'k'", ('{"items": 3}',))
    assert cache.get("k") is None
    cache.put("k", _kept("again"))
    found = cache.get("k")
    assert found is not None and found[0].items[0].reason == "again"


def test_an_unusable_place_is_no_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder would be")
    assert PlanCache.open(blocker / "reviewtui" / "plan-cache.sqlite3") is None


def test_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    """Four connections create the file and write at once. One that finds the file too busy
    runs without the cache (by design: a miss, never an error), so what is asserted is what
    matters: no plan a writer saw kept is lost, whoever made the table."""
    path = tmp_path / "plans.sqlite3"
    errors: list[BaseException] = []
    saved: list[str] = []

    def writer(number: int) -> None:
        try:
            cache = PlanCache.open(path)  # a connection each, as separate processes have
            if cache is None:
                return
            for step in range(15):
                key = f"w{number}-{step}"
                cache.put(key, _kept(f"{number}:{step}"))
                if cache.get(key) is not None:
                    saved.append(key)
            cache.close()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert saved  # the test means nothing if no writer got the cache
    cache = PlanCache.open(path)
    assert cache is not None
    assert [key for key in saved if cache.get(key) is None] == []


def test_the_cap_drops_the_least_recently_used(tmp_path: Path) -> None:
    cache = PlanCache.open(tmp_path / "plans.sqlite3", max_plans=3)
    assert cache is not None
    for key in ("a", "b", "c"):
        cache.put(key, _kept())
    assert cache.get("a") is not None  # used: kept over b
    cache.put("d", _kept())
    assert cache.get("b") is None
    assert all(cache.get(key) is not None for key in ("a", "c", "d"))


@pytest.mark.parametrize(("seconds", "said"), [
    (0, "0 s ago"), (59.9, "59 s ago"), (60, "1 min ago"), (3599, "59 min ago"),
    (3600, "1 h ago"), (86399, "23 h ago"), (86400, "1 day ago"), (3 * 86400, "3 days ago"),
    (-5, "0 s ago")])
def test_age_text(seconds: float, said: str) -> None:
    assert age_text(seconds) == said


def test_kept_age() -> None:
    now = datetime(2026, 1, 2, tzinfo=UTC)
    assert kept_age(now - timedelta(minutes=5), now) == "5 min ago"
