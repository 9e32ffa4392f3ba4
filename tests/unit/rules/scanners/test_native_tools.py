"""The Rust, C/C++, PHP and Kotlin scanners: parsers on recorded or format-faithful samples, and
the runner's plumbing with fake tools (how content reaches each, which tools are skipped and
why). These need none of the real tools; ``test_native_tools_real.py`` runs the ones installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewtui.rules.scanners import DEFAULT_SCANNER_CONFIG, run_scanners
from reviewtui.rules.scanners.base import OutputError, ToolOutput
from reviewtui.rules.scanners.registry import ADAPTERS
from tests.conftest import GitRepoBuilder
from tests.unit.rules.scanners.conftest import FakeTools, off_disk, on_disk
from tests.unit.rules.scanners.test_parsers import brief, parse


def test_clippy_json_lines_paths_relative_to_the_workspace() -> None:
    findings = parse("clippy", "clippy.jsonl")
    assert [(f.path, *b) for f, b in zip(findings, brief(findings), strict=True)] == [
        ("crates/parser/src/lib.rs", 2, 8, "warning", "clippy::len_zero"),
    ]
    assert findings[0].message == "length comparison to zero"


def test_clippy_compile_errors_are_errors_and_notes_are_dropped() -> None:
    findings = parse("clippy", "clippy_compile_error.jsonl", returncode=101)
    assert brief(findings) == [(5, 22, "error", "E0308")]
    assert findings[0].message == "mismatched types"


def test_clippy_failure_without_a_compiler_message_is_an_error() -> None:
    with pytest.raises(OutputError):
        ADAPTERS["clippy"].parse(ToolOutput(101, '{"reason":"build-finished","success":false}\n',
                                            "error: no matching package named `serde` found"))
    assert ADAPTERS["clippy"].parse(ToolOutput(0, "", "")) == []


def test_clang_tidy_diagnostics_without_notes() -> None:
    findings = parse("clang-tidy", "clang-tidy.txt", returncode=1)
    assert [(f.path.rsplit("/", 1)[-1], *b) for f, b in zip(findings, brief(findings),
                                                            strict=True)] == [
        ("a.c", 7, 5, "warning", "clang-analyzer-security.insecureAPI.strcpy"),
        ("a.c", 10, 5, "warning", "clang-analyzer-unix.Malloc"),
        ("a.c", 11, 12, "warning", "clang-diagnostic-format-security"),
        ("a.c", 12, 12, "warning", "clang-diagnostic-array-bounds"),
        ("b.cpp", 2, 10, "error", "clang-diagnostic-error"),
    ]
    assert findings[1].message == "Attempt to free released memory"


def test_clang_tidy_failure_prints_no_diagnostic() -> None:
    with pytest.raises(OutputError):
        ADAPTERS["clang-tidy"].parse(ToolOutput(1, "", "Error while processing x.c.\n"))


def test_cppcheck_xml_on_stderr_without_its_own_notices() -> None:
    findings = parse("cppcheck", "cppcheck.xml", stream="stderr")
    assert [(f.path, *b) for f, b in zip(findings, brief(findings), strict=True)] == [
        ("src/a.c", 12, 15, "error", "arrayIndexOutOfBounds"),
        ("src/a.c", 10, 5, "error", "doubleFree"),
        ("src/a.c", 8, 15, "info", "unusedAllocatedMemory"),
    ]  # missingInclude is about cppcheck, not the code
    assert findings[1].message == "Memory pointed to by 'p' is freed twice."


def test_phpstan_json() -> None:
    findings = parse("phpstan", "phpstan.json", returncode=1)
    assert [(f.path.rsplit("/", 2)[-2:], *b) for f, b in zip(findings, brief(findings),
                                                             strict=True)] == [
        (["Controller", "OrderController.php"], 27, 1, "error", "method.notFound"),
        (["Controller", "OrderController.php"], 41, 1, "error", "return.type"),
        (["Entity", "Timestamps.php"], 12, 1, "error", "property.onlyRead"),
    ]
    assert ADAPTERS["phpstan"].parse(ToolOutput(0, '{"totals":{},"files":[],"errors":[]}',
                                                "")) == []


def test_ktlint_json() -> None:
    findings = parse("ktlint", "ktlint.json", returncode=1)
    assert [(f.path, *b) for f, b in zip(findings, brief(findings), strict=True)] == [
        ("app/src/main/kotlin/app/Repo.kt", 3, 1, "warning", "standard:no-wildcard-imports"),
        ("app/src/main/kotlin/app/Repo.kt", 17, 28, "warning", "standard:no-semi"),
        ("app/src/main/kotlin/app/Broken.kt", 9, 5, "error", "parse-error"),
    ]


def test_detekt_checkstyle_report_among_console_output() -> None:
    findings = parse("detekt", "detekt.txt", returncode=2)
    assert brief(findings) == [(12, 9, "warning", "LongMethod"), (44, 27, "info", "MagicNumber"),
                               (8, 5, "error", "GlobalCoroutineUsage")]


@pytest.mark.parametrize("tool", ["clippy", "clang-tidy", "phpstan", "ktlint", "detekt",
                                  "cppcheck"])
def test_garbage_output_is_an_error(tool: str) -> None:
    with pytest.raises(OutputError):
        ADAPTERS[tool].parse(ToolOutput(1, "Segmentation fault (core dumped)\n",
                                        "Segmentation fault (core dumped)\n"))


def test_the_new_languages_have_their_scanners_by_default() -> None:
    assert set(DEFAULT_SCANNER_CONFIG["rust"]) == {"clippy"}
    assert set(DEFAULT_SCANNER_CONFIG["c"]) == set(DEFAULT_SCANNER_CONFIG["cpp"]) == {
        "cppcheck", "clang-tidy"}
    assert set(DEFAULT_SCANNER_CONFIG["php"]) == {"phpstan"}
    assert set(DEFAULT_SCANNER_CONFIG["kotlin"]) == {"ktlint", "detekt"}


def test_unconfigured_tools_say_why_they_did_not_run(repo: GitRepoBuilder,
                                                     fake_tools: FakeTools) -> None:
    for name in ("clang-tidy", "phpstan"):
        fake_tools.add(name, "sys.exit(0)\n")
    repo.write("src/a.c", "int f(void) { return 0; }\n")
    repo.write("src/Page.php", "<?php\n")
    repo.commit()
    report = run_scanners(repo.root, [on_disk(repo.root, "src/a.c", "c"),
                                      on_disk(repo.root, "src/Page.php", "php")],
                          tools={"clang-tidy", "phpstan"})
    assert report.skipped == {"clang-tidy": "no compilation database (compile_commands.json)",
                              "phpstan": "no configuration (phpstan.neon)"}


RECORDER = """
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write(json.dumps({"cwd": os.getcwd(), "argv": sys.argv[1:],
                              "tool": os.path.basename(sys.argv[0])}) + "\\n")
