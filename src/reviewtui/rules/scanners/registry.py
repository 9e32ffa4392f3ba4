"""Every known scanner adapter by the tool name used in the configuration."""

from __future__ import annotations

from reviewtui.rules.scanners.base import Adapter
from reviewtui.rules.scanners.c_tools import ClangTidy, Cppcheck
from reviewtui.rules.scanners.go_tools import GolangciLint, GoVet
from reviewtui.rules.scanners.js_tools import Eslint
from reviewtui.rules.scanners.jvm_tools import Checkstyle, Pmd
from reviewtui.rules.scanners.kotlin_tools import Detekt, Ktlint
from reviewtui.rules.scanners.php_tools import Phpstan
from reviewtui.rules.scanners.python_tools import Bandit, Flake8, Mypy, Pylint, Ruff
from reviewtui.rules.scanners.ruby_tools import Rubocop
from reviewtui.rules.scanners.rust_tools import Clippy
from reviewtui.rules.scanners.semgrep_tool import Semgrep

ADAPTERS: dict[str, Adapter] = {
    adapter.name: adapter
    for adapter in (
        Ruff(), Pylint(), Flake8(), Mypy(), Bandit(), Eslint(), GolangciLint(), GoVet(),
        Checkstyle(), Pmd(), Rubocop(), Semgrep(), Clippy(), Cppcheck(), ClangTidy(),
        Phpstan(), Ktlint(), Detekt(),
    )
}
