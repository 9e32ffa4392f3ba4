"""Candidate rules from evidence records: which samples count, how kinds are chosen, the
thresholds, safety, and writing an accepted rule into a file the person also edits."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from reviewtui.errors import LearningError
from reviewtui.models import ContextLevel
from reviewtui.plan import EvidenceLog
from reviewtui.plan.schema import ConflictRecord
from reviewtui.rules import RulePack
from reviewtui.rules.engine import best_learned
from reviewtui.rules.learning import accept, learn
from reviewtui.rules.learning.model import Candidate
from reviewtui.rules.learning.writer import merged_text
from reviewtui.rules.packs import check_pack_file, pack_identity
from reviewtui.rules.schema import LearnedOrigin, LearnedRule, LearningSettings, RoleRule

PACK = RulePack(roles={"test": RoleRule(tags=["test_file"])})
PACK_ID = pack_identity(PACK)
TEST = ("in_single_function", "test_file")


def record(n: int, path: str, said: str | None, *, tags: tuple[str, ...] = TEST,
           rule: str = "function", source: str = "llm", risk: str = "low",
           pack: str | None = PACK_ID, when: str = "2024-05-01T10:00:00+00:00",
           skip: bool | None = None, language: str = "python") -> ConflictRecord:
    data: dict[str, Any] = {
        "timestamp": when, "kind": "user_override" if source == "user" else "level_differs",
        "source": source, "unit_id": f"u_{n}", "file_path": path, "lines": f"L{n}",
        "language": language, "tags": list(tags), "rule_context_level": rule,
        "rule_confidence": 0.7, "risk": risk, "pack": pack, "change": f"commit:{n}"}
    if source == "user":
        data |= {"user_level": said, "user_skip": skip}
    else:
        data |= {"llm_context_level": said, "llm_reason": f"reason {n}"}
    return ConflictRecord.model_validate(data)


def _learn(tmp_path: Path, records: list[ConflictRecord],
           pack: RulePack = PACK) -> list[Candidate]:
    git_dir = tmp_path / ".git"
    log = EvidenceLog(git_dir / "reviewtui" / "conflicts.jsonl")
    log.path.parent.mkdir(parents=True, exist_ok=True)
    log.path.write_text("".join(r.model_dump_json() + "\n" for r in records))
    return learn(tmp_path, git_dir, pack).candidates


def test_a_kind_that_spans_shapes_of_change_is_learned_for_the_role(tmp_path: Path) -> None:
    records = [record(1, "tests/a.py", "diff_only"),
               record(2, "tests/b.py", "diff_only", tags=("complete_function", "test_file")),
               record(3, "tests/c.py", "diff_only", tags=("test_file",)),
               record(4, "app/x.py", "function", tags=("in_single_function",))]
    [candidate] = _learn(tmp_path, records)
    assert candidate.key.tags == ["test_file"] and candidate.status == "ready"
    assert (candidate.samples, candidate.files, candidate.changes) == (3, 3, 3)


def test_thresholds_make_not_yet_with_the_reasons(tmp_path: Path) -> None:
    two = [record(1, "tests/a.py", "diff_only"), record(2, "tests/b.py", "diff_only")]
    [few] = _learn(tmp_path, two)
    assert few.status == "not_yet"
    assert few.reasons == ["2 samples, fewer than learning.min_samples (3)"]
    mixed = [*two, record(3, "tests/c.py", "file_context"), record(4, "tests/d.py", "diff_only"),
             record(5, "tests/e.py", "full_file")]
    [split] = _learn(tmp_path, mixed)
    assert (split.level, split.agreeing, split.samples) == (ContextLevel.DIFF_ONLY, 3, 5)
    assert split.status == "not_yet"
    assert split.reasons == ["agreement 0.60 is below learning.min_agreement (0.75)"]
    assert [e.said for e in split.examples][-1] in ("file_context", "full_file")  # the dissent
    looser = PACK.model_copy(update={"learning": LearningSettings(min_agreement=0.6)})
    assert _learn(tmp_path, mixed, looser)[0].status == "ready"


def test_a_mixed_kind_consistent_in_one_folder_gets_a_path_glob(tmp_path: Path) -> None:
    tags = ("in_single_function",)
    records = [record(n, f"gen/m{n}.py", "diff_only", tags=tags) for n in range(3)]
    records += [record(n, f"app/m{n}.py", "file_context", tags=tags) for n in range(3, 5)]
    candidates = _learn(tmp_path, records)
    ready = [c for c in candidates if c.status == "ready"]
    assert [(c.key.tags, c.key.paths, c.level) for c in ready] == [
        (["in_single_function"], ["gen/**"], ContextLevel.DIFF_ONLY)]
    rule = LearnedRule(tags=list(tags), paths=["gen/**"], context_level="diff_only",
                       confidence=0.8, samples=3)
    assert best_learned([rule], tags, "python", "gen/sub/m.py") is rule
    assert best_learned([rule], tags, "python", "app/gen/m.py") is None


def test_a_folder_whose_name_is_a_glob_gets_a_glob_that_matches_it(tmp_path: Path) -> None:
    """``[gen]/`` (as Next.js names folders) was proposed as ``[gen]/**``: a glob matching
    ``g/``, ``e/`` or ``n/`` and never ``[gen]/``, so the accepted rule changed nothing."""
    tags = ("in_single_function",)
    records = [record(n, f"[gen]/m{n}.py", "diff_only", tags=tags) for n in range(3)]
    records += [record(n, f"app/m{n}.py", "file_context", tags=tags) for n in range(3, 5)]
    [ready] = [c for c in _learn(tmp_path, records) if c.status == "ready"]
    rule = LearnedRule(tags=list(tags), paths=ready.key.paths, context_level="diff_only",
                       confidence=0.8, samples=3)
    assert best_learned([rule], tags, "python", "[gen]/sub/m.py") is rule
    assert best_learned([rule], tags, "python", "g/m.py") is None


def test_only_the_latest_word_of_each_source_counts(tmp_path: Path) -> None:
    records = [record(1, "tests/a.py", "full_file", source="user"),
               record(1, "tests/a.py", "diff_only", source="user"),  # changed their mind
               record(1, "tests/a.py", "diff_only"),  # the planner on the same unit
               record(2, "tests/b.py", "diff_only", source="user"),
               record(2, "tests/b.py", None, source="user"),  # taken back
               record(3, "tests/c.py", "diff_only")]
    [candidate] = _learn(tmp_path, records)
    assert (candidate.samples, candidate.user, candidate.llm) == (3, 1, 2)
    assert candidate.files == 2 and candidate.examples[0].source == "user"


def test_stale_evidence_is_counted_apart_and_old_lines_are_stale(tmp_path: Path) -> None:
    records = [record(n, f"tests/t{n}.py", "diff_only", pack="0ld0ld0ld0ld") for n in range(3)]
    records.append(record(9, "tests/t9.py", "diff_only", pack=None))
    assert _learn(tmp_path, records) == []
    fresh = [record(n, f"tests/f{n}.py", "diff_only") for n in range(10, 13)]
    [candidate] = _learn(tmp_path, records + fresh)
    assert (candidate.samples, candidate.stale) == (3, 4)


def test_a_learned_rule_never_lowers_high_risk_units(tmp_path: Path) -> None:
    risky = [record(n, f"auth/m{n}.py", "diff_only", tags=("security_sensitive",),
                    rule="file_context",
                    risk="high") for n in range(4)]
    [candidate] = _learn(tmp_path, risky)
    assert candidate.status == "blocked" and "never lowers a high-risk unit" in \
        candidate.reasons[0]
    (tmp_path / ".reviewtui").mkdir()
    with pytest.raises(LearningError, match="is not ready: a learned rule never lowers"):
        accept(tmp_path, tmp_path / ".git", PACK, candidate.id)
    raised = [record(n, f"auth/m{n}.py", "full_file", tags=("security_sensitive",),
                     rule="file_context", risk="high") for n in range(4)]
    assert _learn(tmp_path, raised)[0].status == "ready"  # more context is always allowed


def test_evidence_a_learned_rule_already_holds_is_not_proposed_again(tmp_path: Path) -> None:
    records = [record(n, f"tests/t{n}.py", "diff_only") for n in range(3)]
    origin = LearnedOrigin(candidate="c_x", accepted="2024-05-01T10:00:00+00:00", agreeing=3,
                           changes=3, files=3)
    rule = LearnedRule(tags=list(TEST), language="python", context_level="diff_only",
                       confidence=0.8, samples=3, origin=origin)
    pack = PACK.model_copy(update={"learned": [rule]})
    assert _learn(tmp_path, records, pack) == []
    later = [record(n, f"tests/t{n}.py", "function", rule="diff_only",
                    when="2024-06-01T10:00:00+00:00", source="user") for n in range(5, 8)]
    [back] = _learn(tmp_path, records + later, pack)  # the person disagrees with the rule
    assert (back.level, back.samples) == (ContextLevel.FUNCTION, 3)


def _candidate(tmp_path: Path) -> Candidate:
    return _learn(tmp_path, [record(n, f"tests/t{n}.py", "diff_only") for n in range(3)])[0]


def test_writing_keeps_the_persons_comments_and_replaces_the_same_kind(tmp_path: Path) -> None:
    candidate = _candidate(tmp_path)
    mine = ("# mine: keep\n[learning]\nmin_samples = 3  # low on purpose\n\n"
            "[[learned]]\ntags = ['doc_file']  # docs\ncontext_level = 'local'\n"
            "confidence = 0.9\nsamples = 10\n")
    rule = LearnedRule(tags=list(TEST), language="python", context_level="diff_only",
                       confidence=0.8, samples=3)
    path = tmp_path / "learned_rules.toml"
    text, replaced = merged_text(mine, rule, "accepted c_1", path)
    assert text.startswith(mine) and not replaced
    assert "# accepted c_1\ntags = [" in text
    path.write_text(text)
    assert len(check_pack_file(path).learned) == 2
    again, replaced = merged_text(text.replace("# accepted c_1\n", "# accepted c_1 -- ok\n"),
                                  rule.model_copy(update={"context_level": "function",
                                                          "samples": 7}), "accepted c_2", path)
    assert replaced and "# accepted c_1 -- ok\n" in again and "c_2" not in again
    assert [r["samples"] for r in tomllib.loads(again)["learned"]] == [10, 7]
    inline, _ = merged_text("learned = [{tags = ['x'], context_level = 'local', "
                            "confidence = 0.5, samples = 3}]\n", rule, "c", path)
    assert [r["tags"] for r in tomllib.loads(inline)["learned"]] == [["x"], list(TEST)]
    assert candidate.status == "ready"


def test_a_broken_learned_rules_file_is_left_alone(tmp_path: Path) -> None:
    candidate = _candidate(tmp_path)
    target = tmp_path / ".reviewtui" / "learned_rules.toml"
    target.parent.mkdir()
    target.write_text("[[learned]\ntags = \n")
    with pytest.raises(LearningError, match=r"learned_rules.toml: not valid TOML"):
        accept(tmp_path, tmp_path / ".git", PACK, candidate.id)
    assert target.read_text() == "[[learned]\ntags = \n"
    target.write_text("learned = 3\n")
    with pytest.raises(LearningError, match="'learned' is not a list of tables"):
        accept(tmp_path, tmp_path / ".git", PACK, candidate.id)
