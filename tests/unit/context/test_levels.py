"""Context levels on real repositories: function, file context, full file, previous version."""

from __future__ import annotations

import re
from dataclasses import dataclass

from reviewtui.code import FileStructure
from reviewtui.config import ContextSettings
from reviewtui.context.changes import changed_ranges
from reviewtui.context.excerpt import decode_lines, parse_structure
from reviewtui.context.levels import (
    diff_excerpt,
    file_context,
    full_file,
    function_context,
    level_context,
    previous_version,
)
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.git.model import FileChange
from reviewtui.models import ContextLevel
from reviewtui.pipeline import load_change
from reviewtui.units.model import ReviewUnit
from tests.conftest import GitRepoBuilder

STAGED = ChangeSelector(SelectorMode.STAGED)
NUMBERED = re.compile(r"^\s*(\d+) \| (.*)$")


@dataclass
class Loaded:
    unit: ReviewUnit
    units: list[ReviewUnit]
    change: FileChange
    new: bytes | None
    old: bytes | None
    settings: ContextSettings

    @property
    def structure(self) -> FileStructure | None:
        return parse_structure(self.unit.language, self.new)

    @property
    def old_structure(self) -> FileStructure | None:
        return parse_structure(self.unit.language, self.old)


def load(repo: GitRepoBuilder, path: str) -> Loaded:
    repo.git("add", "-A")
    loaded = load_change(repo.root, STAGED)
    units = [u for u in loaded.units if u.file_path == path]
    assert units, f"no unit for {path}"
    change = next(c for c in loaded.change_set.files if c.path == path)
    return Loaded(units[0], units, change, loaded.reader.new(change), loaded.reader.old(change),
                  loaded.settings.context)


def numbers(text: str | None) -> list[int]:
    """The line numbers an excerpt shows, in order."""
    assert text is not None
    return [int(m.group(1)) for line in text.split("\n") if (m := NUMBERED.match(line))]


def shown(text: str | None, number: int) -> str | None:
    """The code an excerpt shows for line ``number`` (the first occurrence)."""
    assert text is not None
    for line in text.split("\n"):
        m = NUMBERED.match(line)
        if m and int(m.group(1)) == number:
            return m.group(2)
    return None


SERVICE = '''\
import logging


class Service:
    """A service."""

    retries = 3

    def first(self):
        return 1

    @app.route("/x")
    @login_required
    def handle(self, request):
        user = request.user
        if user is None:
            return None
        return user.name

    def last(self):
        return 2
'''


def test_decorated_method_is_shown_whole_without_its_class(repo: GitRepoBuilder) -> None:
    repo.write("svc.py", SERVICE)
    repo.commit("base")
    repo.write("svc.py", SERVICE.replace("return user.name", "return user.display_name"))
    lo = load(repo, "svc.py")
    text = function_context(lo.unit, lo.new, lo.structure, lo.settings)
    assert text is not None
    assert text.split("\n")[0] == "# svc.py:L12-18 (method Service.handle)"
    assert numbers(text) == list(range(12, 19))  # decorators through the last line
    assert shown(text, 12) == '    @app.route("/x")'
    assert shown(text, 18) == "        return user.display_name"
    assert "def first" not in text and "def last" not in text and "class Service" not in text


def test_diff_excerpt_has_a_location_header_and_numbers(repo: GitRepoBuilder) -> None:
    repo.write("svc.py", SERVICE)
    repo.commit("base")
    repo.write("svc.py", SERVICE.replace("return user.name", "return user.display_name"))
    lo = load(repo, "svc.py")
    diff = diff_excerpt(lo.unit)
    lines = diff.split("\n")
    assert lines[0] == "@@ svc.py:L18 @@"
    assert lines[1].startswith("@@ -")
    assert "   18       -        return user.name" in lines
    assert "         18 +        return user.display_name" in lines


def _functions(count: int, body: int = 3) -> str:
    return "".join(
        f"def func_{i}(x):\n" + "".join(f"    x += {j}\n" for j in range(body))
        + "    return x\n\n\n"
        for i in range(count)
    )


def test_changes_in_two_functions_show_both(repo: GitRepoBuilder) -> None:
    source = _functions(6)
    repo.write("f.py", source)
    repo.commit("base")
    repo.write(".reviewtui.toml", "[units]\nmerge_gap = 50\n")
    lines = source.split("\n")
    lines[8] = "    x -= 0"  # line 9, in func_1 (8-12)
    lines[31] = "    x -= 2"  # line 32, in func_4 (29-33)
    repo.write("f.py", "\n".join(lines))
    lo = load(repo, "f.py")
    assert len(lo.units) == 1
    text = function_context(lo.unit, lo.new, lo.structure, lo.settings)
    assert text is not None
    headers = [line for line in text.split("\n") if line.startswith("# ")]
    assert headers == ["# f.py:L8-12 (function func_1)", "# f.py:L29-33 (function func_4)"]
    assert numbers(text) == [*range(8, 13), *range(29, 34)]
    assert "def func_2" not in text


