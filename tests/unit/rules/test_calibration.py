"""Risk a reviewer can trust: the file's role caps it, what the changed code does raises it, and
the priority puts a security fix ahead of the version bump, the tests and the release notes."""

from __future__ import annotations

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import LoadedChange, load_change
from reviewtui.rules import RuleSuggestion
from reviewtui.units import ReviewUnit
from tests.conftest import GitRepoBuilder

AUTH_TEST = '''from django.test import TestCase


class LoginTests(TestCase):
    def test_login(self):
        response = self.client.post("/login/", {"password": "x"})
        self.assertEqual(response.status_code, 200)
'''
SANITIZER = '''import re


def strip_tags(value):
    """Return the given HTML with all tags stripped."""
    while "<" in value and ">" in value:
        new_value = _strip_once(value)
        if value.count("<") == new_value.count("<"):
            break
        value = new_value
    return value


def _strip_once(value):
    return re.sub(r"<[^>]*>", "", value)
'''


def _load(repo: GitRepoBuilder) -> LoadedChange:
    return load_change(repo.root, ChangeSelector(SelectorMode.ALL), use_cache=False)


def _one_unit(repo: GitRepoBuilder, path: str, before: str,
              after: str) -> tuple[ReviewUnit, RuleSuggestion]:
    """``path`` committed as ``before``, changed to ``after``: its one unit and suggestion."""
    repo.write(path, before)
    repo.commit("base")
    repo.write(path, after)
    loaded = _load(repo)
    [unit] = loaded.units
    return unit, loaded.suggestions[unit.unit_id]


def _score(repo: GitRepoBuilder, path: str, before: str | None, after: str) -> tuple[str, str]:
    if before is not None:
        repo.write(path, before)
    repo.write("README.md", "seed\n")
    repo.commit("base")
    repo.write(path, after)
    loaded = _load(repo)
    scored = {(loaded.suggestions[u.unit_id].risk.value, loaded.suggestions[u.unit_id].role)
              for u in loaded.units if u.file_path == path}
    assert len(scored) == 1, scored  # a long change may be cut into several units: all alike
    return scored.pop()


def test_a_test_file_touching_auth_is_medium(repo: GitRepoBuilder) -> None:
    after = AUTH_TEST.replace('"password": "x"', '"password": "secret", "otp": "1"')
    assert _score(repo, "tests/auth_tests/test_login.py", AUTH_TEST, after) == ("medium", "test")


def test_a_test_that_skips_a_security_test_is_high(repo: GitRepoBuilder) -> None:
    after = AUTH_TEST.replace("    def test_login(self):",
                              '    @unittest.skip("flaky")\n    def test_login(self):')
    assert _score(repo, "tests/auth_tests/test_login.py", AUTH_TEST, after) == ("high", "test")


def test_loosening_an_access_assertion_in_a_security_test_is_high(repo: GitRepoBuilder) -> None:
    before = AUTH_TEST.replace("status_code, 200", "status_code, 403")
    after = AUTH_TEST.replace("self.assertEqual(response.status_code, 200)",
                              "self.assertIn(response.status_code, (200, 302))")
    assert _score(repo, "tests/auth_tests/test_login.py", before, after) == ("high", "test")


def test_skipping_an_ordinary_test_stays_medium(repo: GitRepoBuilder) -> None:
    plain = "def test_add():\n    assert 1 + 1 == 2\n"
    after = "import pytest\n\n\n@pytest.mark.skip\ndef test_add():\n    assert 1 + 1 == 2\n"
    assert _score(repo, "tests/test_math.py", plain, after) == ("medium", "test")


def test_a_sanitizer_change_is_high(repo: GitRepoBuilder) -> None:
    after = SANITIZER.replace('    while "<" in value and ">" in value:',
                              '    depth = 0\n    while "<" in value and ">" in value:\n'
                              '        depth += 1\n        if depth > MAX_DEPTH:\n'
                              '            raise ValueError(value)')
    assert _score(repo, "lib/text/html.py", SANITIZER, after) == ("high", "code")


