"""How content reaches each kind of tool, shown with fake tools that echo what they saw.

Files on disk are passed in place; other content goes through a temporary mirror (checkstyle,
semgrep), stdin with the repo-relative name (eslint), or the go command's overlay (go vet).
Whatever path a tool prints comes back as the repo-relative target path.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewtui.rules.scanners import ScannerToolConfig, run_scanners
from tests.conftest import GitRepoBuilder
from tests.unit.rules.scanners.conftest import FakeTools, off_disk, on_disk

CHECKSTYLE = """
    files = sys.argv[sys.argv.index("xml") + 1:]
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write(json.dumps({"cwd": os.getcwd(), "argv": sys.argv[1:]}) + "\\n")
    print('<?xml version="1.0" encoding="UTF-8"?>')
    print('<checkstyle version="10.14.2">')
    for name in files:
        print(f'<file name="{os.path.realpath(name)}">')
        with open(name) as handle:
            for number, line in enumerate(handle, 1):
                if "TODO" in line:
                    print(f'<error line="{number}" column="{line.index("TODO") + 1}" '
                          'severity="warning" message="TODO found" source="x.TodoCommentCheck"/>')
        print("</file>")
    print("</checkstyle>")
    sys.exit(0)
"""


def test_files_not_on_disk_are_scanned_from_a_mirror(repo: GitRepoBuilder,
                                                     fake_tools: FakeTools, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "checkstyle.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    fake_tools.add("checkstyle", CHECKSTYLE)
    repo.write("checkstyle.xml", "<module name='Checker'/>\n")
    repo.write("src/A.java", "class A {\n  // TODO a\n}\n")
    repo.write("src/B.java", "class B {}\n")  # the disk holds something else than the target
    repo.commit()
    targets = [on_disk(repo.root, "src/A.java", "java"),
               off_disk("src/B.java", "class B {\n\n\n  // TODO b\n}\n", "java"),
               off_disk("src/new/C.java", "// TODO c\n", "java")]
    report = run_scanners(repo.root, targets, tools={"checkstyle"})
    assert report.failed == {} and report.ran == ("checkstyle",)
    assert [(i.path, i.line, i.column, i.rule_id) for i in report.issues] == [
        ("src/A.java", 2, 6, "TodoComment"),
        ("src/B.java", 4, 6, "TodoComment"),
        ("src/new/C.java", 1, 4, "TodoComment"),
    ]
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    mirrored = [arg for run in runs for arg in run["argv"] if arg.endswith(("B.java", "C.java"))]
    assert mirrored and all(not Path(arg).resolve().is_relative_to(repo.root.resolve())
                            for arg in mirrored)
    assert {run["cwd"] for run in runs} == {str(repo.root.resolve())}
    assert repo.git("status", "--porcelain") == ""
    assert not any(Path(arg).exists() for arg in mirrored)  # the mirror is gone afterwards


ESLINT = """
    args = sys.argv[1:]
    if "--stdin" in args:
        names = [args[args.index("--stdin-filename") + 1]]
        sources = [sys.stdin.read()]
    else:
        names = [a for a in args if a.endswith(".js")]
        sources = [open(name).read() for name in names]
    results = []
    for name, source in zip(names, sources):
        messages = [{"ruleId": "no-debugger", "severity": 2, "message": "Unexpected 'debugger'.",
                     "line": number, "column": line.index("debugger") + 1}
                    for number, line in enumerate(source.splitlines(), 1) if "debugger" in line]
        results.append({"filePath": os.path.abspath(name), "messages": messages})
    print(json.dumps(results))
    sys.exit(1 if any(r["messages"] for r in results) else 0)
"""


def test_repo_local_eslint_reads_content_from_stdin(repo: GitRepoBuilder,
                                                    fake_tools: FakeTools) -> None:
    repo.write("eslint.config.js", "export default [];\n")
    repo.write("web/a.js", "debugger;\n")
    repo.write("web/b.js", "const b = 1;\n")
    repo.commit()
    fake_tools.add("eslint", ESLINT, directory=repo.root / "node_modules" / ".bin")
    targets = [on_disk(repo.root, "web/a.js", "javascript"),
               off_disk("web/b.js", "const b = 1;\n\n  debugger;\n", "javascript")]
    report = run_scanners(repo.root, targets, tools={"eslint"})
    assert [(i.path, i.line, i.column, i.severity) for i in report.issues] == [
        ("web/a.js", 1, 1, "error"), ("web/b.js", 3, 3, "error"),
    ]


SEMGREP = """
    args = sys.argv[1:]
    assert args[0] == "scan" and "--metrics=off" in args and "--disable-version-check" in args
    config = args[args.index("--config") + 1]
    assert os.path.isabs(config) and config.endswith(".semgrep.yml"), config
    files = [a for a in args[1:] if os.path.isfile(a) and a != config]
    results = [{"check_id": "local.todo", "path": name, "start": {"line": 1, "col": 1},
                "extra": {"message": "todo", "severity": "INFO"}} for name in files]
    print(json.dumps({"results": results, "errors": []}))