def _assignments(count: int) -> str:
    return "".join(f"value_{i} = {i}\n" for i in range(1, count + 1))


def test_module_level_change_gets_a_window(repo: GitRepoBuilder) -> None:
    repo.write("m.py", _assignments(60))
    repo.commit("base")
    repo.write("m.py", _assignments(60).replace("value_30 = 30", "value_30 = 300"))
    lo = load(repo, "m.py")
    text = function_context(lo.unit, lo.new, lo.structure, lo.settings)
    window = lo.settings.window_lines
    assert numbers(text) == list(range(30 - window, 30 + window + 1))
    assert text is not None
    assert text.startswith(f"# m.py:L{30 - window}-{30 + window} (module level)")


def test_unsupported_language_falls_back_to_a_window(repo: GitRepoBuilder) -> None:
    lua = "".join(f"local v{i} = {i}\n" for i in range(1, 61))
    repo.write("init.lua", lua)
    repo.write("notes.txt", "".join(f"note {i}\n" for i in range(1, 61)))
    repo.commit("base")
    repo.write("init.lua", lua.replace("local v30 = 30", "local v30 = 31"))
    repo.write("notes.txt", "".join(f"note {i}{'!' if i == 5 else ''}\n" for i in range(1, 61)))
    lo = load(repo, "init.lua")
    assert lo.structure is None
    settings = lo.settings.model_copy(update={"window_lines": 4})
    text = function_context(lo.unit, lo.new, None, settings)
    assert text is not None
    assert text.split("\n")[0] == "# init.lua:L26-34"
    assert numbers(text) == list(range(26, 35))
    notes = load(repo, "notes.txt")
    text = function_context(notes.unit, notes.new, notes.structure, settings)
    assert numbers(text) == list(range(1, 10))  # clipped at the top of the file


def test_long_function_keeps_head_changes_and_tail(repo: GitRepoBuilder) -> None:
    body = "".join(f"    x += {j}\n" for j in range(300))
    source = f"def long(x):\n{body}    return x\n"  # lines 1..302
    repo.write("long.py", source)
    repo.commit("base")
    repo.write("long.py", source.replace("    x += 150\n", "    x -= 150\n"))  # line 152
    lo = load(repo, "long.py")
    settings = lo.settings.model_copy(update={"max_function_lines": 100, "window_lines": 5})
    text = function_context(lo.unit, lo.new, lo.structure, settings)
    assert text is not None
    assert text.split("\n")[0] == "# long.py:L1-302 (function long, 302 lines, shortened)"
    shown_lines = numbers(text)
    assert shown_lines[:20] == list(range(1, 21))  # the head: a fifth of the limit
    assert list(range(147, 158)) == [n for n in shown_lines if 140 < n < 200]  # around
    assert shown_lines[-10:] == list(range(293, 303))  # the tail: a tenth of the limit
    assert shown(text, 152) == "    x -= 150"
    assert text.count("omitted …") == 2
    assert "… 126 lines omitted …" in text  # 21..146


def test_class_level_change_shows_the_class_header_and_window(repo: GitRepoBuilder) -> None:
    methods = "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(30))
    source = f"class Big:\n    flag = 1\n\n{methods}"
    repo.write("big.py", source)
    repo.commit("base")
    repo.write("big.py", source.replace("    flag = 1", "    flag = 2"))
    lo = load(repo, "big.py")
    settings = lo.settings.model_copy(update={"window_lines": 3})
    text = function_context(lo.unit, lo.new, lo.structure, settings)
    assert text is not None
    assert text.split("\n")[0].endswith("(class Big, around the changes)")
    assert numbers(text) == list(range(1, 6))
    assert "def m20" not in text


def _snap_source() -> str:
    """Ten 9-line functions: func_i starts at line 9*i + 1 (with two blank lines after each)."""
    return "".join(
        f"def func_{i}(x):\n" + "".join(f"    x += {j}\n" for j in range(5)) + "    return x\n\n\n"
        for i in range(10)
    )