def test_a_long_doc_change_is_low(repo: GitRepoBuilder) -> None:
    before = "# Security\n\nReport issues to security@example.com.\n"
    after = before + "".join(f"\nStep {n}: rotate the password and the token.\n"
                             for n in range(80))
    assert _score(repo, "docs/security.md", before, after) == ("low", "docs")


@pytest.mark.parametrize(("path", "role"), [
    ("locale/fr/LC_MESSAGES/django.po", "translation"),
    ("static/admin/css/login.css", "asset"),
    ("PKG-INFO", "generated"),
    ("Django.egg-info/PKG-INFO", "generated"),
])
def test_prose_assets_and_metadata_that_say_password_are_low(repo: GitRepoBuilder, path: str,
                                                            role: str) -> None:
    text = "".join(f'msgid "password {n}"\nmsgstr "mot de passe {n}"\n' for n in range(60))
    assert _score(repo, path, "seed\n", text) == ("low", role)


def test_a_security_word_in_the_path_alone_is_medium_at_file_level(repo: GitRepoBuilder) -> None:
    before = "def label(x):\n    return x.title()\n"
    after = "def label(x):\n    return x.title().strip()\n"
    unit, suggestion = _one_unit(repo, "app/auth/labels.py", before, after)
    assert "security_area" in unit.tags and "security_sensitive" not in unit.tags
    assert (suggestion.risk.value, suggestion.context_level.value) == ("medium", "file_context")


@pytest.mark.parametrize(("label", "line"), [
    ("pattern:sql_from_strings", 'sql = "SELECT * FROM t WHERE name = \'%s\'" % name'),
    ("py:sql_assembly", "return template % (lhs_sql, name)"),
    ("py:redirect", "return HttpResponseRedirect(request.GET['next'])"),
    ("py:deserialization", "return pickle.loads(blob)"),
    ("py:path_traversal", "return send_file(os.path.normpath(path))"),
    ("py:input_limits", "if len(body) > MAX_BODY_SIZE:"),
    ("comment:security", "body = body[:4096]  # longer input could cause a denial-of-service"),
])
def test_risky_behaviour_is_recognised_by_what_the_code_does(repo: GitRepoBuilder, label: str,
                                                             line: str) -> None:
    before = "def handle(request, name, blob, path, body):\n    return None\n"
    after = f"def handle(request, name, blob, path, body):\n    {line}\n    return None\n"
    _, suggestion = _one_unit(repo, "app/handlers.py", before, after)
    assert suggestion.risk.value in ("high", "critical"), suggestion.notes
    assert f"{label}(" in suggestion.notes


def test_layout_only_and_numeric_tables_are_low(repo: GitRepoBuilder) -> None:
    repo.write("app/api.py", "def connect(host, port, timeout):\n    return (host, port)\n")
    repo.write("app/tables.py", "RANGES = (\n    (0x0041, 0x005A),\n)\n")
    repo.commit("base")
    repo.write("app/api.py", "def connect(\n    host,\n    port,\n    timeout,\n):\n"
                             "    return (host, port)\n")
    repo.write("app/tables.py", "RANGES = (\n    (0x0041, 0x005A),\n    (0x0061, 0x007A),\n)\n")
    loaded = _load(repo)
    for unit in loaded.units:
        suggestion = loaded.suggestions[unit.unit_id]
        assert suggestion.risk.value == "low", (unit.location, suggestion.notes)
        assert suggestion.context_level.value == "diff_only"