"""


def test_semgrep_uses_only_local_rules_on_any_language(repo: GitRepoBuilder,
                                                       fake_tools: FakeTools) -> None:
    repo.write(".semgrep.yml", "rules: []\n")
    repo.write("notes.txt", "todo\n")
    repo.write("web/a.js", "todo\n")
    repo.write("blob.bin", b"\x00\x01\x02")
    repo.commit()
    fake_tools.add("semgrep", SEMGREP)
    targets = [on_disk(repo.root, "notes.txt", None), on_disk(repo.root, "web/a.js", "javascript"),
               on_disk(repo.root, "blob.bin", None), off_disk("src/new.py", "todo\n")]
    report = run_scanners(repo.root, targets, tools={"semgrep"})
    assert report.failed == {}
    assert [(i.path, i.severity, i.rule_id) for i in report.issues] == [
        ("notes.txt", "info", "local.todo"), ("src/new.py", "info", "local.todo"),
        ("web/a.js", "info", "local.todo"),
    ]  # binary content is never handed to a scanner


def test_a_language_entry_overrides_any_for_its_files(repo: GitRepoBuilder,
                                                      fake_tools: FakeTools) -> None:
    repo.write(".semgrep.yml", "rules: []\n")
    repo.write("web/a.js", "todo\n")
    repo.write("src/a.py", "todo\n")
    repo.commit()
    fake_tools.add("semgrep", SEMGREP)
    config = {"python": {"semgrep": ScannerToolConfig(enabled=False)}}
    targets = [on_disk(repo.root, "web/a.js", "javascript"), on_disk(repo.root, "src/a.py")]
    report = run_scanners(repo.root, targets, config, tools={"semgrep"})
    assert [i.path for i in report.issues] == ["web/a.js"]
    only_python = run_scanners(repo.root, targets[1:], config, tools={"semgrep"})
    assert only_python.skipped == {"semgrep": "disabled"}


GO = """
    args = sys.argv[1:]
    if args == ["version"]:
        print("go version go1.22.4 linux/amd64")
        sys.exit(0)
    replace = {}
    if "-overlay" in args:
        with open(args[args.index("-overlay") + 1]) as handle:
            replace = json.load(handle)["Replace"]
    for pattern in [a for a in args if a.startswith(".")]:
        directory = os.path.normpath(pattern)
        for name in sorted(os.listdir(directory)):
            path = os.path.join(directory, name)
            source = replace.get(os.path.realpath(path), path)
            with open(source) as handle:
                for number, line in enumerate(handle, 1):
                    if "Printf(" in line:
                        print(f"./{path}:{number}:2: Printf call has arguments but no formatting "
                              "directives", file=sys.stderr)
    sys.exit(1)
"""


def test_go_vet_sees_off_disk_content_through_an_overlay(repo: GitRepoBuilder,
                                                         fake_tools: FakeTools) -> None:
    repo.write("svc/go.mod", "module example.com/svc\n\ngo 1.22\n")
    repo.write("svc/pkg/a.go", "package pkg\n")
    repo.write("svc/pkg/b.go", 'package pkg\n\nfunc f() { fmt.Printf("x", 1) }\n')
    repo.commit()
    fake_tools.add("go", GO)
    content = 'package pkg\n\nfunc g() {\n\tfmt.Printf("%d", 1, 2)\n}\n'
    targets = [off_disk("svc/pkg/a.go", content, "go")]
    report = run_scanners(repo.root, targets, tools={"go-vet"})
    assert report.failed == {} and report.ran == ("go-vet",)
    # b.go is on disk but not a target: its finding is dropped
    assert [(i.path, i.line, i.severity, i.rule_id) for i in report.issues] == [
        ("svc/pkg/a.go", 4, "warning", "vet"),
    ]