"""

PHPSTAN = RECORDER + """
    args = sys.argv[1:]
    tmp = next((a.split("=", 1)[1] for a in args if a.startswith("--tmp-file=")), None)
    instead = next((a.split("=", 1)[1] for a in args if a.startswith("--instead-of=")), None)
    names = [a for a in args if a.endswith(".php") and not a.startswith("--")]
    files = {}
    for name in names:
        source = open(tmp if tmp and os.path.realpath(instead) == os.path.realpath(name)
                      else name).read()
        messages = [{"message": "Undefined variable: $x", "line": n,
                     "identifier": "variable.undefined"}
                    for n, line in enumerate(source.splitlines(), 1) if "$x" in line]
        files[os.path.realpath(name)] = {"errors": len(messages), "messages": messages}
    print(json.dumps({"totals": {}, "files": files, "errors": []}))
    sys.exit(1 if any(f["messages"] for f in files.values()) else 0)
"""


def _runs(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_phpstan_prefers_vendor_bin_and_edits_through_tmp_file(
        repo: GitRepoBuilder, fake_tools: FakeTools, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "phpstan.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    fake_tools.add("phpstan", "sys.exit(99)\n")  # on PATH, but the project's own comes first
    fake_tools.add("phpstan", PHPSTAN, directory=repo.root / "vendor" / "bin")
    repo.write("phpstan.neon", "parameters:\n  level: 5\n")
    repo.write("src/A.php", "<?php\necho $x;\n")
    repo.write("src/B.php", "<?php\n")  # the disk holds something else than the target
    repo.commit()
    targets = [on_disk(repo.root, "src/A.php", "php"),
               off_disk("src/B.php", "<?php\n\n\necho $x;\n", "php")]
    report = run_scanners(repo.root, targets, tools={"phpstan"})
    assert report.failed == {} and report.ran == ("phpstan",)
    assert [(i.path, i.line, i.severity, i.rule_id) for i in report.issues] == [
        ("src/A.php", 2, "error", "variable.undefined"),
        ("src/B.php", 4, "error", "variable.undefined"),
    ]
    runs = [run for run in _runs(log) if "analyse" in run["argv"]]
    assert len(runs) == 2
    assert all(f"--configuration={repo.root / 'phpstan.neon'}" in run["argv"] for run in runs)
    edited = [run for run in runs if any(str(a).startswith("--tmp-file=") for a in run["argv"])]
    assert len(edited) == 1 and f"--instead-of={repo.root / 'src/B.php'}" in edited[0]["argv"]
    assert repo.git("status", "--porcelain") == ""


KTLINT = RECORDER + """
    names = [a for a in sys.argv[1:] if a.endswith(".kt")]
    assert os.path.exists(".editorconfig"), "the mirror carries the .editorconfig"
    out = []
    for name in names:
        errors = [{"line": n, "column": line.index("!!") + 1, "message": "no !!",
                   "rule": "custom:no-bang-bang"}
                  for n, line in enumerate(open(name).read().splitlines(), 1) if "!!" in line]
        out.append({"file": name, "errors": errors})
    print(json.dumps(out))
    sys.exit(1)
