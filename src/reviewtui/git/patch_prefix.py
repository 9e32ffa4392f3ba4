"""Give a ``git diff --no-prefix`` patch (or one written under ``diff.noprefix``) the ``a/`` and
``b/`` prefixes before ``unidiff`` reads it.

Without prefixes, ``unidiff`` splits a ``diff --git`` header at its last space, so a path with a
space (``diff --git un dir/a.py un dir/a.py``) gave two wrong names and the whole patch was
refused as "not a valid diff". Each such file's names are taken from its ``---``/``+++`` lines,
else its ``rename``/``copy`` lines, else the header's two equal halves (as git reads them), and
written back with prefixes, which ``patch_file`` strips again.
"""

from __future__ import annotations

import re

_HEADER = "diff --git "
_UNPREFIXED = re.compile(r'^diff --git (?!"?a/)', re.MULTILINE)
_PREFIXED_NAME = re.compile(r'^"?[ab]/')
_MOVE = re.compile(r"^(?:rename|copy) (from|to) (.+)$")


def add_git_prefixes(text: str) -> str:
    """``text`` with every unprefixed ``diff --git`` file given ``a/``/``b/`` names."""
    if _UNPREFIXED.search(text) is None:
        return text
    lines = text.splitlines(keepends=True)
    index = 0
    while index < len(lines):
        if lines[index].startswith(_HEADER) and _UNPREFIXED.match(lines[index]):
            end = index + 1
            while end < len(lines) and not lines[end].startswith(("@@", _HEADER)):
                end += 1
            _prefix_block(lines, index, end)
            index = end
        else:
            index += 1
    return "".join(lines)


def _prefix_block(lines: list[str], start: int, end: int) -> None:
    names: dict[str, str] = {}
    for line in lines[start + 1 : end]:
        body = line.rstrip("\r\n")
        if body.startswith(("--- ", "+++ ")):
            name = body[4:].split("\t", 1)[0]
            if name != "/dev/null" and _PREFIXED_NAME.match(name) is None:
                names.setdefault("old" if body[0] == "-" else "new", name)
        elif (m := _MOVE.match(body)) is not None:
            names.setdefault("old" if m.group(1) == "from" else "new", m.group(2))
    if not names:
        half = _equal_halves(lines[start][len(_HEADER):].rstrip("\r\n"))
        if half is None:
            return  # left as it is: unidiff reads it as before
        names["old"] = names["new"] = half
    old = names.get("old", names.get("new", ""))
    new = names.get("new", old)
    newline = lines[start][len(lines[start].rstrip("\r\n")):]
    lines[start] = f"{_HEADER}{_prefixed('a/', old)} {_prefixed('b/', new)}{newline}"
    for at in range(start + 1, end):
        line = lines[at]
        if line.startswith(("--- ", "+++ ")) and not line[4:].startswith("/dev/null"):
            name = names["old" if line[0] == "-" else "new"]
            if line[4:].startswith(name):
                prefix = "a/" if line[0] == "-" else "b/"
                lines[at] = line[:4] + _prefixed(prefix, name) + line[4 + len(name):]


def _prefixed(prefix: str, name: str) -> str:
    return f'"{prefix}{name[1:]}' if name.startswith('"') else prefix + name


def _equal_halves(body: str) -> str | None:
    """The name of a header ``NAME NAME`` (mode or binary changes name the file twice)."""
    half = (len(body) - 1) // 2
    if len(body) % 2 == 1 and body[half] == " " and body[:half] == body[half + 1 :]:
        return body[:half]
    return None
