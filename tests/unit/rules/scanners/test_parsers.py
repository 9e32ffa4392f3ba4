"""Each adapter's parser against recorded or format-faithful sample outputs (tests/data)."""

from __future__ import annotations

import pytest

from reviewtui.rules.scanners import normalise_severity
from reviewtui.rules.scanners.base import (
    Finding,
    OutputError,
    ToolOutput,
    load_json,
    pyflakes_severity,
)
from reviewtui.rules.scanners.registry import ADAPTERS
from tests.conftest import DATA

SAMPLES = DATA / "scanners"


def parse(tool: str, sample: str, *, returncode: int = 0, stream: str = "stdout") -> list[Finding]:
    text = (SAMPLES / sample).read_text(encoding="utf-8")
    output = ToolOutput(returncode, text if stream == "stdout" else "",
                        text if stream == "stderr" else "")
    return ADAPTERS[tool].parse(output)


def brief(findings: list[Finding]) -> list[tuple[int, int, str, str]]:
    return [(f.line, f.column, f.severity, f.rule_id) for f in findings]


@pytest.mark.parametrize(("raw", "expected"), [
    ("ERROR", "error"), ("fatal", "error"), ("Critical", "error"), ("HIGH", "error"),
    ("e", "error"), ("F", "error"), ("blocker", "error"),
    ("warning", "warning"), ("WARN", "warning"), ("caution", "warning"), ("MEDIUM", "warning"),
    ("w", "warning"), ("major", "warning"),
    ("info", "info"), ("note", "info"), ("hint", "info"), ("style", "info"), ("LOW", "info"),
    ("convention", "info"), ("refactor", "info"), ("minor", "info"), ("I", "info"),
    ("c", "info"), ("r", "info"),
    ("", "warning"), ("UNDEFINED", "warning"), ("whatever", "warning"),
])
def test_normalise_severity(raw: str, expected: str) -> None:
    assert normalise_severity(raw) == expected


@pytest.mark.parametrize(("code", "expected"), [
    (None, "error"), ("invalid-syntax", "error"), ("E999", "error"), ("E902", "error"),
    ("F821", "error"), ("F822", "error"), ("F823", "error"), ("F632", "error"),
    ("F701", "error"), ("F706", "error"),
    ("F401", "warning"), ("F841", "warning"), ("E501", "warning"), ("W291", "warning"),
    ("I001", "warning"), ("C901", "warning"), ("B006", "warning"),
])
def test_pyflakes_style_codes(code: str | None, expected: str) -> None:
    assert pyflakes_severity(code) == expected


def test_ruff_json() -> None:
    findings = parse("ruff", "ruff.json")
    assert {f.path for f in findings} == {"/home/dev/project/src/app/broken.py",
                                          "/home/dev/project/src/app/models.py"}
    assert brief(findings) == [
        (1, 12, "error", "invalid-syntax"),
        (1, 13, "error", "invalid-syntax"),
        (1, 8, "warning", "F401"),
        (6, 16, "warning", "E711"),
        (7, 16, "error", "F821"),
    ]
    assert findings[4].message == "Undefined name `undefined_thing`"


def test_ruff_empty_output_is_no_findings() -> None:
    assert ADAPTERS["ruff"].parse(ToolOutput(0, "", "")) == []
    assert ADAPTERS["ruff"].parse(ToolOutput(0, "[]\n", "")) == []


def test_pylint_json_columns_are_made_one_based() -> None:
    findings = parse("pylint", "pylint.json", returncode=1 | 2 | 4 | 8 | 16)
    assert brief(findings) == [
        (1, 1, "info", "C0114"),
        (5, 1, "info", "C0116"),
        (6, 8, "info", "C0121"),
        (7, 16, "error", "E0602"),
        (8, 23, "info", "R1732"),
        (8, 23, "warning", "W1514"),
        (1, 1, "warning", "W0611"),
        (1, 1, "error", "F0001"),
    ]
    assert findings[3].path == "src/app/models.py"
    assert findings[3].message == "Undefined variable 'undefined_thing'"


def test_pylint_json2() -> None:
    findings = parse("pylint", "pylint_json2.json", returncode=6)
    assert brief(findings) == [(7, 16, "error", "E0602"), (1, 1, "warning", "W0611")]
    assert findings[0].path == "src/app/models.py"


def test_flake8_default_format() -> None:
    findings = parse("flake8", "flake8.txt", returncode=1)
    assert brief(findings) == [
        (1, 1, "warning", "F401"),
        (6, 13, "warning", "E711"),
        (7, 16, "error", "F821"),
        (8, 80, "warning", "E501"),
        (9, 1, "warning", "W391"),
        (1, 12, "error", "E999"),
        (4, 9, "error", "F701"),
        (12, 5, "warning", "C901"),
    ]
    assert findings[0].path == "./src/app/models.py"
    assert findings[5].message == "SyntaxError: invalid syntax"


def test_flake8_garbage_is_an_error() -> None:
    with pytest.raises(OutputError):
        ADAPTERS["flake8"].parse(ToolOutput(1, "Traceback (most recent call last):\n", ""))
    assert ADAPTERS["flake8"].parse(ToolOutput(0, "", "")) == []


def test_mypy_json_lines_have_zero_based_columns() -> None:
    findings = parse("mypy", "mypy.jsonl", returncode=1)
    assert brief(findings) == [
        (5, 26, "error", "name-defined"),
        (9, 12, "error", "operator"),
        (12, 14, "error", "assignment"),
        (13, 13, "info", "misc"),
    ]
    assert findings[0].path == "src/app/service.py"


def test_mypy_text_matches_json() -> None:
    text = parse("mypy", "mypy.txt", returncode=1)
    json = parse("mypy", "mypy.jsonl", returncode=1)
    assert brief(text) == brief(json)  # the hint note on line 9 folds into its error
    assert text[0].message == 'Name "missing_name" is not defined'