"""

DETEKT = RECORDER + """
    args = sys.argv[1:]
    names = args[args.index("--input") + 1].split(",")
    assert args[args.index("--report") + 1] == "xml:/dev/stdout"
    print("style - 5min debt")
    print('<?xml version="1.0" encoding="UTF-8"?>')
    print('<checkstyle version="4.3">')
    for name in names:
        print(f'<file name="{os.path.abspath(name)}">')
        for n, line in enumerate(open(name).read().splitlines(), 1):
            if "GlobalScope" in line:
                print(f'<error line="{n}" column="1" severity="error" message="GlobalScope" '
                      'source="detekt.GlobalCoroutineUsage" />')
        print("</file>")
    print("</checkstyle>")
    sys.exit(2)
"""


def test_kotlin_tools_in_a_mirror_with_the_repository_settings(
        repo: GitRepoBuilder, fake_tools: FakeTools, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "kotlin.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    fake_tools.add("ktlint", KTLINT)
    fake_tools.add("detekt-cli", DETEKT)  # the release zip's name for detekt
    repo.write(".editorconfig", "[*.kt]\nindent_size = 4\n")
    repo.write("config/detekt/detekt.yml", "style:\n  MagicNumber:\n    active: false\n")
    repo.write("app/Repo.kt", "class Repo\n")
    repo.commit()
    target = off_disk("app/Repo.kt", "class Repo {\n  val a = b!!\n  fun f() = GlobalScope\n}\n",
                      "kotlin")
    report = run_scanners(repo.root, [target], tools={"ktlint", "detekt"})
    assert report.failed == {} and report.ran == ("detekt", "ktlint")
    assert [(i.tool, i.path, i.line, i.severity, i.rule_id) for i in report.issues] == [
        ("ktlint", "app/Repo.kt", 2, "warning", "custom:no-bang-bang"),
        ("detekt", "app/Repo.kt", 3, "error", "GlobalCoroutineUsage"),
    ]
    detekt = next(run for run in _runs(log) if "--input" in run["argv"])
    assert detekt["tool"] == "detekt-cli"
    argv = detekt["argv"]
    assert isinstance(argv, list)
    assert argv[argv.index("--config") + 1] == str(repo.root / "config/detekt/detekt.yml")
    assert "--build-upon-default-config" in argv
    assert repo.git("status", "--porcelain") == ""


CARGO = RECORDER + """
    args = sys.argv[1:]
    if args[:2] == ["clippy", "--version"]:
        print("clippy 0.1.95 (fake)")
        sys.exit(0)
    target_dir = args[args.index("--target-dir") + 1]
    os.makedirs(target_dir, exist_ok=True)
    if not os.path.exists("Cargo.lock"):
        open("Cargo.lock", "w").write("# written by cargo\\n")  # as cargo does
    for root, dirs, files in os.walk("."):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.normpath(os.path.join(root, name))
            for n, line in enumerate(open(path).read().splitlines(), 1):
                if "unwrap()" in line:
                    message = {"level": "warning", "message": "used unwrap()",
                               "code": {"code": "clippy::unwrap_used"},
                               "spans": [{"file_name": path, "line_start": n,
                                          "column_start": line.index("unwrap") + 1,
                                          "is_primary": True}]}
                    print(json.dumps({"reason": "compiler-message", "message": message}))
    print(json.dumps({"reason": "build-finished", "success": True}))
