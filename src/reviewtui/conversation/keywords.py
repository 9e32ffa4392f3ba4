"""Keywords, similarity and file mentions of chat messages — for context inheritance (seed 004).

Inheritance decides which earlier rounds a new question is about, so it needs the *content words*
of a message in a form that matches across phrasings: lower-cased, without stop words, with code
identifiers split into their words (``getUserName`` also yields ``get``/``user``/``name``), file
paths kept whole and by basename, and Chinese/Japanese/Korean text — which has no spaces — cut into
characters and bigrams, so no external segmenter is needed. Pure functions, no I/O.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Collection, Iterable, Sequence

__all__ = [
    "CJK_STOP_WORDS",
    "STOP_WORDS",
    "FileIndex",
    "file_references",
    "keywords",
    "mentioned_files",
    "normalise_query",
    "query_hash",
    "similarity",
]


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOP_WORDS: frozenset[str] = _wordset("""
a about above after again all also am an and any are as at be because been before being below
between both but by can could did do does doing done down during each else few for from further
had has have having he her here hers him his how i if in into is it its itself just let me more
most my no nor not now of off on once only or other our ours out over own please same she should
so some such than that the their theirs them then there these they this those through to too
under until up very was we were what when where which while who whom why will with would yes you
your yours tell show explain think see look know want need ok okay thanks thank hi hello maybe
really still like one two etc vs via per eg ie
""")
"""English function words and chat filler (dropped as standalone words, never from inside an
identifier)."""

CJK_STOP_WORDS: tuple[str, ...] = (
    # multi-character words first: they are removed before single characters
    "为什么", "怎么样", "是不是", "有没有", "一个", "一些", "一下", "怎么", "什么", "如何", "为何",
    "哪些", "哪里", "哪个", "这个", "那个", "这些", "那些", "这里", "那里", "这样", "那样", "这么",
    "那么", "我们", "你们", "他们", "它们", "可以", "能否", "是否", "没有", "因为", "所以", "但是",
    "如果", "还是", "或者", "然后", "已经", "以及", "并且", "而且", "不过", "只是", "就是", "请问",
    "帮我", "麻烦",
    "的", "了", "是", "在", "和", "吗", "呢", "吧", "啊", "呀", "嘛", "也", "就", "都", "把",
    "被", "着", "过", "给", "这", "那", "我", "你", "他", "她", "它", "请", "与", "及", "或",
    "而", "么", "得", "地",
)
"""Chinese function words and particles, cut out of a CJK run before it is split. Single
characters are kept to particles that rarely start a content word (no 上/下/中: 上下文)."""

_CJK_CHAR = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
)
_TOKEN = re.compile(rf"[{_CJK_CHAR}]+|[A-Za-z0-9_$][A-Za-z0-9_$./\\-]*")
_CJK_STOP = re.compile("|".join(re.escape(word) for word in CJK_STOP_WORDS))
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_SPLIT = re.compile(r"[._/\\$-]+")
_LINE_ANCHOR = re.compile(r"L\d+(?:-L?\d+)?")
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
CODE_EXTENSIONS = _wordset("""
py pyi js jsx mjs cjs ts tsx go java kt kts rb rs c h cc cpp hpp cxx cs swift php scala sh bash
zsh sql md rst txt toml yaml yml json jsonc ini cfg conf xml html htm css scss less vue svelte
proto tf lock gradle mk cmake dockerfile env lua dart ex exs erl hs ml clj r jl ipynb csv
""")

# A file reference in prose: a path, optionally followed by ":12", ":12-30", ":12:5" or "#L12".
_LINE_SUFFIX = r"(?::(\d+)(?:[-:]\d+)?|#L\d+(?:-L?\d+)?)?"
_FILE_REF = re.compile(r"(?<![\w./-])((?:\.{1,2}/|/)?[\w.-]+(?:/[\w.-]+)*)" + _LINE_SUFFIX,
                       re.ASCII)
# The same, for names with a dot or a slash only (much cheaper on prose: plain words never match).
_PATHISH = re.compile(r"(?<![\w./-])((?:\.{1,2}/|/)?[\w-]*(?:[./][\w-]+)+)" + _LINE_SUFFIX,
                      re.ASCII)


def normalise_query(text: str, *, limit: int | None = 256) -> str:
    """Strip, collapse whitespace, lower-case, keep the first ``limit`` characters (seed 004)."""
    normal = " ".join(text.split()).lower()
    return normal if limit is None else normal[:limit]


def query_hash(text: str, *, limit: int | None = 256) -> str:
    """sha1 of the normalised query: a cache key that ignores case and spacing.

    The seed truncates to the first 256 characters to raise the hit rate; pass ``limit=None``
    where two long messages that share their start must not share a cache entry.
    """
    return hashlib.sha1(normalise_query(text, limit=limit).encode("utf-8")).hexdigest()


def _looks_like_path(token: str) -> bool:
    """``src/auth.py``, ``auth.py``, ``.github/ci.yml`` — not ``e.g``, ``foo.bar`` or ``3.11``
    (a name without a slash needs a known code or text extension)."""
    if not re.search(r"[A-Za-z]", token):
        return False
    extension = _EXTENSION.search(token)
    if extension is None:
        return False
    name = token[: extension.start()].rsplit("/", 1)[-1]
    if not name or not re.search(r"[A-Za-z0-9]", name):
        return False
    return "/" in token or extension.group()[1:].lower() in CODE_EXTENSIONS


def _identifier_parts(token: str) -> list[str]:
    """Words of an identifier: split on ``._/-$`` and camel/Pascal case; digits are kept only
    glued to letters (``oauth2``), never as separate parts."""
    parts: list[str] = []
    for chunk in _SPLIT.split(token):
        if not chunk:
            continue
        for piece in chunk.split("_"):
            words = _CAMEL.findall(piece)
            merged: list[str] = []
            for word in words:  # "oauth2": a letters word and a digits word -> one part
                if word.isdigit() and merged:
                    merged[-1] += word
                else:
                    merged.append(word)
            parts.extend(word.lower() for word in merged if not word.isdigit())
    return parts


def _ascii_keywords(token: str) -> list[str]:
    """Keywords of one ASCII token. Stop words are dropped only as standalone words: the parts
    of an identifier or a path are all kept (``getUserName`` -> ``get``, ``user``, ``name``)."""
    lower = token.lower()
    if _looks_like_path(token):
        out = [lower]
        base = posixpath.basename(lower)
        if base != lower:
            out.append(base)
        extension = _EXTENSION.search(token)
        out.extend(_identifier_parts(token[: extension.start()] if extension else token))
        return [word for word in out if len(word) > 1]
    parts = _identifier_parts(token)
    if len(parts) <= 1:
        return [word for word in parts if len(word) > 1 and word not in STOP_WORDS]
    out = [lower] if len(lower) > 3 and any(len(part) > 1 for part in parts) else []
    out.extend(part for part in parts if len(part) > 1)
    return out


def _cjk_keywords(run: str) -> list[str]:
    out: list[str] = []
    for piece in _CJK_STOP.split(run):
        out.extend(piece)
        out.extend(piece[i : i + 2] for i in range(len(piece) - 1))
    return out


def keywords(text: str) -> list[str]:
    """The normalised keywords of ``text``, in first-occurrence order, without duplicates."""
    seen: dict[str, None] = {}
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] >= "\u3040":
            words = _cjk_keywords(token)
        else:
            token = token.strip(".-/\\$")
            if not token or (match.start() and text[match.start() - 1] == "#"
                             and _LINE_ANCHOR.fullmatch(token)):
                continue  # the "L12" of "file.py#L12"
            words = _ascii_keywords(token)
        for word in words:
            seen.setdefault(word, None)
    return list(seen)


def _weight(word: str) -> float:
    """A single CJK character is weak evidence (it also appears in the word's bigrams)."""
    return 0.25 if len(word) == 1 else 1.0


def similarity(a: Sequence[str], b: Sequence[str]) -> float:
    """How much two keyword lists are about the same thing, in [0, 1].

    A weighted *overlap coefficient* — shared weight / the smaller side's weight — damped while
    the shared evidence is thin: ``W(A∩B) / min(W(A), W(B)) × min(1, (W(A∩B) + 1) / 3)``, so one
    shared keyword counts two thirds and two or more count fully. Not plain Jaccard because
    follow-up questions are short ("and the login check?") and Jaccard punishes the length
    difference to the question they follow up on; the damping keeps a single common word from
    making two messages look identical. A CJK single character weighs 0.25 (its bigrams carry
    the meaning), every other keyword 1.
    """
    set_a, set_b = set(a), set(b)
    if not set_a or not set_b:
        return 0.0
    shared = sum(_weight(word) for word in set_a & set_b)
    if shared == 0:
        return 0.0
    smaller = min(sum(map(_weight, set_a)), sum(map(_weight, set_b)))
    return min(1.0, shared / smaller * min(1.0, (shared + 1.0) / 3.0))


def file_references(text: str) -> list[str]:
    """Every file reference in ``text`` as written: ``a/b.py:12``, ``b.py#L3``, ``src/x.go``."""
    seen: dict[str, None] = {}
    for match in _PATHISH.finditer(text):
        if _looks_like_path(match.group(1)):
            seen.setdefault(match.group(), None)
    return list(seen)


class FileIndex:
    """Known repository paths, indexed for finding mentions of them in prose."""

    def __init__(self, known_files: Iterable[str] = ()) -> None:
        self._paths: set[str] = set()
        self._by_base: dict[str, set[str]] = {}
        self.add(known_files)

    def add(self, paths: Iterable[str]) -> None:
        for path in paths:
            clean = _clean_path(path)
            if clean and clean not in self._paths:
                self._paths.add(clean)
                self._by_base.setdefault(posixpath.basename(clean), set()).add(clean)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and _clean_path(path) in self._paths

    def __len__(self) -> int:
        return len(self._paths)

    def resolve(self, candidate: str) -> str | None:
        """The one known path ``candidate`` names: exact, a unique path suffix, a unique
        basename; ``None`` when unknown or ambiguous."""
        clean = _clean_path(candidate)
        if not clean:
            return None
        if clean in self._paths:
            return clean
        matches = [path for path in self._by_base.get(posixpath.basename(clean), ())
                   if "/" not in clean or path.endswith("/" + clean) or clean.endswith("/" + path)]
        return matches[0] if len(matches) == 1 else None

    def mentioned(self, text: str) -> list[str]:
        seen: dict[str, None] = {}
        for match in _FILE_REF.finditer(text):
            resolved = self.resolve(match.group(1).rstrip("."))
            if resolved is not None:
                seen.setdefault(resolved, None)
        return list(seen)


def _clean_path(path: str) -> str:
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path.rstrip("/")


def mentioned_files(text: str, known_files: Collection[str]) -> list[str]:
    """Known files that ``text`` mentions — by path, ``path:line``/``path#Lx``, a unique path
    suffix or an unambiguous basename — as known paths, in order of first mention."""
    return FileIndex(known_files).mentioned(text)
