"""The review index is built from trusted units without validating each model again: what it
holds must still be exactly what validating the same data gives."""

from __future__ import annotations

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.models import ReviewIndex
from reviewtui.pipeline import load_change
from reviewtui.rules.scanners import ScanReport
from tests.conftest import GitRepoBuilder


def _change(repo: GitRepoBuilder) -> None:
    repo.write("app/views.py", "def login(request):\n    return check(request.password)\n")
    repo.write("README.md", "# app\n")
    repo.commit("base")
    repo.write("app/views.py", "import subprocess\n\n\ndef login(request):\n"
               "    subprocess.run(request.GET['cmd'], shell=True)\n"
               "    return check(request.password, strict=True)\n")
    repo.write("README.md", "# app\n\nLogin now runs a command.\n")
    repo.write("tests/test_views.py", "def test_login():\n    assert True\n")


def test_the_index_is_what_validation_gives(repo: GitRepoBuilder) -> None:
    _change(repo)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL), use_cache=False)
    for scan in (None, ScanReport()):
        index = loaded.review_index(scan)
        assert len(index.units) >= 3
        assert any(u.rule_extra_requests for u in index.units)
        validated = ReviewIndex.model_validate(index.model_dump())
        assert validated.model_dump_json(indent=2) == index.model_dump_json(indent=2)
        assert validated.model_dump() == index.model_dump()
        for unit in index.units:
            assert isinstance(unit.rule_confidence, float)
            assert isinstance(unit.priority_score, float)
            assert (unit.scanner_issues is None) == (scan is None)


def test_scoring_while_building_is_building_then_scoring(repo: GitRepoBuilder) -> None:
    from reviewtui.rules.index_fields import rule_fields, scored_review_index
    from reviewtui.units import build_review_index

    _change(repo)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL), use_cache=False)
    at_once = scored_review_index(loaded.change_set, loaded.units, loaded.suggestions)
    # the reference: the index built without rule fields, each unit copied with them
    built = build_review_index(loaded.change_set, loaded.units)
    after = built.model_copy(update={
        "units": [u.model_copy(update=rule_fields(loaded.suggestions[u.unit_id]))
                  for u in built.units],
        "summary": built.summary.model_copy(update={"risk_distribution": {
            risk: sum(s.risk.value == risk for s in loaded.suggestions.values())
            for risk in ("critical", "high", "medium", "low")}})})
    at_once.review_metadata.timestamp = after.review_metadata.timestamp  # built a moment apart
    assert at_once.model_dump_json(indent=2) == after.model_dump_json(indent=2)
    assert at_once == after
    assert any(u.rule_confidence is not None for u in at_once.units)


def test_json_goes_out_as_the_models_text(repo: GitRepoBuilder) -> None:
    import io

    from reviewtui.cli.index import write_json

    _change(repo)
    index = load_change(repo.root, ChangeSelector(SelectorMode.ALL),
                        use_cache=False).review_index()
    text = index.model_dump_json(indent=2) + "\n"
    for encoding in ("utf-8", "UTF8", "latin-1"):  # a byte buffer takes the bytes
        raw = io.BytesIO()
        stream = io.TextIOWrapper(raw, encoding=encoding)
        stream.write("before\n")
        write_json(index, stream)
        stream.flush()
        assert raw.getvalue() == ("before\n" + text).encode(encoding)
    plain = io.StringIO()  # no buffer: the text
    write_json(index, plain)
    assert plain.getvalue() == text