def test_the_security_fix_comes_first_in_a_release(repo: GitRepoBuilder) -> None:
    """A release: the sanitizer fix, a version bump, its test, release notes and metadata."""
    repo.write("lib/text/html.py", SANITIZER)
    repo.write("lib/__init__.py", 'VERSION = (4, 2, 16)\n')
    repo.write("tests/test_html.py", "from lib.text.html import strip_tags\n\n\n"
                                     "def test_strip():\n"
                                     "    assert strip_tags('<b>x</b>') == 'x'\n")
    repo.write("docs/releases/4.2.17.txt", "4.2.17\n======\n")
    repo.write("PKG-INFO", "Version: 4.2.16\n")
    repo.write("pyproject.toml", '[project]\nversion = "4.2.16"\n')
    repo.commit("4.2.16")
    repo.write("lib/text/html.py", SANITIZER.replace(
        '    while "<" in value and ">" in value:',
        '    depth = 0\n    while "<" in value and ">" in value:\n        depth += 1\n'
        '        if depth >= MAX_STRIP_TAGS_DEPTH:\n            raise SuspiciousOperation'))
    repo.write("lib/__init__.py", 'VERSION = (4, 2, 17)\n')
    repo.write("tests/test_html.py", (repo.root / "tests/test_html.py").read_text()
               + "\n\ndef test_deep():\n    with pytest.raises(SuspiciousOperation):\n"
                 "        strip_tags('<' * 100)\n")
    repo.write("docs/releases/4.2.17.txt", "4.2.17\n======\n\nCVE-2024-53907: denial-of-service "
                                           "possibility in strip_tags().\n" * 8)
    repo.write("PKG-INFO", "Version: 4.2.17\n")
    repo.write("pyproject.toml", '[project]\nversion = "4.2.17"\n')
    loaded = _load(repo)
    order = sorted(loaded.units, key=lambda u: -loaded.suggestions[u.unit_id].priority_score)
    assert order[0].file_path == "lib/text/html.py"
    assert loaded.suggestions[order[0].unit_id].risk.value == "high"
    index = loaded.review_index()
    assert index.summary.risk_distribution is not None
    assert sum(index.summary.risk_distribution.values()) == len(loaded.units)


def test_a_python_signature_that_changes_only_its_annotations_is_low(
        repo: GitRepoBuilder) -> None:
    before = "import typing as t\n\n\ndef join(value: t.Iterable, sep: str = ',') -> str:\n" \
             "    items = list(value)\n    items.sort()\n    return sep.join(items)\n"
    typed = before.replace("value: t.Iterable,", "value: t.Iterable[t.Any],").replace(
        "-> str:", "-> t.Optional[str]:")
    renamed = before.replace("sep: str = ','", "separator: str = ','").replace(
        "sep.join", "separator.join")
    repo.write("lib/text.py", before)
    repo.write("lib/other.py", before)
    repo.write("lib/stubs.pyi", "def join(value: t.Iterable) -> str: ...\n")
    repo.commit("base")
    repo.write("lib/text.py", typed)
    repo.write("lib/other.py", renamed)
    repo.write("lib/stubs.pyi", "def join(value: t.Iterable[t.Any]) -> str: ...\n")
    loaded = _load(repo)
    units = {u.file_path: u for u in loaded.units}
    assert "annotations_only" in units["lib/text.py"].tags
    assert "signature_change" not in units["lib/text.py"].tags
    assert loaded.suggestions[units["lib/text.py"].unit_id].risk.value == "low"
    assert "signature_change" in units["lib/other.py"].tags  # a parameter's name: callers break
    assert loaded.suggestions[units["lib/other.py"].unit_id].risk.value in ("high", "critical")
    stub = loaded.suggestions[units["lib/stubs.pyi"].unit_id]
    assert (stub.role, stub.risk.value) == ("types", "low")


def test_a_bidirectional_override_in_an_added_line_is_high_risk(repo: GitRepoBuilder) -> None:
    """Trojan Source (CVE-2021-42574): the comment's override makes the check read as a
    comment on screen while the interpreter runs it -- in a string, a comment or code. (A
    rule's own risk is capped at high: the seed's score alone says critical.)"""
    before = "def can_delete(user):\n    return user.is_admin\n"
    after = ("def can_delete(user):\n"
             "    access = 'user'  # \u202e } \u2066if user.is_admin\u2069 \u2066 admins only\n"
             "    return user.is_admin\n")
    _, suggestion = _one_unit(repo, "app/access.py", before, after)
    assert suggestion.risk.value in ("high", "critical") and "bidi_control(" in suggestion.notes
    assert suggestion.context_level.value in ("function", "file_context", "full_file")
