"""Searching does no more work than its answer needs, and the answer does not change for it:
files are checked in rank order until enough snippets are certain, comment and definition
lines are never parsed, and a repeated question is answered from memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reviewtui.context.search import ProjectSearch, project, references
from reviewtui.context.search.references import plainly_not_a_use
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.git.runner import GitRepo
from reviewtui.pipeline import load_change
from tests.conftest import GitRepoBuilder


def _search(root: Path) -> ProjectSearch:
    loaded = load_change(root, ChangeSelector(SelectorMode.ALL))
    return ProjectSearch(loaded.repo, loaded.change_set, loaded.reader, loaded.settings.context)


def _where(found: list[Any]) -> list[tuple[str, int, str]]:
    return [(s.file_path, s.line, s.snippet) for s in found]


def _many_users(repo: GitRepoBuilder) -> None:
    repo.write("shop/models.py", "class Order:\n    def charge(self, amount):\n"
                                 "        return amount\n")
    for i in range(30):
        repo.write(f"shop/use_{i:02}.py", (
            "from shop.models import Order\n\n\n"
            f"# charge() is called below (file {i})\n"
            f"def run_{i}(order: Order):\n"
            f"    note = 'charge later'\n"
            + ("    return order.charge(1)\n" if i % 3 else "    return order.charge\n")))
        repo.write(f"tests/test_use_{i:02}.py", f"def test_{i}(order):\n"
                                                "    order.charge(2)\n")
    repo.write("shop/more.py", "def charge(amount):  # another charge\n    return amount\n")
    repo.commit("base")
    repo.write("shop/models.py", "class Order:\n    def charge(self, amount):\n"
                                 "        return amount * 2\n")


@pytest.mark.parametrize("query", ["callers", "model_usage"])
def test_stopping_early_gives_the_same_snippets(repo: GitRepoBuilder,
                                                monkeypatch: pytest.MonkeyPatch,
                                                query: str) -> None:
    _many_users(repo)
    name = "Order.charge" if query == "callers" else "Order"
    parsed: list[str] = []
    tree = references.SourceFile.tree

    def counting(self: references.SourceFile) -> Any:
        if not self._parsed and self.language is not None:
            parsed.append(self.path)
        return tree.fget(self)  # type: ignore[attr-defined]

    monkeypatch.setattr(references.SourceFile, "tree", property(counting))
    quick = getattr(_search(repo.root), query)(name)
    checked = list(parsed)
    parsed.clear()
    monkeypatch.setattr(project._Above, "enough", lambda self, hits, floor: False)
    full = getattr(_search(repo.root), query)(name)
    assert _where(quick) == _where(full) and len(quick) == 8
    assert len(checked) < len(parsed) <= 62  # the tests/ files were never opened
    assert not any(path.startswith("tests/") for path in checked)


def test_comment_and_definition_lines_are_not_a_use() -> None:
    assert plainly_not_a_use("python", "    # charge() is called below", "charge")
    assert plainly_not_a_use("python", "def charge(amount):  # another charge", "charge") is False
    assert plainly_not_a_use("python", "    def charge(self, amount):", "charge")
    assert plainly_not_a_use("python", "class Meta:", "Meta")
    assert plainly_not_a_use("python", "async def load(self):", "load")
    assert not plainly_not_a_use("python", "    return order.charge(1)", "charge")
    assert not plainly_not_a_use("python", "def charge_all(self):", "charge")
    assert not plainly_not_a_use("python", "def run(): charge(1)", "charge")
    assert plainly_not_a_use("go", "func (o *Order) Charge(amount int) int {", "Charge")
    assert plainly_not_a_use("typescript", "export async function charge(a: number) {",
                             "charge")
    assert plainly_not_a_use("javascript", "// charge(1) later", "charge")
    assert not plainly_not_a_use("ruby", "  #{charge}", "charge")
    assert not plainly_not_a_use(None, "# charge", "charge")  # unknown: let the parser judge
    assert plainly_not_a_use("c", "#define charge(x) x", "charge")  # the macro's definition
    assert not plainly_not_a_use("c", "#define CHARGE charge(1)", "charge")
    assert not plainly_not_a_use("c", "struct charge *next;", "charge")  # a use of the type
    assert plainly_not_a_use("rust", "    pub(crate) async fn charge(&self) {", "charge")
    assert plainly_not_a_use("rust", "// charge() later", "charge")
    assert plainly_not_a_use("kotlin", "    override suspend fun charge(a: Int) {", "charge")
    assert plainly_not_a_use("php", "    public static function charge($a) {", "charge")
    assert not plainly_not_a_use("php", "#[Charge]", "Charge")  # a PHP 8 attribute: code
    assert plainly_not_a_use("csharp", "public sealed class Charge : Base", "Charge")
    assert not plainly_not_a_use("csharp", "    var c = new Charge();", "Charge")


def test_a_repeated_search_runs_git_once(repo: GitRepoBuilder,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _many_users(repo)
    greps: list[tuple[str, ...]] = []
    run_status = GitRepo.run_status

    def counting(self: GitRepo, *args: str, **kwargs: Any) -> Any:
        if args[0] == "grep":
            greps.append(args)
        return run_status(self, *args, **kwargs)

    monkeypatch.setattr(GitRepo, "run_status", counting)
    search = _search(repo.root)
    first = search.text("charge later")
    assert _where(search.text("charge later")) == _where(first) and len(first) == 8
    assert search.callers("Order.charge") == search.callers("Order.charge")
    assert len(greps) == 2