def test_bandit_json() -> None:
    findings = parse("bandit", "bandit.json", returncode=1)
    assert brief(findings) == [
        (1, 1, "info", "B404"),
        (3, 15, "info", "B105"),
        (9, 12, "error", "B602"),
        (14, 12, "warning", "B307"),
    ]
    assert findings[2].path == "./src/app/runner.py"


def test_eslint_json() -> None:
    findings = parse("eslint", "eslint.json", returncode=1)
    assert [(f.path.rsplit("/", 1)[-1], *b) for f, b in zip(findings, brief(findings),
                                                            strict=True)] == [
        ("app.js", 3, 7, "error", "no-unused-vars"),
        ("app.js", 6, 13, "warning", "eqeqeq"),
        ("broken.ts", 4, 12, "error", "parse-error"),
    ]  # the "File ignored" notice is dropped


def test_golangci_lint_v1_relative_paths() -> None:
    findings = parse("golangci-lint", "golangci-lint_v1.json")
    assert [(f.path, *b) for f, b in zip(findings, brief(findings), strict=True)] == [
        ("internal/store/store.go", 21, 15, "warning", "errcheck"),
        ("internal/store/store.go", 23, 8, "warning", "staticcheck"),
        ("cmd/server/main.go", 12, 9, "error", "typecheck"),
    ]


def test_golangci_lint_v2_absolute_paths_and_severities() -> None:
    findings = parse("golangci-lint", "golangci-lint_v2.json")
    assert brief(findings) == [
        (14, 9, "error", "govet"), (19, 2, "warning", "ineffassign"), (8, 1, "info", "revive"),
    ]
    assert findings[0].path == "/home/dev/project/internal/user/user.go"


def test_golangci_lint_null_issues_and_no_go_files() -> None:
    assert parse("golangci-lint", "golangci-lint_empty.json") == []
    assert ADAPTERS["golangci-lint"].parse(ToolOutput(5, "", "no go files to analyze")) == []


def test_go_vet_stderr() -> None:
    findings = parse("go-vet", "go-vet.stderr.txt", returncode=1, stream="stderr")
    assert [(f.path, *b) for f, b in zip(findings, brief(findings), strict=True)] == [
        ("internal/cart/cart.go", 27, 2, "warning", "vet"),
        ("internal/cart/cart.go", 41, 9, "warning", "vet"),
        ("./main.go", 15, 2, "warning", "vet"),
        ("cmd/shop/main.go", 9, 2, "error", "typecheck"),
    ]


def test_go_vet_failure_without_diagnostics() -> None:
    with pytest.raises(OutputError):
        ADAPTERS["go-vet"].parse(ToolOutput(1, "", "go: cannot find main module\n"))


def test_checkstyle_xml() -> None:
    findings = parse("checkstyle", "checkstyle.xml", returncode=1)
    assert brief(findings) == [
        (12, 5, "warning", "MissingJavadocMethod"),
        (18, 1, "error", "LineLength"),
        (25, 17, "info", "MagicNumber"),
    ]
    assert findings[2].message == "'42' is a magic number."
    assert findings[0].path.endswith("/com/example/OrderService.java")


def test_pmd7_json() -> None:
    findings = parse("pmd", "pmd.json", returncode=4)
    assert brief(findings) == [
        (8, 26, "warning", "UnusedPrivateField"),
        (31, 11, "error", "EmptyCatchBlock"),
        (40, 13, "info", "ShortVariable"),
        (1, 1, "error", "processing-error"),
    ]
    assert findings[0].message == "Avoid unused private fields such as 'cache'."
    assert findings[3].path == "src/main/java/com/example/Broken.java"


def test_rubocop_json() -> None:
    findings = parse("rubocop", "rubocop.json", returncode=1)
    assert [(f.path, *b) for f, b in zip(findings, brief(findings), strict=True)] == [
        ("app/models/user.rb", 1, 1, "info", "Style/FrozenStringLiteralComment"),
        ("app/models/user.rb", 7, 5, "warning", "Lint/UselessAssignment"),
        ("app/models/account.rb", 12, 1, "error", "Lint/Syntax"),
    ]
    assert findings[1].message == "Useless assignment to variable - `result`."


def test_semgrep_json() -> None:
    findings = parse("semgrep", "semgrep.json")
    assert [(f.path, *b) for f, b in zip(findings, brief(findings), strict=True)] == [
        ("src/app/handlers.py", 14, 12, "error", ".semgrep.python-no-eval"),
        ("web/src/app.js", 9, 3, "warning", ".semgrep.js-console-log"),
        ("web/src/app.js", 2, 1, "info", ".semgrep.todo-marker"),
    ]
    assert findings[0].message == "Avoid eval() on request data: it executes arbitrary code."


@pytest.mark.parametrize("tool", ["ruff", "pylint", "bandit", "eslint", "golangci-lint", "pmd",
                                  "rubocop", "semgrep"])
def test_json_tools_reject_non_json(tool: str) -> None:
    with pytest.raises(OutputError):
        ADAPTERS[tool].parse(ToolOutput(1, "Segmentation fault (core dumped)\n", ""))


def test_checkstyle_rejects_non_xml() -> None:
    with pytest.raises(OutputError):
        ADAPTERS["checkstyle"].parse(ToolOutput(254, "", "Exception in thread main"))


def test_json_is_found_after_log_lines() -> None:
    text = "[main]\tINFO profile include tests: None\nlevel=warning msg=x\n{\"results\": []}\n"
    assert load_json(text) == {"results": []}
    with pytest.raises(OutputError, match="no JSON in output: oops"):
        load_json("oops {not json\n")