"""


def test_clippy_runs_per_crate_outside_the_repository(
        repo: GitRepoBuilder, fake_tools: FakeTools, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "cargo.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    fake_tools.add("cargo", CARGO)
    fake_tools.add("cargo-clippy", "sys.exit(0)\n")
    manifest = '[package]\nname = "{}"\nversion = "0.1.0"\n'
    repo.write("a/Cargo.toml", manifest.format("a"))
    repo.write("a/Cargo.lock", "# locked\n")
    repo.write("a/src/lib.rs", "pub fn f() -> u32 {\n    g().unwrap()\n}\n")
    repo.write("b/Cargo.toml", manifest.format("b"))  # no Cargo.lock: cargo would write one
    repo.write("b/src/lib.rs", "pub fn f() {}\n")
    repo.write("loose.rs", "fn main() { x.unwrap(); }\n")  # in no crate: nothing to build
    repo.commit()
    targets = [on_disk(repo.root, "a/src/lib.rs", "rust"),
               off_disk("b/src/lib.rs", "pub fn f() {\n    h().unwrap();\n}\n", "rust"),
               on_disk(repo.root, "loose.rs", "rust")]
    report = run_scanners(repo.root, targets, tools={"clippy"})
    assert report.failed == {} and report.ran == ("clippy",)
    assert [(i.path, i.line, i.rule_id) for i in report.issues] == [
        ("a/src/lib.rs", 2, "clippy::unwrap_used"), ("b/src/lib.rs", 2, "clippy::unwrap_used")]
    runs = [run for run in _runs(log) if "--target-dir" in run["argv"]]
    assert len(runs) == 2
    cwds = sorted(str(run["cwd"]) for run in runs)
    assert cwds[0] == str((repo.root / "a").resolve())  # locked and on disk: in place
    assert not Path(cwds[1]).is_relative_to(repo.root.resolve())  # b: in a mirror
    for run in runs:
        argv = run["argv"]
        assert isinstance(argv, list)
        assert "--offline" in argv
        assert not Path(argv[argv.index("--target-dir") + 1]).is_relative_to(repo.root)
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""


def test_clippy_is_skipped_without_the_clippy_component(
        repo: GitRepoBuilder, fake_tools: FakeTools, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_tools.add("cargo", "sys.exit(0)\n")
    repo.write("Cargo.toml", '[package]\nname = "a"\nversion = "0.1.0"\n')
    repo.write("src/lib.rs", "pub fn f() {}\n")
    repo.commit()
    monkeypatch.setenv("PATH", str(fake_tools.directory))  # cargo, but no cargo-clippy
    report = run_scanners(repo.root, [on_disk(repo.root, "src/lib.rs", "rust")],
                          tools={"clippy"})
    assert report.skipped == {"clippy": "not installed (cargo-clippy)"}
