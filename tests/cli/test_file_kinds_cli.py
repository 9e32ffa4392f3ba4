"""Levels by file kind (README, "Levels by file kind"), through ``index --json`` and
``plan --no-llm --json``: a translation catalogue, a stylesheet, a lockfile and an SVG get the
level a reviewer reads them at -- not one meant for code -- and the catalogue and the lockfile
are skipped, with their reason, when there is no plan. A small config file keeps its file."""

from __future__ import annotations

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder

PO = "".join(f'#: app/views.py:{n}\nmsgid "Message {n}"\nmsgstr "Nachricht {n}"\n\n'
             for n in range(60))
CSS = "".join(f".item-{n} {{\n  color: #{n:03d};\n  margin: {n}px;\n}}\n" for n in range(40))
LOCK = ('{\n  "name": "app",\n  "lockfileVersion": 3,\n  "packages": {\n'
        + "".join(f'    "node_modules/dep{n}": {{\n      "version": "1.0.{n}",\n'
                  f'      "integrity": "sha512-{n:040d}"\n    }},\n' for n in range(40))
        + '    "": {}\n  }\n}\n')
SVG = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">\n'
       + "".join(f'  <path d="M{n} {n}h{n}v{n}"/>\n' for n in range(30)) + "</svg>\n")
CONFIG = "[server]\nport = 8000\nworkers = 4\n"


def _change(repo: GitRepoBuilder) -> None:
    repo.write("locale/de/LC_MESSAGES/django.po", PO)
    repo.write("static/app.css", CSS)
    repo.write("package-lock.json", LOCK)
    repo.write("static/icon.svg", SVG)
    repo.write("config/app.toml", CONFIG)
    repo.write("app/views.py", "def index(request):\n    return 1\n")
    repo.commit("base")
    repo.write("locale/de/LC_MESSAGES/django.po", PO.replace("Nachricht", "Meldung"))
    repo.write("static/app.css", CSS.replace("margin", "padding"))
    repo.write("package-lock.json", LOCK.replace('"1.0.', '"1.1.'))
    repo.write("static/icon.svg", SVG.replace("<path", "<path fill=\"none\""))
    repo.write("config/app.toml", CONFIG.replace("4", "8"))


def test_file_kinds_get_their_levels_and_skips(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _change(repo)
    index = cli("index", "--json", repo.root)
    assert index.code == 0, index.err
    units = index.json()["units"]
    levels: dict[str, set[str]] = {}
    for unit in units:
        levels.setdefault(unit["file_path"], set()).add(unit["rule_context_level"])
    # a large catalogue change (the size rule alone would ask for the file) reads as a diff
    assert levels["locale/de/LC_MESSAGES/django.po"] == {"diff_only"}
    assert max(u["metrics"]["added_lines"] + u["metrics"]["removed_lines"] for u in units
               if u["file_path"].endswith(".po")) >= 80
    assert levels["static/app.css"] == {"diff_only"}
    assert levels["package-lock.json"] == {"diff_only"}
    assert levels["static/icon.svg"] == {"diff_only"}
    assert levels["config/app.toml"] == {"file_context"}
    by_path = {u["file_path"]: u for u in units}
    assert "translation catalogue" in by_path["locale/de/LC_MESSAGES/django.po"][
        "rule_skip_reason"]
    assert by_path["static/app.css"]["rule_skip_reason"] is None

    plan = cli("plan", "--no-llm", "--json", repo.root)
    assert plan.code == 0, plan.err
    items: dict[str, list[dict[str, object]]] = {}
    for item in plan.json()["plan"]:
        items.setdefault(str(item["file_path"]), []).append(item)
    for item in items["locale/de/LC_MESSAGES/django.po"]:
        assert item["skip_review"] is True
        assert item["final_context_level"] == "diff_only"
        assert "translation catalogue" in str(item["reason"])
    (lock,) = items["package-lock.json"]
    assert lock["skip_review"] is True and "lockfile" in str(lock["reason"])
    for path in ("static/app.css", "static/icon.svg", "config/app.toml"):
        assert all(item["skip_review"] is False for item in items[path]), items[path]


def test_a_file_binary_by_gitattribute_is_said_to_be(repo: GitRepoBuilder,
                                                     cli: CliRunner) -> None:
    """``*.py -diff`` (or ``binary``) makes git call a code file binary: it is honoured (no
    lines), but the unit is tagged ``binary_by_attribute``, ``index`` names the file in a
    line of its own and the plan's skip reason says why -- for the working tree and for a
    commit, read again from its snapshot. A file binary by its content gets none of it."""
    repo.write(".gitattributes", "*.py -diff\n*.c binary\n")
    repo.write("app/core.py", "def charge(amount):\n    return amount\n")
    repo.write("legacy.c", "int f(void) { return 1; }\n")
    repo.write("logo.png", b"\x89PNG\0\1")
    repo.write("notes.txt", "a\n")
    repo.commit("base")
    repo.write("app/core.py", "def charge(amount):\n    return amount * 3\n")
    repo.write("legacy.c", "int f(void) { return 2; }\n")
    repo.write("logo.png", b"\x89PNG\0\2")
    repo.write("notes.txt", "b\n")
    expected = ("binary by gitattribute: app/core.py, legacy.c - treated as binary because of "
                "a gitattribute ('-diff', 'binary', or a diff driver set binary; git shows no "
                "lines, the content may be code)")
    def said(*selector: str) -> None:
        table = cli("index", *selector, repo.root)
        assert table.code == 0, table.err
        assert table.out.splitlines()[2] == expected, table.out
        units = {u["file_path"]: u for u in cli("index", "--json", *selector,
                                                 repo.root).json()["units"]}
        assert {"binary", "binary_by_attribute"} <= set(units["app/core.py"]["tags"])
        assert {"binary", "binary_by_attribute"} <= set(units["legacy.c"]["tags"])
        assert "binary" in units["logo.png"]["tags"]
        assert "binary_by_attribute" not in units["logo.png"]["tags"]
        assert not {"binary", "binary_by_attribute"} & set(units["notes.txt"]["tags"])
        plan = {i["file_path"]: i for i in cli("plan", "--no-llm", "--json", *selector,
                                               repo.root).json()["plan"]}
        assert "binary by a gitattribute ('-diff', 'binary' or a binary diff driver)" in plan[
            "app/core.py"]["reason"]
        assert "gitattribute" not in plan["logo.png"]["reason"]

    said()
    repo.commit("charge triple")
    said("--commit", "HEAD")
    said("--commit", "HEAD")  # read back from the commit's snapshot
    assert list((repo.root / ".git/reviewtui/snapshots").glob("*.snap"))
