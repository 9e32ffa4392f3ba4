"""The contract the GitLab tests check against catches drift: a wrongly typed answer, a missing
required field, a request body GitLab would refuse (not a check that cannot fail)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.gitlab_server import FakeGitLab

MR = "/api/v4/projects/g%2Fp/merge_requests/7"


def _caught(check: Callable[[], None]) -> str:
    with pytest.raises(AssertionError) as info:
        check()
    return str(info.value)


def test_answers_are_checked_against_the_description_and_the_handwritten_schema() -> None:
    fake = FakeGitLab()
    mr = fake.add_mr(7, head_sha="a" * 40, base_sha="b" * 40, title="t", labels=("x",))
    discussion = fake.add_comment(7, path="a.py", line=2, body="why?")
    contract = fake.contract
    contract.check_response("GET", MR, 200, mr)  # labels: a list, as GitLab sends it
    contract.check_response("GET", MR + "/discussions", 200, [discussion])
    assert "iid" in _caught(lambda: contract.check_response("GET", MR, 200, {**mr, "iid": "7"}))
    note = {k: v for k, v in discussion["notes"][0].items() if k != "author"}
    assert "'author' is a required property" in _caught(lambda: contract.check_response(
        "GET", MR + "/discussions", 200, [{**discussion, "notes": [note]}]))
    assert "'message' is a required property" in _caught(lambda: contract.check_response(
        "GET", MR, 404, {"error": "no message"}))
    contract.check_response("GET", MR, 404, {"message": "404 Not found"})


def test_requests_are_checked_too() -> None:
    contract = FakeGitLab().contract
    assert "position" in _caught(lambda: contract.check_request(
        "POST", MR + "/draft_notes", {"note": "x", "position": {"base_sha": "a"}}))
    assert "modifyMergeRequestThreadNote" in _caught(lambda: contract.check_request(
        "PUT", MR + "/discussions/abc/notes/3", {"body": "x", "resolved": True}))
    assert "takes no body" in _caught(lambda: contract.check_request(
        "POST", MR + "/draft_notes/bulk_publish", {}))
    assert "not an operation" in _caught(lambda: contract.check_request(
        "POST", MR + "/discussions", {"body": "x"}))
