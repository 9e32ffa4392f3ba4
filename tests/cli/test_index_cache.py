"""The per-file cache: a second run reuses earlier results, and never returns stale ones."""

from __future__ import annotations

import gc
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from reviewtui.analysis import cache_path
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder


def _index(cli: CliRunner, repo: GitRepoBuilder, *args: str) -> dict[str, Any]:
    result = cli("index", "--json", *args, repo.root)
    assert result.code == 0, result.err
    data: dict[str, Any] = result.json()
    data["review_metadata"].pop("timestamp", None)
    return data


def _cache(repo: GitRepoBuilder) -> Path:
    return cache_path(repo.root / ".git")


def _rows(repo: GitRepoBuilder) -> int:
    with sqlite3.connect(_cache(repo)) as db:
        (count,) = db.execute("SELECT count(*) FROM files").fetchone()
    return int(count)


def _no_computing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make computing a file's units fail: only cached results can answer."""

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("a file was computed again")

    monkeypatch.setattr("reviewtui.analysis.run.file_units", refuse)


def _mixed_change(repo: GitRepoBuilder) -> None:
    repo.write("app.py", "import os\n\n\n@decorate\ndef handler(request):\n    return 1\n")
    repo.write("old_name.py", "".join(f"def f{i}():\n    return {i}\n\n" for i in range(20)))
    repo.write("gone.js", "function gone() {\n  return 1;\n}\n")
    repo.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x01\x02")
    repo.write("latin1.txt", "caf\xe9\n".encode("latin-1"))
    repo.commit("base")
    repo.write("app.py", "import os\n\n\n@decorate\ndef handler(request, user):\n"
                         "    password = request.get('password')\n    return 2\n")
    repo.git("mv", "old_name.py", "new_name.py")
    repo.write("new_name.py", "".join(f"def f{i}():\n    return {i * (i != 7)}\n\n"
                                      for i in range(20)))
    repo.git("rm", "-q", "gone.js")
    repo.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x09\x09")
    repo.write("latin1.txt", "caf\xe9 cr\xe8me\n".encode("latin-1"))
    repo.write("fresh/dir/new.py", "def fresh():\n    return 'new'\n")


def test_a_second_run_reuses_every_file_and_prints_the_same_index(
        repo: GitRepoBuilder, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    _mixed_change(repo)
    first = _index(cli, repo)
    assert _cache(repo).is_file() and _rows(repo) == len(
        {u["file_path"] for u in first["units"]}) == 6
    _no_computing(monkeypatch)
    assert _index(cli, repo) == first


def test_an_edited_working_tree_file_is_computed_again(
        repo: GitRepoBuilder, cli: CliRunner) -> None:
    repo.write("calc.py", "def total(a, b):\n    return a + b\n")
    repo.commit("base")
    repo.write("calc.py", "def total(a, b):\n    return a - b\n")
    before = _index(cli, repo)
    # Same hunk layout, other content: the key must see the file's bytes, not only the diff shape.
    repo.write("calc.py", "def total(a, b):\n    return password(a) - b\n")
    after = _index(cli, repo)
    assert before["units"][0]["unit_id"] != after["units"][0]["unit_id"]
    assert "security_sensitive" in after["units"][0]["tags"]
    assert "security_sensitive" not in before["units"][0]["tags"]


def test_a_changed_rule_pack_or_setting_scores_again(repo: GitRepoBuilder,
                                                     cli: CliRunner) -> None:
    repo.write("pay.py", "def pay(x):\n    return x\n\n\n\n\n\n\n\n\ndef fee(x):\n    return x\n")
    repo.commit("base")
    repo.write("pay.py", "def pay(x):\n    return Decimal(x)\n\n\n\n\n\n\n\n\n"
                         "def fee(x):\n    return x + 1\n")
    repo.git("add", "pay.py")
    plain = _index(cli, repo, "--staged")
    assert len(plain["units"]) == 1 and "money" not in plain["units"][0]["rule_notes"]
    # --staged leaves the untracked pack and settings out of the change itself.
    (repo.root / ".reviewtui").mkdir()
    (repo.root / ".reviewtui" / "rules.toml").write_text(
        'language = "python"\n[keywords.money]\npatterns = ["Decimal\\\\("]\nrisk = "high"\n')
    scored = _index(cli, repo, "--staged")
    assert "money" in scored["units"][0]["rule_notes"]
    assert scored["units"][0]["rule_confidence"] != plain["units"][0]["rule_confidence"]
    (repo.root / ".reviewtui.toml").write_text("[units]\nmerge_gap = 2\n")
    split = _index(cli, repo, "--staged")
    assert len(split["units"]) == 2


def test_a_corrupt_cache_is_replaced(repo: GitRepoBuilder, cli: CliRunner,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _mixed_change(repo)
    expected = _index(cli, repo, "--no-cache")
    _cache(repo).parent.mkdir(parents=True, exist_ok=True)
    _cache(repo).write_bytes(b"this is not a database" * 100)
    assert _index(cli, repo) == expected
    _no_computing(monkeypatch)
    assert _index(cli, repo) == expected


def test_an_unreadable_record_is_a_miss(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _mixed_change(repo)
    expected = _index(cli, repo)
    with sqlite3.connect(_cache(repo)) as db:
        db.execute("UPDATE files SET record = x'00ff00'")
    assert _index(cli, repo) == expected


def test_no_cache_flag_setting_and_unusable_place(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _mixed_change(repo)
    expected = _index(cli, repo, "--no-cache")
    assert not _cache(repo).exists()
    (repo.root / ".reviewtui.toml").write_text("[units]\ncache = false\n")
    assert _index(cli, repo, "--staged") == _index(cli, repo, "--staged", "--no-cache")
    assert not _cache(repo).exists()
    (repo.root / ".reviewtui.toml").unlink()
    _cache(repo).parent.write_text("a file where the cache folder would be")
    assert _index(cli, repo) == expected


def test_a_patch_file_is_never_cached(repo: GitRepoBuilder, cli: CliRunner,
                                      tmp_path: Path) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    repo.write("a.py", "x = 2\n")
    patch = tmp_path / "change.patch"
    patch.write_text(repo.git("diff"))
    assert len(_index(cli, repo, "--patch", str(patch))["units"]) == 1
    assert not _cache(repo).exists()


def test_the_collector_is_back_on_after_a_command(repo: GitRepoBuilder, cli: CliRunner) -> None:
    """Headless commands pause the cyclic GC; an embedding program must get it back."""
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    repo.write("a.py", "x = 2\n")
    assert gc.isenabled()
    _index(cli, repo)
    assert gc.isenabled()
    assert cli("index", "--range", "nope..HEAD", repo.root).code == 2
    assert gc.isenabled()
