"""Oversized hunks of JS/TS spec files cut between whole ``it`` / ``describe`` / hook calls."""

from __future__ import annotations

import pytest

from reviewtui.config import UnitsSettings
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from tests.conftest import GitRepoBuilder

ALL = ChangeSelector(SelectorMode.ALL)


def _removed(unit: object) -> list[str]:
    return [ln.text for h in unit.hunks for ln in h.lines if ln.kind == "-"]  # type: ignore[attr-defined]


def _spec(count: int = 12) -> str:
    """A Mocha/Jest spec: nested ``describe`` blocks of ``it`` blocks with blank lines inside."""
    def case(i: int) -> str:
        return (f"    it('does thing {i}', async () => {{\n"
                + "".join(f"      const v{j} = await call({j});\n"
                          + ("\n" if j % 3 == 2 else "") for j in range(3 + (i * 5) % 11))
                + f"      expect(v0).toBe({i});\n    }});\n")
    groups = "\n".join(
        f"  describe('group {g}', () => {{\n    beforeEach(() => {{\n      reset();\n    }});\n\n"
        + "\n".join(case(g * 100 + i) for i in range(count)) + "  });\n" for g in range(4))
    return ("import { call, reset } from './helpers';\n\ndescribe('thing', () => {\n"
            + groups + "});\n")


@pytest.mark.parametrize("path", ["test/thing.spec.ts", "test/thing.js", "src/thing.test.tsx"])
def test_a_large_spec_file_is_split_between_its_it_blocks(
        repo: GitRepoBuilder, path: str) -> None:
    repo.write("README.md", "x\n")
    repo.commit("base")
    text = _spec()
    repo.write(path, text)
    units = [u for u in load_change(repo.root, ALL).units if u.file_path == path]
    assert len(units) > 3
    assert all(u.added_lines <= UnitsSettings().max_lines for u in units)
    assert sum(u.added_lines for u in units) == text.count("\n")
    for unit in units[1:]:  # each piece starts with a whole it / describe / hook
        added = [ln.text for h in unit.hunks for ln in h.lines if ln.kind == "+"]
        assert added[0].strip().startswith(("it(", "describe(", "beforeEach(")), added[:3]
    for unit in units[:-1]:  # and ends after one
        added = [ln.text.strip() for h in unit.hunks for ln in h.lines if ln.kind == "+"]
        assert [t for t in added if t][-1] == "});", added[-3:]


def test_a_deleted_spec_file_is_split_between_its_it_blocks(repo: GitRepoBuilder) -> None:
    repo.write("test/thing.spec.js", _spec())
    repo.commit("base")
    repo.git("rm", "-q", "test/thing.spec.js")
    sha = repo.commit("delete")
    units = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref=sha)).units
    assert len(units) > 3
    for unit in units[1:]:
        assert _removed(unit)[0].strip().startswith(("it(", "describe(", "beforeEach(")), \
            _removed(unit)[:3]
