"""The review agent's read-only tools on real repositories: every tool's normal use, the three
"after" sides, confinement (paths, globs and queries that try to leave the repository or reach
git as options), argument checking, output caps, timeouts and the OpenAI schemas."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from reviewtui.agent.tool_deps import is_manifest, parse_manifest, render_manifest
from reviewtui.agent.tool_paths import ToolError, glob_regex, repo_path
from reviewtui.agent.tools import TOOL_NAMES, ToolBox, ToolContext, ToolOutcome
from reviewtui.context.search import ProjectSearch
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.models import ContextBundle, ScannerFinding
from reviewtui.pipeline import LoadedChange, load_change
from tests.conftest import GitRepoBuilder

APP = "def greet(name):\n    return 'hello ' + name\n\n\ndef main():\n    print(greet('x'))\n"


def _none(_: str) -> None:
    return None


def make_box(root: Path, mode: SelectorMode = SelectorMode.ALL, ref: str | None = None, *,
             unit: Callable[[str], dict[str, Any] | None] = _none,
             bundle: Callable[[str], ContextBundle | None] = _none,
             scanner_issues: Callable[[str], list[ScannerFinding] | None] = _none,
             tool_result: Callable[[str], str | None] = _none,
             patch: str | None = None, **options: Any) -> tuple[ToolBox, LoadedChange]:
    loaded = load_change(root, ChangeSelector(mode, ref=ref, patch=patch))
    search = (ProjectSearch(loaded.repo, loaded.change_set, loaded.reader,
                            loaded.settings.context) if loaded.repo is not None else None)
    ctx = ToolContext(root=loaded.root.resolve(), repo=loaded.repo, change_set=loaded.change_set,
                      reader=loaded.reader, search=search, unit=unit, bundle=bundle,
                      scanner_issues=scanner_issues, tool_result=tool_result)
    return ToolBox(ctx, **options), loaded


def call(box: ToolBox, name: str, **arguments: Any) -> ToolOutcome:
    return box.run(name, json.dumps(arguments))


@pytest.fixture
def project(repo: GitRepoBuilder) -> GitRepoBuilder:
    """A committed project, then a working-tree change to src/app.py."""
    repo.write("src/app.py", APP)
    repo.write("src/util/helpers.py", "def helper():\n    return greet('y')\n")
    repo.write("README.md", "# demo\n")
    repo.write(".gitignore", ".env\n")
    repo.commit("initial")
    repo.write("src/app.py", APP.replace("'hello '", "'hi '"))
    repo.write(".env", "SECRET_TOKEN=abc123\n")
    return repo


# --- read_file_hunk ---------------------------------------------------------------------------


def test_read_file_hunk_numbers_the_requested_lines(project: GitRepoBuilder) -> None:
    box, _ = make_box(project.root)
    out = call(box, "read_file_hunk", path="src/app.py", start=1, end=2)
    assert out.ok and not out.truncated
    assert out.files == ("src/app.py",)
    lines = out.content.splitlines()
    assert lines[0].startswith("src/app.py (after: the working tree) lines 1-2 of 6")
    assert lines[1] == "   1 | def greet(name):"
    assert lines[2] == "   2 |     return 'hi ' + name"
    assert "continue with start=3" in out.content


def test_read_file_hunk_clamps_and_caps_the_span(repo: GitRepoBuilder) -> None:
    repo.write("big.txt", "".join(f"line {n}\n" for n in range(1, 1001)))
    repo.commit("big")
    repo.write("big.txt", "changed\n" + "".join(f"line {n}\n" for n in range(2, 1001)))
    box, _ = make_box(repo.root)
    out = call(box, "read_file_hunk", path="./big.txt", start=0, end=99999)
    assert out.ok
    assert "lines 1-400 of 1000" in out.content and "at most 400 lines" in out.content
    assert " 400 | line 400" in out.content and "line 401" not in out.content
    assert "continue with start=401" in out.content
    reversed_range = call(box, "read_file_hunk", path="big.txt", start=998, end=3)
    assert reversed_range.ok and "lines 998-998 of 1000" in reversed_range.content
    past = call(box, "read_file_hunk", path="big.txt", start=2000, end=2010)
    assert not past.ok and "past the end" in past.content and "1000 lines" in past.content


def test_read_file_hunk_reads_unchanged_files_and_refuses_ignored_ones(
        project: GitRepoBuilder) -> None:
    box, _ = make_box(project.root)
    out = call(box, "read_file_hunk", path="src/util/helpers.py", start=1, end=5)
    assert out.ok and "return greet('y')" in out.content
    ignored = call(box, "read_file_hunk", path=".env", start=1, end=5)
    assert not ignored.ok and "abc123" not in ignored.content
    missing = call(box, "read_file_hunk", path="src/nope/helpers.py", start=1, end=5)
    assert not missing.ok and "did you mean 'src/util/helpers.py'" in missing.content
    folder = call(box, "read_file_hunk", path="src/util", start=1, end=5)
    assert not folder.ok and "folder" in folder.content


def test_commit_range_reads_the_commits_not_the_disk(repo: GitRepoBuilder) -> None:
    repo.write("a.py", "VALUE = 'v1'\n")
    repo.write("b.py", "OTHER = 'committed'\n")
    first = repo.commit("one")
    repo.write("a.py", "VALUE = 'v2'\n")
    second = repo.commit("two")
    repo.write("a.py", "VALUE = 'disk'\n")  # the working tree differs from both commits
    repo.write("b.py", "OTHER = 'disk'\n")
    repo.write("c.py", "UNTRACKED = 'disk'\n")
    box, _ = make_box(repo.root, SelectorMode.RANGE, f"{first}..{second}")

    changed = call(box, "read_file_hunk", path="a.py", start=1, end=1)
    assert changed.ok and "'v2'" in changed.content and f"commit {second[:12]}" in changed.content
    unchanged = call(box, "read_file_hunk", path="b.py", start=1, end=1)
    assert unchanged.ok and "'committed'" in unchanged.content and "disk" not in unchanged.content
    before = call(box, "read_file_hunk", path="a.py", start=1, end=1, side="before")
    assert before.ok and "'v1'" in before.content
    untracked = call(box, "read_file_hunk", path="c.py", start=1, end=1)
    assert not untracked.ok and "no file 'c.py'" in untracked.content

    found = call(box, "search_in_project", query="OTHER = ")
    assert found.ok and "'committed'" in found.content and "'disk'" not in found.content
    assert call(box, "search_in_project", query="disk").content.startswith("no matches")
    listed = call(box, "list_project_files", glob="*.py")
    assert listed.ok and listed.content.splitlines()[1:] == ["a.py", "b.py"]


def test_staged_change_reads_the_index(repo: GitRepoBuilder) -> None:
    repo.write("a.py", "X = 1\n")
    repo.write("b.py", "Y = 1\n")
    repo.commit("one")
    repo.write("a.py", "X = 'staged'\n")
    repo.write("b.py", "Y = 'staged'\n")
    repo.git("add", "a.py", "b.py")
    repo.write("a.py", "X = 'disk'\n")
    repo.write("b.py", "Y = 'disk'\n")
    box, _ = make_box(repo.root, SelectorMode.STAGED)
    out = call(box, "read_file_hunk", path="b.py", start=1, end=1)
    assert out.ok and "'staged'" in out.content and "the index" in out.content


def test_deleted_renamed_and_added_files_point_to_the_right_side(repo: GitRepoBuilder) -> None:
    repo.write("gone.py", "OLD = 1\n")
    repo.write("old_name.py", "".join(f"N{i} = {i}\n" for i in range(20)))
    repo.commit("one")
    (repo.root / "gone.py").unlink()
    repo.git("mv", "old_name.py", "new_name.py")
    repo.write("added.py", "NEW = 1\n")
    box, _ = make_box(repo.root)

    deleted = call(box, "read_file_hunk", path="gone.py", start=1, end=5)
    assert not deleted.ok and "deleted by this change" in deleted.content
    assert 'side="before"' in deleted.content
    old = call(box, "read_file_hunk", path="gone.py", start=1, end=5, side="before")
    assert old.ok and "OLD = 1" in old.content and "before: commit" in old.content
    renamed = call(box, "read_file_hunk", path="old_name.py", start=1, end=1)
    assert not renamed.ok and "renamed to 'new_name.py'" in renamed.content
    via_new = call(box, "read_file_hunk", path="new_name.py", start=1, end=1, side="before")
    assert via_new.ok and "N0 = 0" in via_new.content
    added = call(box, "read_file_hunk", path="added.py", start=1, end=1, side="before")
    assert not added.ok and "no previous version" in added.content
    listed = call(box, "list_project_files", glob="**")
    assert listed.content.splitlines()[1:] == ["added.py", "new_name.py"]


def test_binary_and_non_utf8_files(repo: GitRepoBuilder) -> None:
    repo.write("logo.png", b"\x89PNG\r\n\x1a\n\0\0\0IHDR" + bytes(range(256)))
    repo.write("latin.txt", "caf\xe9\n".encode("latin-1"))
    repo.commit("one")
    repo.write("x.py", "X = 1\n")
    box, _ = make_box(repo.root)
    binary = call(box, "read_file_hunk", path="logo.png", start=1, end=10)
    assert binary.ok and "binary file" in binary.content and "IHDR" not in binary.content
    latin = call(box, "read_file_hunk", path="latin.txt", start=1, end=1)
    assert latin.ok and "not UTF-8" in latin.content and "caf\ufffd" in latin.content


def test_a_huge_result_is_capped_with_a_marker(repo: GitRepoBuilder) -> None:
    repo.write("wide.txt", "".join(f"{n:04d} " + "x" * 300 + "\n" for n in range(300)))
    repo.commit("one")
    repo.write("x.py", "X = 1\n")
    box, _ = make_box(repo.root, max_output_chars=4000)
    out = call(box, "read_file_hunk", path="wide.txt", start=1, end=300)
    assert out.ok and out.truncated
    assert len(out.content) <= 4000
    assert "… truncated (" in out.content
    assert "more characters; narrow the range or use get_tool_result)" in out.content
    assert out.full_content is not None and " 300 | 0299 " in out.full_content
    assert out.full_text == out.full_content
    long_line = "y" * 5000
    repo.write("long.txt", long_line + "\n")
    box, _ = make_box(repo.root)
    clipped = call(box, "read_file_hunk", path="long.txt", start=1, end=1)
    assert clipped.ok and clipped.content.endswith("…") and len(clipped.content) < 2200


# --- search_in_project ------------------------------------------------------------------------


def test_search_in_project_returns_numbered_snippets(project: GitRepoBuilder) -> None:
    box, _ = make_box(project.root)
    out = call(box, "search_in_project", query="greet(")
    assert out.ok
    assert out.content.startswith("2 results for 'greet(' on the after side (the working tree)")
    assert "── src/util/helpers.py:2" in out.content
    assert "   2 |     return greet('y')" in out.content
    assert set(out.files) == {"src/app.py", "src/util/helpers.py"}
    one = call(box, "search_in_project", query="greet(", max_results=1)
    assert one.ok and one.content.startswith("1 result for") and len(one.files) == 1
    none = call(box, "search_in_project", query="no such text anywhere")
    assert none.ok and none.content.startswith("no matches")
    assert "abc123" not in call(box, "search_in_project", query="SECRET_TOKEN").content


@pytest.mark.parametrize("query", ["", "   ", "two\nlines", "nul\0byte", "x" * 501])
def test_search_in_project_refuses_unusable_queries(project: GitRepoBuilder, query: str) -> None:
    box, _ = make_box(project.root)
    out = call(box, "search_in_project", query=query)
    assert not out.ok and "\n" not in out.content


def test_option_like_text_never_reaches_git_as_an_option(project: GitRepoBuilder,
                                                         tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    project.write("flags.sh", "rm -rf build\ngit log --output=x\n")
    box, _ = make_box(project.root)
    rf = call(box, "search_in_project", query="-rf")
    assert rf.ok and "── flags.sh:1" in rf.content
    output = call(box, "search_in_project", query="--output=x")
    assert output.ok and "── flags.sh:2" in output.content
    for text in ("-rf", "--output=x", "--open-files-in-pager=touch pwned"):
        as_path = call(box, "read_file_hunk", path=text, start=1, end=1)
        assert not as_path.ok and "no file" in as_path.content
        as_glob = call(box, "list_project_files", glob=text)
        assert as_glob.ok and as_glob.content.startswith("no files match")
        assert call(box, "get_scanner_issues", path=text).ok
    for place in (project.root, tmp_path):
        assert not (place / "x").exists() and not (place / "pwned").exists()


# --- list_project_files -----------------------------------------------------------------------


def test_list_project_files_globs(project: GitRepoBuilder) -> None:
    project.write("src/new_module.py", "X = 1\n")  # untracked: part of the working tree side
    box, _ = make_box(project.root)

    def names(glob: str) -> list[str]:
        out = call(box, "list_project_files", glob=glob)
        assert out.ok, out.content
        return out.content.splitlines()[1:] if not out.content.startswith("no files") else []

    assert names("src/**/*.py") == ["src/app.py", "src/new_module.py", "src/util/helpers.py"]
    assert names("src/*.py") == ["src/app.py", "src/new_module.py"]
    assert names("*.md") == ["README.md"]
    assert names("**/helpers.py") == ["src/util/helpers.py"]
    assert names("src/util/") == ["src/util/helpers.py"]
    assert names("src/[an]*.py") == ["src/app.py", "src/new_module.py"]
    assert names("src/[!a]*.py") == ["src/new_module.py"]
    every = names("**")
    assert ".env" not in every and ".gitignore" in every and len(every) == 5
    out = call(box, "list_project_files", glob="src/**/*.py")
    assert out.content.startswith("3 files match 'src/**/*.py' on the after side")
    assert out.files == ("src/app.py", "src/new_module.py", "src/util/helpers.py")


def test_list_project_files_is_capped_with_the_total(repo: GitRepoBuilder) -> None:
    for n in range(520):
        repo.write(f"gen/f{n:03d}.txt", "x\n")
    repo.commit("many")
    repo.write("x.py", "X = 1\n")
    box, _ = make_box(repo.root)
    out = call(box, "list_project_files", glob="gen/*.txt")
    lines = out.content.splitlines()
    assert lines[0].startswith("520 files match") and "showing the first 500" in lines[0]
    assert len(lines) == 501 and len(out.files) == 500


@pytest.mark.parametrize("glob", ["/etc/*", "../*", "src/../../*", "C:\\x", "a\0b"])
def test_list_project_files_refuses_globs_outside_the_root(project: GitRepoBuilder,
                                                           glob: str) -> None:
    box, _ = make_box(project.root)
    out = call(box, "list_project_files", glob=glob)
    assert not out.ok and out.files == ()


# --- get_dependencies -------------------------------------------------------------------------

MANIFESTS = {
    "pyproject.toml": """\