def test_file_context_is_wider_and_snaps_to_definitions(repo: GitRepoBuilder) -> None:
    source = _snap_source()
    repo.write("s.py", source)
    repo.commit("base")
    # func_5 spans 46-52; change line 48
    repo.write("s.py", source.replace("def func_5(x):\n    x += 0\n    x += 1",
                                      "def func_5(x):\n    x += 0\n    x -= 1"))
    lo = load(repo, "s.py")
    settings = lo.settings.model_copy(update={"file_context_lines": 5})
    function = function_context(lo.unit, lo.new, lo.structure, settings)
    wide = file_context(lo.unit, lo.new, lo.structure, settings)
    assert set(numbers(function)) < set(numbers(wide))
    # the window 43..53 starts on func_4's last line (func_4: 37-43) and ends on a blank line:
    # the start snaps out to func_4's first line, the end stays.
    assert numbers(wide) == list(range(37, 54))
    assert shown(wide, 37) == "def func_4(x):"
    assert wide is not None and wide.split("\n")[0] == "# s.py:L37-53"
    assert wide.split("\n")[1] == "… 36 lines omitted …"
    assert wide.rstrip().endswith("omitted …")


def test_file_context_does_not_snap_past_twice_the_window(repo: GitRepoBuilder) -> None:
    long_body = "".join(f"    x += {j}\n" for j in range(100))
    source = f"def long(x):\n{long_body}    return x\n\n\ndef short(x):\n"
    repo.write("w.py", source + "    return x\n")  # long: 1-102, short: 105-106
    repo.commit("base")
    repo.write("w.py", source + "    return -x\n")
    lo = load(repo, "w.py")
    settings = lo.settings.model_copy(update={"file_context_lines": 10})
    wide = file_context(lo.unit, lo.new, lo.structure, settings)
    assert numbers(wide) == list(range(96, 107))  # cut at a line inside `long`, not snapped


def test_full_file_small_and_large(repo: GitRepoBuilder) -> None:
    repo.write("small.py", _assignments(20))
    repo.write("large.py", _assignments(1000))
    repo.commit("base")
    repo.write("small.py", _assignments(20).replace("value_3 = 3", "value_3 = 33"))
    repo.write("large.py", _assignments(1000).replace("value_500 = 500", "value_500 = 5"))
    small = load(repo, "small.py")
    text = full_file(small.unit, small.new, small.settings)
    assert numbers(text) == list(range(1, 21))
    assert text is not None and "omitted" not in text
    large = load(repo, "large.py")
    settings = large.settings.model_copy(update={"full_file_max_lines": 200})
    text = full_file(large.unit, large.new, settings)
    assert text is not None
    shown_lines = numbers(text)
    assert shown_lines[:50] == list(range(1, 51))  # head: a quarter
    assert shown_lines[-50:] == list(range(951, 1001))  # tail: a quarter
    middle = [n for n in shown_lines if 50 < n < 951]
    assert 500 in middle and len(middle) <= 100 and middle == list(range(middle[0], 501 + 49))
    assert shown(text, 500) == "value_500 = 5"
    assert text.count("lines omitted") == 2
    assert "head, around the changes, tail" in text.split("\n")[0]


def test_previous_version_shows_the_old_function_with_old_numbers(repo: GitRepoBuilder) -> None:
    repo.write("svc.py", SERVICE)
    repo.commit("base")
    changed = SERVICE.replace("import logging\n", "import logging\nimport os\nimport sys\n")
    changed = changed.replace("return user.name", "return user.display_name")
    repo.write("svc.py", changed)
    lo = load(repo, "svc.py")
    handle = next(u for u in lo.units if "display_name" in "".join(u.changed_lines()))
    text = previous_version(handle, lo.old, lo.old_structure, lo.settings)
    assert text is not None
    assert text.split("\n")[0] == "# svc.py:L12-18 (method Service.handle, before the change)"
    assert shown(text, 18) == "        return user.name"
    assert "display_name" not in text
    new_text = function_context(handle, lo.new, lo.structure, lo.settings)
    assert new_text is not None and new_text.startswith("# svc.py:L14-20 (method Service.handle)")


def test_previous_version_of_an_insertion_shows_the_old_surroundings(
        repo: GitRepoBuilder) -> None:
    repo.write("svc.py", SERVICE)
    repo.commit("base")
    repo.write("svc.py", SERVICE.replace("        if user is None:\n",
                                         "        log(user)\n        if user is None:\n"))
    lo = load(repo, "svc.py")
    text = previous_version(lo.unit, lo.old, lo.old_structure, lo.settings)
    assert text is not None and "method Service.handle, before the change" in text
    assert numbers(text) == list(range(12, 19))


