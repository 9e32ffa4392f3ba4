"""Write an accepted candidate into ``.reviewtui/learned_rules.toml``.

The file is edited, not regenerated (``tomlkit``): the person's comments, order and other tables
stay as they are. A learned rule for the same kind (tags, language, paths) is updated in place;
otherwise a ``[[learned]]`` table is appended, with a comment saying where it came from and an
``origin`` table (candidate, when, how many samples from how many changes and files). The new
text is validated as a rule pack before it replaces the old file (atomically), so the file
always passes ``reviewtui rules check``.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import AoT, Array, Table

from reviewtui.errors import ConfigError, LearningError
from reviewtui.rules.learning.model import Candidate
from reviewtui.rules.learning.rejections import write_atomically
from reviewtui.rules.packs import REPO_DIR, as_layer
from reviewtui.rules.schema import LearnedOrigin, LearnedRule

FILE_NAME = "learned_rules.toml"
HEADER = ("Learned rules: units of a kind get a context level. 'reviewtui rules learn "
          "--accept ID'",
          "writes them here; edit or delete them freely ('reviewtui rules check' validates "
          "the file,",
          "'reviewtui rules explain UNIT' names the rule that decided a unit).")


def learned_rules_path(repo_root: Path) -> Path:
    return repo_root / REPO_DIR / FILE_NAME


def learned_rule(candidate: Candidate, pack: str, now: str) -> LearnedRule:
    return LearnedRule(
        tags=list(candidate.key.tags), language=candidate.key.language,
        paths=list(candidate.key.paths), context_level=candidate.level.value,
        confidence=candidate.confidence, samples=candidate.samples,
        origin=LearnedOrigin(candidate=candidate.id, accepted=now, agreeing=candidate.agreeing,
                             changes=candidate.changes, files=candidate.files,
                             llm=candidate.llm, user=candidate.user, pack=pack))


def provenance_comment(candidate: Candidate, now: str) -> str:
    return (f"accepted {candidate.id} on {now[:10]}: {candidate.agreeing} of "
            f"{candidate.samples} samples said {candidate.level.value} ({candidate.llm} llm, "
            f"{candidate.user} user), from {candidate.changes} changes, {candidate.files} files")


_ORDER = ("tags", "language", "paths", "context_level", "confidence", "samples", "origin")


def _fields(rule: LearnedRule) -> dict[str, Any]:
    """The rule as a table, in reading order: the kind, then what it says, then its origin."""
    data = rule.model_dump(mode="json", exclude_none=True)
    if not data.get("paths"):
        data.pop("paths", None)
    return {key: data[key] for key in _ORDER if key in data}


def _same_kind(item: Any, rule: LearnedRule) -> bool:
    if not isinstance(item, dict):
        return False
    return (sorted(item.get("tags") or []) == sorted(rule.tags)
            and item.get("language") == rule.language
            and sorted(item.get("paths") or []) == sorted(rule.paths))


def _table(rule: LearnedRule, comment: str) -> Table:
    table = tomlkit.table()
    table.add(tomlkit.comment(comment))
    for key, value in _fields(rule).items():
        if key == "origin":
            inline = tomlkit.inline_table()
            inline.update(value)
            table.add(key, inline)
        else:
            table.add(key, value)
    return table


def _update(item: Any, rule: LearnedRule) -> None:
    """An existing table or inline table of the same kind: new values, its comments kept."""
    fields = _fields(rule)
    for key in ("context_level", "confidence", "samples"):
        item[key] = fields[key]
    origin = fields.get("origin")
    if origin is not None and isinstance(item, Table):
        inline = tomlkit.inline_table()
        inline.update(origin)
        item["origin"] = inline
    elif origin is not None:
        item["origin"] = origin


def merged_text(existing: str | None, rule: LearnedRule, comment: str,
                path: Path) -> tuple[str, bool]:
    """The file's new text with ``rule`` in it; True when a rule of its kind was replaced."""
    try:
        doc = tomlkit.parse(existing) if existing is not None else tomlkit.document()
    except TOMLKitError as exc:
        raise LearningError(f"{path}: not valid TOML: {exc}",
                            hint="fix it first; nothing was changed") from None
    if existing is None:
        for line in HEADER:
            doc.add(tomlkit.comment(line))
    learned = doc.get("learned")
    replaced = False
    if isinstance(learned, AoT | Array):
        for item in learned:
            if _same_kind(item, rule):
                _update(item, rule)
                replaced = True
                break
        if not replaced and isinstance(learned, AoT):
            if len(learned):
                learned[-1].add(tomlkit.nl())
            learned.append(_table(rule, comment))
        elif not replaced:
            learned.append(_fields(rule))
    elif learned is None:
        doc.add(tomlkit.nl())
        doc.add("learned", tomlkit.aot())
        doc["learned"].append(_table(rule, comment))
    else:
        raise LearningError(f"{path}: 'learned' is not a list of tables",
                            hint="fix it first; nothing was changed")
    return tomlkit.dumps(doc), replaced


def write_learned_rule(path: Path, rule: LearnedRule, comment: str) -> bool:
    """Put ``rule`` into ``path``; True when it replaced a rule of the same kind.
    ``LearningError`` when the file cannot be read, would not validate, or cannot be written
    -- in each case the file is left as it was."""
    try:
        existing: str | None = path.read_text(encoding="utf-8-sig")  # (a BOM is dropped)
    except (FileNotFoundError, NotADirectoryError):
        existing = None
    except (OSError, UnicodeDecodeError) as exc:
        raise LearningError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}",
                            hint="nothing was changed") from None
    if existing is not None and not os.access(path, os.W_OK):
        raise LearningError(f"cannot write {path}: the file is read-only",
                            hint="nothing was changed")
    text, replaced = merged_text(existing, rule, comment, path)
    try:
        as_layer(tomllib.loads(text), path)
    except (ConfigError, tomllib.TOMLDecodeError) as exc:  # a bug: never write a broken pack
        raise LearningError(f"{path}: the rule would not validate ({exc})",
                            hint="nothing was changed") from None
    write_atomically(path, text)
    return replaced
