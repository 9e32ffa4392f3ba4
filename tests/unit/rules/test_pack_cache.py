"""The merged rule pack kept between runs: read again without parsing a file while none
changed, parsed again as soon as one does, never kept for a pack that fails or a file written
this very moment, and a damaged cache is only a miss."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from reviewtui.config import user_cache_dir
from reviewtui.errors import ConfigError
from reviewtui.rules import load_rule_pack, packs
from tests.conftest import GitRepoBuilder

_PACK = '[general.keywords.ledger]\nrisk = "high"\npatterns = ["{word}"]\n'


def _aged(path: Path) -> None:
    """Written a minute ago: past the two seconds in which an edit could go unseen."""
    then = time.time() - 60
    os.utime(path, (then, then))


def _pack(repo: GitRepoBuilder, word: str) -> Path:
    path = repo.root / ".reviewtui" / "rules.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(_PACK.format(word=word))
    _aged(path)
    return path


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path: Path) -> Any:
        raise AssertionError(f"parsed {path}")

    monkeypatch.setattr(packs, "read_pack_file", refuse)


def test_a_second_load_parses_no_file(repo: GitRepoBuilder,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _pack(repo, "ledger_total")
    first = load_rule_pack(repo.root)
    assert list((user_cache_dir() / "rule-packs").glob("*.json"))
    _no_parsing(monkeypatch)
    second = load_rule_pack(repo.root)
    assert second == first
    assert second.pack.general.keywords["ledger"].patterns == ["ledger_total"]


def test_an_edited_pack_is_read_again(repo: GitRepoBuilder) -> None:
    path = _pack(repo, "ledger_total")
    load_rule_pack(repo.root)
    path.write_text(_PACK.format(word="ledger_sum_of_all"))  # another size
    _aged(path)
    assert load_rule_pack(repo.root).pack.general.keywords["ledger"].patterns == [
        "ledger_sum_of_all"]
    path.write_text(_PACK.format(word="ledger_sum_of_any"))  # the same size, another time
    then = time.time() - 30
    os.utime(path, (then, then))
    assert load_rule_pack(repo.root).pack.general.keywords["ledger"].patterns == [
        "ledger_sum_of_any"]


def test_a_file_written_this_moment_is_not_kept(repo: GitRepoBuilder,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = _pack(repo, "ledger_total")
    path.write_text(_PACK.format(word="ledger_totl"))  # just now: its time may not tell
    load_rule_pack(repo.root)
    assert not list((user_cache_dir() / "rule-packs").glob("*.json"))


def test_a_broken_pack_is_reported_every_time(repo: GitRepoBuilder) -> None:
    path = _pack(repo, "ledger_total")
    path.write_text('[general.keywords.ledger]\nrisk = "extreme"\npatterns = ["x"]\n')
    _aged(path)
    for _ in range(2):
        with pytest.raises(ConfigError, match=r"rules\.toml"):
            load_rule_pack(repo.root)


def test_a_damaged_cache_is_a_miss(repo: GitRepoBuilder) -> None:
    _pack(repo, "ledger_total")
    first = load_rule_pack(repo.root)
    for kept in (user_cache_dir() / "rule-packs").glob("*.json"):
        kept.write_bytes(b"\x00garbage")
    assert load_rule_pack(repo.root) == first
    for kept in (user_cache_dir() / "rule-packs").glob("*.json"):
        kept.write_bytes(b"")
    assert load_rule_pack(repo.root) == first


def test_a_cache_entry_that_fails_validation_is_a_miss_and_is_rewritten(
        repo: GitRepoBuilder) -> None:
    """A kept pack edited by hand (valid JSON, but not a valid pack) is compiled again from
    the files and written over, as a corrupt cache is: never an error of its own."""
    _pack(repo, "ledger_total")
    first = load_rule_pack(repo.root)
    [kept] = (user_cache_dir() / "rule-packs").glob("*.json")
    data = json.loads(kept.read_text())
    data["general"]["keywords"]["ledger"]["risk"] = "extreme"
    data["learning"] = {"min_samples": "lots"}
    kept.write_text(json.dumps(data))
    assert load_rule_pack(repo.root) == first
    assert json.loads(kept.read_text())["general"]["keywords"]["ledger"]["risk"] == "high"
    assert "learning" not in json.loads(kept.read_text())


def test_without_a_home_folder_the_packs_load_uncached(repo: GitRepoBuilder,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _pack(repo, "ledger_total")
    monkeypatch.delenv("XDG_CACHE_HOME")

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", no_home)
    assert load_rule_pack(repo.root).pack.general.keywords["ledger"].patterns == ["ledger_total"]