[project]
name = "demo"
dependencies = ["click>=8", "httpx[http2]~=0.27"]
[project.optional-dependencies]
test = ["pytest"]
[tool.poetry.dependencies]
python = "^3.11"
requests = {version = "^2.31", optional = true}
[build-system]
requires = ["hatchling"]
""",
    "requirements.txt": """\
# pinned
--index-url https://user:s3cret@pypi.example.com/simple
-r requirements-dev.txt
Django==5.0  # web
-e git+https://bob:hunter2@git.example.com/lib.git#egg=lib
""",
    "requirements-dev.txt": "pytest-cov\n",
    "setup.cfg": "[options]\ninstall_requires =\n    attrs>=23\n    ; comment\n"
                 "[options.extras_require]\ndocs = sphinx\n",
    "web/package.json": json.dumps({"dependencies": {"react": "^18.2.0"},
                                    "devDependencies": {"vite": "5.0.0"}}),
    "go.mod": "module example.com/demo\n\ngo 1.22\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n"
              "\tgolang.org/x/sys v0.15.0 // indirect\n)\n\nrequire github.com/x/y v1.2.3\n",
    "Gemfile": "source 'https://rubygems.org'\ngem 'rails', '~> 7.1'\ngem \"pg\"\n",
    "crates/core/Cargo.toml": "[dependencies]\nserde = \"1\"\n",  # two levels down: not read
    "Cargo.toml": "[dependencies]\nserde = { version = \"1.0\", features = [\"derive\"] }\n"
                  "local = { path = \"../local\" }\n[dev-dependencies]\ntempfile = \"3\"\n",
    "java/pom.xml": "<project><dependencies><!-- <dependency><artifactId>old</artifactId>"
                    "</dependency> --><dependency><groupId>org.slf4j</groupId><artifactId>"
                    "slf4j-api</artifactId><version>2.0.9</version></dependency>"
                    "<dependency><groupId>junit</groupId><artifactId>junit</artifactId>"
                    "<scope>test</scope></dependency></dependencies></project>",
    "android/build.gradle.kts": 'dependencies {\n    implementation("com.squareup:okhttp:4.12.0")'
                                "\n    testImplementation(libs.junit)\n"
                                '    implementation(project(":core"))\n}\n',
    "broken/pyproject.toml": "[project\nname = ",
}


def test_get_dependencies_lists_each_manifest(repo: GitRepoBuilder) -> None:
    for path, text in MANIFESTS.items():
        repo.write(path, text)
    repo.commit("manifests")
    repo.write("x.py", "X = 1\n")
    box, _ = make_box(repo.root)
    out = call(box, "get_dependencies")
    assert out.ok, out.content
    text = out.content
    assert "pyproject.toml (Python)" in text
    assert "  dependencies (2): click>=8, httpx[http2]~=0.27" in text
    assert "optional[test] (1): pytest" in text and "requests ^2.31" in text
    assert "build-system (1): hatchling" in text
    assert "Django==5.0" in text and "includes (1): -r requirements-dev.txt" in text
    assert "s3cret" not in text and "hunter2" not in text and "index-url" not in text
    assert "https://***@git.example.com/lib.git" in text
    assert "install_requires (1): attrs>=23" in text and "extras[docs] (1): sphinx" in text
    assert "web/package.json (JavaScript, npm)" in text and "react ^18.2.0" in text
    assert "devDependencies (1): vite 5.0.0" in text
    assert "require (2): github.com/pkg/errors v0.9.1, github.com/x/y v1.2.3" in text
    assert "indirect (1): golang.org/x/sys v0.15.0" in text
    assert "rails ~> 7.1" in text and "pg" in text
    assert "serde 1.0" in text and "local (path: ../local)" in text and "tempfile 3" in text
    assert "crates/core/Cargo.toml" not in text
    assert "org.slf4j:slf4j-api 2.0.9" in text and "junit:junit (test)" in text
    assert "old" not in text.split("java/pom.xml")[1].split("\n", 3)[1]
    assert "implementation (2): com.squareup:okhttp:4.12.0, project :core" in text
    assert "testImplementation (1): libs.junit" in text
    assert "broken/pyproject.toml - could not parse" in text
    assert "pyproject.toml" in out.files and "crates/core/Cargo.toml" not in out.files
    assert call(box, "get_dependencies", extra=1).ok is False


def test_get_dependencies_without_manifests(project: GitRepoBuilder) -> None:
    box, _ = make_box(project.root)
    out = box.run("get_dependencies", "")
    assert out.ok and out.content.startswith("no dependency manifests")


def test_manifest_helpers() -> None:
    assert is_manifest("requirements/base.txt") and is_manifest("requirements_test.in")
    assert not is_manifest("a/b/package.json") and not is_manifest("docs/notes.txt")
    ecosystem, sections = parse_manifest("Pipfile", '[packages]\nflask = "*"\n')
    assert ecosystem == "Python, pipenv" and ("packages", ["flask"]) in sections
    with pytest.raises(ValueError):
        parse_manifest("package.json", "{nope")
    assert render_manifest("package.json", "{}").endswith("(no dependencies declared)")


# --- scanners, units, bundles, tool memory ----------------------------------------------------


def test_get_scanner_issues(project: GitRepoBuilder) -> None:
    finding = ScannerFinding(tool="ruff", line=3, column=5, severity="warning", rule_id="F401",
                             message="unused\nimport")
    asked: list[str] = []

    def issues(path: str) -> list[ScannerFinding] | None:
        asked.append(path)
        return [finding] if path == "src/app.py" else []

    box, _ = make_box(project.root, scanner_issues=issues)
    out = call(box, "get_scanner_issues", path="./src//app.py")
    assert out.ok and out.files == ("src/app.py",)
    assert out.content == "1 scanner issue(s) in src/app.py:\nL3:5 warning ruff F401: unused import"
    assert call(box, "get_scanner_issues", path="README.md").content == \
        "no scanner issues in README.md"
    refused = call(box, "get_scanner_issues", path="../outside.py")
    assert not refused.ok and asked == ["src/app.py", "README.md"]
    no_scan, _ = make_box(project.root)
    assert call(no_scan, "get_scanner_issues", path="src/app.py").content.startswith(
        "no scanner ran")


def test_get_unit_and_get_bundle(project: GitRepoBuilder) -> None:
    loaded = load_change(project.root, ChangeSelector(SelectorMode.ALL))
    units = {u.unit_id: u.model_dump(mode="json") for u in loaded.review_index().units}
    bundles = {b.unit_id: b for b in loaded.bundles(loaded.plan(use_llm=False)).bundles}

    def by_prefix(table: dict[str, Any]) -> Callable[[str], Any]:
        def get(key: str) -> Any:
            found = [v for k, v in table.items() if k.startswith(key)]
            return found[0] if len(found) == 1 else None
        return get

    box, _ = make_box(project.root, unit=by_prefix(units), bundle=by_prefix(bundles))
    unit_id = next(iter(units))
    out = call(box, "get_unit", unit_id=unit_id[:8])
    assert out.ok and json.loads(out.content)["unit_id"] == unit_id
    assert out.files == ("src/app.py",)
    unknown = call(box, "get_unit", unit_id="zzzz")
    assert not unknown.ok and "no unit matches 'zzzz'" in unknown.content
    bundle = call(box, "get_bundle", unit_id=unit_id)
    assert bundle.ok and "```diff" in bundle.content and "'hi '" in bundle.content
    assert bundle.files[0] == "src/app.py"
    assert not call(box, "get_bundle", unit_id="zzzz").ok
    assert not call(box, "get_unit", unit_id="a\nb").ok


def test_get_tool_result_pages_long_results(project: GitRepoBuilder) -> None:
    stored = "".join(f"{n:05d}\n" for n in range(7000))  # 42,000 characters
    box, _ = make_box(project.root, tool_result=lambda ref: stored if ref == "t1" else None,
                      max_output_chars=16_000)
    pages: list[str] = []
    offset = 0
    for _ in range(10):
        out = call(box, "get_tool_result", ref_id="t1", offset=offset)
        assert out.ok and len(out.content) <= 16_000
        header, _, body = out.content.partition("\n")
        pages.append(body)
        if "continue with offset=" not in header:
            assert not out.truncated and "end of result" in header
            break
        assert out.truncated
        offset = int(header.split("offset=")[1].rstrip("]"))
    assert "".join(pages) == stored and len(pages) == 3
    short, _ = make_box(project.root, tool_result=lambda ref: "short result")
    assert call(short, "get_tool_result", ref_id="x").content == "short result"
    past = call(box, "get_tool_result", ref_id="t1", offset=10**6)
    assert not past.ok and "past the end" in past.content
    missing = call(box, "get_tool_result", ref_id="nope")
    assert not missing.ok and "no stored tool result 'nope'" in missing.content


# --- confinement ------------------------------------------------------------------------------

ESCAPES = ["../x", "/etc/passwd", "a/../../x", "..", ".git/config", "src/../.git/config",
           ".GIT/HEAD", "src/.git", "nul\0byte", "two\nlines", "C:\\Windows\\win.ini",
           "\\\\server\\share", "", "."]


@pytest.mark.parametrize("path", ESCAPES)
def test_paths_that_leave_the_repository_are_refused(project: GitRepoBuilder, path: str) -> None:
    asked: list[str] = []
    box, _ = make_box(project.root, scanner_issues=lambda p: asked.append(p) or [])
    for side in ("after", "before"):
        out = call(box, "read_file_hunk", path=path, start=1, end=10, side=side)
        assert not out.ok and out.files == () and "\n" not in out.content
        assert "root:" not in out.content
    assert not call(box, "get_scanner_issues", path=path).ok
    assert asked == []


def test_repo_path_normalises_inside_paths() -> None:
    assert repo_path("./src//a/../b.py") == "src/b.py"
    assert repo_path("-rf") == "-rf"
    with pytest.raises(ToolError, match="leaves the repository"):
        repo_path("a/../../x")
    with pytest.raises(ToolError, match=r"\.git"):
        repo_path("x/.Git/config")


def test_symlinks_out_of_the_repository_are_refused(repo: GitRepoBuilder,
                                                    tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET\n")
    repo.write("src/a.py", "A = 1\n")
    repo.commit("one")
    (repo.root / "etc_link").symlink_to("/etc")
    (repo.root / "passwd_link").symlink_to("/etc/passwd")
    (repo.root / "out_dir").symlink_to(outside)
    (repo.root / "secret_link").symlink_to(outside / "secret.txt")
    (repo.root / "git_link").symlink_to(".git")
    (repo.root / "alias.py").symlink_to("src/a.py")
    box, _ = make_box(repo.root)
    for path in ("etc_link/passwd", "passwd_link", "out_dir/secret.txt", "secret_link",
                 "git_link/config", "git_link/HEAD"):
        out = call(box, "read_file_hunk", path=path, start=1, end=10)
        assert not out.ok, path
        assert "root:" not in out.content and "SECRET" not in out.content
        assert "[core]" not in out.content and "refs/heads" not in out.content
    inside = call(box, "read_file_hunk", path="alias.py", start=1, end=1)
    assert inside.ok and "symbolic link to 'src/a.py'" in inside.content
    found = call(box, "search_in_project", query="SECRET")
    assert found.ok and found.content.startswith("no matches")


def test_committed_symlinks_are_never_followed(repo: GitRepoBuilder) -> None:
    repo.write("a.py", "A = 1\n")
    repo.commit("one")
    (repo.root / "passwd_link").symlink_to("/etc/passwd")
    (repo.root / "etc_link").symlink_to("/etc")
    head = repo.commit("links")
    box, _ = make_box(repo.root, SelectorMode.COMMIT, head)
    link = call(box, "read_file_hunk", path="passwd_link", start=1, end=5)
    assert "/etc/passwd" in link.content and "root:" not in link.content
    below = call(box, "read_file_hunk", path="etc_link/passwd", start=1, end=5)
    assert not below.ok and "root:" not in below.content


# --- arguments, unknown tools, failures, timeouts ---------------------------------------------


@pytest.mark.parametrize(("name", "arguments", "expected"), [
    ("read_file_hunk", "{not json", "not valid JSON"),
    ("read_file_hunk", "[1, 2]", "must be a JSON object"),
    ("read_file_hunk", '"src/app.py"', "must be a JSON object"),
    ("read_file_hunk", '{"path": "src/app.py", "start": 1}', "missing required argument(s) end"),
    ("read_file_hunk", '{"path": "src/app.py", "start": 1, "end": 2, "mode": "x"}',
     "unknown argument(s) 'mode'"),
    ("read_file_hunk", '{"path": "src/app.py", "start": "one", "end": 2}', "must be an integer"),
    ("read_file_hunk", '{"path": "src/app.py", "start": true, "end": 2}', "not a boolean"),
    ("read_file_hunk", '{"path": 7, "start": 1, "end": 2}', "must be a string"),
    ("read_file_hunk", '{"path": "src/app.py", "start": 1, "end": 2, "side": "left"}',
     "one of: after, before"),
    ("search_in_project", "{}", "missing required argument(s) query"),
    ("get_tool_result", "", "missing required argument(s) ref_id"),
    ("delete_everything", "{}", "unknown tool 'delete_everything'"),
    ("", "{}", "unknown tool"),
])
def test_bad_calls_fail_with_one_clear_line(project: GitRepoBuilder, name: str, arguments: str,
                                            expected: str) -> None:
    box, _ = make_box(project.root)
    out = box.run(name, arguments)
    assert not out.ok and expected in out.content and "\n" not in out.content
    assert out.seconds >= 0 and out.files == ()


def test_lenient_argument_forms_are_accepted(project: GitRepoBuilder) -> None:
    box, _ = make_box(project.root)
    out = box.run("read_file_hunk", '{"path": "src/app.py", "start": "2", "end": 3.0, '
                  '"side": null}')
    assert out.ok and "lines 2-3 of 6" in out.content
    assert box.run("list_project_files", '{"glob": "*.md"}').ok


def test_a_failing_callable_becomes_an_error_outcome(project: GitRepoBuilder) -> None:
    def broken(_: str) -> dict[str, Any] | None:
        raise RuntimeError("index not built\nsecond line")

    box, _ = make_box(project.root, unit=broken)
    out = call(box, "get_unit", unit_id="abc")
    assert not out.ok and out.content == "get_unit failed: index not built second line"


@pytest.fixture
def release() -> Iterator[threading.Event]:
    event = threading.Event()
    yield event
    event.set()  # let the abandoned worker thread finish


def test_a_slow_tool_times_out_quickly(project: GitRepoBuilder,
                                       release: threading.Event) -> None:
    def slow(_: str) -> ContextBundle | None:
        release.wait(30)
        return None

    box, _ = make_box(project.root, bundle=slow, timeout=0.3)
    started = time.monotonic()
    out = call(box, "get_bundle", unit_id="abc")
    assert time.monotonic() - started < 2
    assert not out.ok and out.content.startswith("get_bundle timed out after 0.3s")
    fast = call(box, "read_file_hunk", path="src/app.py", start=1, end=1)
    assert fast.ok  # the toolbox still works while the slow call runs on


async def test_arun_runs_in_a_thread_with_the_timeout(project: GitRepoBuilder,
                                                       release: threading.Event) -> None:
    def slow(_: str) -> ContextBundle | None:
        release.wait(30)
        return None

    box, _ = make_box(project.root, bundle=slow, timeout=0.5)
    started = time.monotonic()
    read, search, timed_out = await asyncio.gather(
        box.arun("read_file_hunk", json.dumps({"path": "src/app.py", "start": 1, "end": 3})),
        box.arun("search_in_project", json.dumps({"query": "greet"})),
        box.arun("get_bundle", json.dumps({"unit_id": "x"})),
    )
    assert time.monotonic() - started < 3
    assert read.ok and "def greet" in read.content
    assert search.ok and "src/util/helpers.py" in search.files
    assert not timed_out.ok and "timed out" in timed_out.content


# --- a foreign patch, the constructor, the schemas --------------------------------------------


def test_a_foreign_patch_has_no_project_to_read(tmp_path: Path) -> None:
    patch = tmp_path / "change.patch"
    patch.write_text("diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-A = 1\n"
                     "+A = 2\n")
    folder = tmp_path / "not_a_repo"
    folder.mkdir()
    box, _ = make_box(folder, SelectorMode.PATCH, patch=str(patch))
    read = call(box, "read_file_hunk", path="x.py", start=1, end=1)
    assert not read.ok and "patch file" in read.content
    listed = call(box, "list_project_files", glob="**")
    assert listed.ok and listed.content.splitlines() == [
        "this change comes from a patch file: only its 1 files are known; 1 match '**'", "x.py"]
    assert not call(box, "search_in_project", query="A").ok
    assert not call(box, "get_dependencies").ok


def test_toolbox_rejects_unusable_limits(project: GitRepoBuilder) -> None:
    with pytest.raises(ValueError):
        make_box(project.root, max_output_chars=10)
    with pytest.raises(ValueError):
        make_box(project.root, timeout=0)


def test_schemas_are_openai_tool_definitions(project: GitRepoBuilder) -> None:
    from openai.types.chat import ChatCompletionToolParam

    box, _ = make_box(project.root)
    schemas = box.schemas()
    json.dumps(schemas)
    adapter: TypeAdapter[Any] = TypeAdapter(ChatCompletionToolParam)
    names = []
    for schema in schemas:
        adapter.validate_python(schema)
        assert schema["type"] == "function"
        function = schema["function"]
        names.append(function["name"])
        assert function["description"].strip()
        params = function["parameters"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])
        for prop in params["properties"].values():
            assert prop["type"] in ("string", "integer") and prop["description"]
    assert tuple(names) == TOOL_NAMES == box.names
    assert names == ["read_file_hunk", "search_in_project", "list_project_files",
                     "get_dependencies", "get_scanner_issues", "get_unit", "get_bundle",
                     "get_tool_result"]


def test_glob_regex_semantics() -> None:
    def match(glob: str, path: str) -> bool:
        return glob_regex(glob).fullmatch(path) is not None

    assert match("src/**/*.py", "src/a.py") and match("src/**/*.py", "src/x/y/a.py")
    assert not match("src/*.py", "src/x/a.py") and match("*.py", "deep/er/a.py")
    assert match("a?c", "abc") and not match("a?c", "a/c")
    assert match("", "anything/at/all") and match("./docs/", "docs/x/y.md")
    with pytest.raises(ToolError):
        glob_regex("docs/../../etc")