def test_deleted_file_uses_the_old_side(repo: GitRepoBuilder) -> None:
    repo.write("gone.py", SERVICE)
    repo.commit("base")
    repo.git("rm", "-q", "gone.py")
    lo = load(repo, "gone.py")
    assert lo.new is None and lo.old is not None
    assert function_context(lo.unit, lo.new, None, lo.settings) is None
    text = function_context(lo.unit, None, None, lo.settings, old_text=lo.old,
                            old_structure=lo.old_structure)
    assert text is not None and "(class Service, before the change)" in text
    previous = previous_version(lo.unit, lo.old, lo.old_structure, lo.settings)
    assert numbers(previous) == list(range(1, 22))
    whole = full_file(lo.unit, None, lo.settings, old_text=lo.old)
    assert numbers(whole) == list(range(1, 22))
    assert full_file(lo.unit, None, lo.settings) is None


def test_pure_deletion_uses_old_numbers(repo: GitRepoBuilder) -> None:
    repo.write("svc.py", SERVICE)
    repo.commit("base")
    repo.write("svc.py", SERVICE.replace("        if user is None:\n            return None\n",
                                         ""))
    lo = load(repo, "svc.py")
    assert changed_ranges(lo.unit).old == ((16, 17),)
    assert changed_ranges(lo.unit).new == ((15, 16),)  # the lines around the removal
    text = function_context(lo.unit, lo.new, lo.structure, lo.settings, old_text=lo.old,
                            old_structure=lo.old_structure)
    assert text is not None and text.startswith("# svc.py:L12-18 (method Service.handle, before")
    assert shown(text, 16) == "        if user is None:"
    # without the old side, the new side around the removal point
    text = function_context(lo.unit, lo.new, lo.structure, lo.settings)
    assert text is not None and text.startswith("# svc.py:L12-16 (method Service.handle)")


def test_added_file_has_no_previous_version(repo: GitRepoBuilder) -> None:
    repo.write("README.md", "x\n")
    repo.commit("base")
    repo.write("new.py", "def fresh():\n    return 1\n")
    lo = load(repo, "new.py")
    assert lo.old is None
    assert previous_version(lo.unit, lo.old, None, lo.settings) is None
    assert previous_version(lo.unit, b"def fresh():\n", None, lo.settings) is None
    text = function_context(lo.unit, lo.new, lo.structure, lo.settings)
    assert text == "# new.py:L1-2 (function fresh)\n   1 | def fresh():\n   2 |     return 1"


def test_crlf_and_non_utf8_files_do_not_crash(repo: GitRepoBuilder) -> None:
    crlf = "def crlf(x):\r\n    y = x\r\n    return y\r\n"
    latin = "".join(f"# caf\xe9 {i}\n" for i in range(30)).encode("latin-1")
    repo.write("crlf.py", crlf)
    repo.write("latin.txt", latin)
    repo.commit("base")
    repo.write("crlf.py", crlf.replace("y = x", "y = -x"))
    repo.write("latin.txt", latin.replace(b"caf\xe9 10", b"caf\xe9 ten"))
    lo = load(repo, "crlf.py")
    for level in (ContextLevel.FUNCTION, ContextLevel.FILE_CONTEXT, ContextLevel.FULL_FILE):
        text = level_context(level, lo.unit, lo.new, lo.structure, lo.settings)
        assert text is not None and "\r" not in text
        assert shown(text, 2) == "    y = -x"
    assert "\r" not in (previous_version(lo.unit, lo.old, lo.old_structure, lo.settings) or "\r")
    latin_lo = load(repo, "latin.txt")
    assert "non_utf8" in latin_lo.unit.tags
    text = function_context(latin_lo.unit, latin_lo.new, None, latin_lo.settings)
    assert shown(text, 11) == "# caf\ufffd ten"
    assert full_file(latin_lo.unit, latin_lo.new, latin_lo.settings) is not None
    assert previous_version(latin_lo.unit, latin_lo.old, None, latin_lo.settings) is not None


def test_binary_files_have_no_context(repo: GitRepoBuilder) -> None:
    repo.write("blob.bin", b"\x00\x01\x02" * 10)
    repo.commit("base")
    repo.write("blob.bin", b"\x00\x01\x03" * 10)
    lo = load(repo, "blob.bin")
    assert "binary" in lo.unit.tags
    assert function_context(lo.unit, lo.new, None, lo.settings) is None
    assert file_context(lo.unit, lo.new, None, lo.settings) is None
    assert full_file(lo.unit, lo.new, lo.settings) is None
    assert previous_version(lo.unit, lo.old, None, lo.settings) is None
    assert diff_excerpt(lo.unit).startswith("@@ blob.bin")
    assert level_context(ContextLevel.DIFF_ONLY, lo.unit, lo.new, None, lo.settings) is None


def test_decode_lines_counts_like_git() -> None:
    assert decode_lines(b"a\r\nb\x0cc\nd") == ("a", "b\x0cc", "d")
    assert decode_lines(b"") == ()
    assert decode_lines(b"\n") == ("",)
    assert decode_lines(b"\xff\n") == ("\ufffd",)
