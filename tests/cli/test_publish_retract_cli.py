"""``reviewtui publish`` after the person dismissed a finding or deleted a comment it had
published: the next publish takes the published comment back (GitHub: deletes the review
comment; GitLab: deletes the note, or resolves its thread when others replied), shows it in the
dry run, says so, and never touches a comment reviewtui did not publish for this review."""

from __future__ import annotations

from reviewtui.sessions import SessionStore
from tests.cli.conftest import CliRunner
from tests.support.forge_world import PullWorld, seed_review
from tests.support.gitlab_world import MergeRequestWorld


def _take_back(sid: str) -> None:
    """The person dismisses the finding on line 2 and deletes the comment on line 3."""
    with SessionStore() as store:
        store.set_finding_state(sid, "f-rate", "dismissed", "on second thought, intended")
        [comment] = store.comments(sid)
        assert comment.comment_id is not None
        store.delete_comment(sid, comment.comment_id)


def _github_ours(world: PullWorld) -> dict[int, str]:
    return {c["line"]: c["body"] for c in world.fake.comments[7]
            if "reviewtui:fingerprint" in c["body"]}


def test_a_dismissed_finding_and_a_deleted_comment_are_retracted_from_github(
        pull_world: PullWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", pull_world.local).code == 0
    sid = seed_review(pull_world)
    assert cli("publish", "--pr", "7", pull_world.local).code == 0
    assert set(_github_ours(pull_world)) == {2, 3}
    ids = {c["line"]: c["id"] for c in pull_world.fake.comments[7]}
    # a colleague's own reviewtui comment, and a plain one: never ours to take back
    theirs = pull_world.fake.add_comment(7, path="app/service.py", line=2, user="colleague",
                                         body="Hers.\n\n<!-- reviewtui:fingerprint=f-hers -->")
    plain = pull_world.fake.add_comment(7, path="app/service.py", line=3, body="Why?")
    _take_back(sid)

    dry = cli("publish", "--dry-run", "--pr", "7", pull_world.local)
    assert dry.code == 0, dry.err
    assert pull_world.fake.ops("DELETE") == []
    assert (f"DELETE /repos/octo/proj/pulls/comments/{ids[2]}  # retract comment {ids[2]} on "
            "app/service.py L2: P1 · Charge rate tripled") in dry.out
    assert (f"DELETE /repos/octo/proj/pulls/comments/{ids[3]}  # retract comment {ids[3]} on "
            "app/service.py L3: Is this covered by a test?") in dry.out

    done = cli("publish", "--pr", "7", pull_world.local)
    assert done.code == 0, done.err
    assert sorted(r.path for r in pull_world.fake.ops("DELETE")) == sorted(
        f"/repos/octo/proj/pulls/comments/{ids[n]}" for n in (2, 3))
    assert _github_ours(pull_world) == {2: theirs["body"]}  # hers stays
    assert plain in pull_world.fake.comments[7]
    assert "2 retracted" in done.out
    assert "retracted: app/service.py L2: P1 · Charge rate tripled" in done.out

    again = cli("publish", "--dry-run", "--pr", "7", pull_world.local)
    assert "DELETE" not in again.out  # nothing left to take back


def test_a_retraction_github_refuses_is_one_line_and_the_others_go_on(
        pull_world: PullWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", pull_world.local).code == 0
    sid = seed_review(pull_world)
    assert cli("publish", "--pr", "7", pull_world.local).code == 0
    ids = {c["line"]: c["id"] for c in pull_world.fake.comments[7]}
    pull_world.fake.undeletable.add(ids[2])
    _take_back(sid)
    done = cli("publish", "--pr", "7", pull_world.local)
    assert done.code == 0, done.err
    assert set(_github_ours(pull_world)) == {2}  # the refused one is still there, the other gone
    [line] = [x for x in done.out.splitlines() if "could not retract" in x]
    assert f"comment {ids[2]} on app/service.py L2" in line and "HTTP 403" in line
    assert "1 retracted" in done.out


def test_comments_of_an_earlier_heads_review_are_not_retracted_by_a_new_heads_review(
        pull_world: PullWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", pull_world.local).code == 0
    seed_review(pull_world)
    assert cli("publish", "--pr", "7", pull_world.local).code == 0
    pull_world.upstream.git("checkout", "-q", "feature")
    pull_world.upstream.write("app/extra.py", "def extra():\n    return 1\n")
    moved = pull_world.upstream.commit("more")
    pull_world.upstream.git("checkout", "-q", "main")
    pull_world.push_pull(7, moved)
    pull_world.fake.pulls[7]["head"]["sha"] = moved
    assert cli("index", "--pr", "7", pull_world.local).code == 0
    from reviewtui.app.open_pr import locate_pull, pull_selector
    from reviewtui.pipeline import load_change
    from reviewtui.sessions.review_records import ReviewVerdict

    _repo, target = locate_pull(pull_world.local, "7")
    loaded = load_change(pull_world.local, pull_selector(target))
    with SessionStore() as store:  # the new head's own review: a verdict only
        session = store.session_for_change(str(loaded.root), loaded.change_set.key, "pr")
        store.set_verdict(session.session_id, ReviewVerdict(verdict="comment", summary="Ok."))
    done = cli("publish", "--pr", "7", pull_world.local)
    assert done.code == 0, done.err
    assert pull_world.fake.ops("DELETE") == [] and set(_github_ours(pull_world)) == {2, 3}


def _gitlab_ours(world: MergeRequestWorld) -> list[dict[str, object]]:
    return [n for d in world.fake.discussions[7] for n in d["notes"]
            if "reviewtui:fingerprint" in n["body"]]


def test_a_dismissed_finding_is_retracted_from_gitlab_and_a_replied_one_resolved(
        mr_world: MergeRequestWorld, cli: CliRunner) -> None:
    world = mr_world
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    assert cli("publish", "--pr", "7", world.local).code == 0
    notes = {n["position"]["new_line"]: n for n in _gitlab_ours(world)}  # type: ignore[index]
    assert set(notes) == {2, 3}
    [replied] = [d for d in world.fake.discussions[7] if d["notes"][0] is notes[3]]
    replied["notes"].append(world.fake.note(7, "Good question, adding one.", "author",
                                           notes[3]["position"]))  # type: ignore[arg-type]
    hers = world.fake.add_comment(7, path="app/service.py", line=2, username="colleague",
                                  body="Hers.\n\n<!-- reviewtui:fingerprint=f-hers -->")
    _take_back(sid)
    mr = "/projects/group%2Fsub%2Fproj/merge_requests/7"

    dry = cli("publish", "--dry-run", "--pr", "7", world.local)
    assert dry.code == 0, dry.err
    assert world.fake.ops("DELETE") == []
    [rate] = [d for d in world.fake.discussions[7] if d["notes"][0] is notes[2]]
    assert (f"DELETE {mr}/discussions/{rate['id']}/notes/{notes[2]['id']}  # retract note "
            f"{notes[2]['id']} on app/service.py L2: P1 · Charge rate tripled") in dry.out
    assert (f"PUT {mr}/discussions/{replied['id']}  # resolve the thread of note "
            f"{notes[3]['id']} on app/service.py L3: Is this covered by a test?") in dry.out

    done = cli("publish", "--pr", "7", world.local)
    assert done.code == 0, done.err
    left = _gitlab_ours(world)
    assert [n["id"] for n in left] == [notes[3]["id"], hers["notes"][0]["id"]]
    assert all(n["resolved"] for n in replied["notes"])  # its replies stay, resolved
    assert "2 retracted" in done.out

    again = cli("publish", "--dry-run", "--pr", "7", world.local)
    assert "retract" not in again.out and "resolve the thread" not in again.out


def _move_comment(sid: str, line: int) -> None:
    """The person moves their comment to another line of the same head."""
    with SessionStore() as store:
        [comment] = store.comments(sid)
        store.save_comment(sid, comment.model_copy(
            update={"start_line": line, "end_line": line, "line_hash": ""}))


def test_a_comment_moved_to_other_lines_is_not_left_twice_on_github(
        pull_world: PullWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", pull_world.local).code == 0
    sid = seed_review(pull_world)
    assert cli("publish", "--pr", "7", pull_world.local).code == 0
    [old] = [c for c in pull_world.fake.comments[7] if c["line"] == 3]
    _move_comment(sid, 4)
    dry = cli("publish", "--dry-run", "--pr", "7", pull_world.local)
    assert f"DELETE /repos/octo/proj/pulls/comments/{old['id']}" in dry.out
    done = cli("publish", "--pr", "7", pull_world.local)
    assert done.code == 0, done.err
    mine = [c for c in pull_world.fake.comments[7] if c["body"].startswith("Is this covered")]
    assert [c["line"] for c in mine] == [4]  # on its new line only, not also on its old one


def test_a_comment_moved_to_other_lines_moves_on_gitlab(
        mr_world: MergeRequestWorld, cli: CliRunner) -> None:
    world = mr_world
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    assert cli("publish", "--pr", "7", world.local).code == 0
    _move_comment(sid, 4)
    done = cli("publish", "--pr", "7", world.local)
    assert done.code == 0, done.err
    mine = [n for n in _gitlab_ours(world) if str(n["body"]).startswith("Is this covered")]
    assert [n["position"]["new_line"] for n in mine] == [4]  # type: ignore[index]


def test_a_moved_comment_gitlab_does_not_keep_on_its_new_line_keeps_its_old_note(
        mr_world: MergeRequestWorld, cli: CliRunner) -> None:
    world = mr_world
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    assert cli("publish", "--pr", "7", world.local).code == 0
    world.fake.diff_lines[7] = {"app/service.py": {2, 3}}  # GitLab drops a note on line 4
    _move_comment(sid, 4)
    done = cli("publish", "--pr", "7", world.local)
    assert done.code == 0, done.err
    mine = [n for n in _gitlab_ours(world) if str(n["body"]).startswith("Is this covered")]
    assert [n["position"]["new_line"] for n in mine] == [3]  # type: ignore[index]
    assert "retracted" not in done.out
    assert "app/service.py L4: Is this covered by a test?" in done.out  # in the summary


def test_the_last_published_finding_dismissed_is_still_retracted(
        pull_world: PullWorld, cli: CliRunner) -> None:
    """No verdict, no comment, and the one finding published dismissed since: there is nothing
    left to publish, but what was published is still to be taken back."""
    from reviewtui.app.open_pr import locate_pull, pull_selector
    from reviewtui.pipeline import load_change
    from reviewtui.sessions.review_records import StoredFinding

    assert cli("index", "--pr", "7", pull_world.local).code == 0
    _repo, target = locate_pull(pull_world.local, "7")
    loaded = load_change(pull_world.local, pull_selector(target))
    with SessionStore() as store:
        sid = store.session_for_change(str(loaded.root), loaded.change_set.key, "pr").session_id
        store.merge_findings(sid, [StoredFinding(
            fingerprint="f-only", title="Charge rate tripled", severity="P1",
            file_path="app/service.py", start_line=2, end_line=2)], lambda _f: True)
        store.set_finding_state(sid, "f-only", "accepted")
    assert cli("publish", "--pr", "7", pull_world.local).code == 0
    assert set(_github_ours(pull_world)) == {2}
    with SessionStore() as store:
        store.set_finding_state(sid, "f-only", "dismissed", "not a problem")
    done = cli("publish", "--pr", "7", pull_world.local)
    assert done.code == 0, done.err
    assert _github_ours(pull_world) == {} and "1 retracted" in done.out
    again = cli("publish", "--pr", "7", pull_world.local)
    assert again.code == 2 and "nothing to publish" in again.err  # nothing left to take back


def test_notes_gitlab_carried_to_a_new_head_are_not_retracted_by_that_heads_new_review(
        mr_world: MergeRequestWorld, cli: CliRunner) -> None:
    """GitLab moves a note onto the new head when its line is still there (its position's
    head_sha becomes the new head's): a fresh review of the new head, which never had those
    comments, must not take back what the earlier review published."""
    world = mr_world
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    assert cli("publish", "--pr", "7", world.local).code == 0
    published = {n["id"] for n in _gitlab_ours(world)}
    assert len(published) == 2
    world.upstream.git("checkout", "-q", "feature")
    world.upstream.write("app/extra.py", "def extra():\n    return 1\n")
    moved = world.upstream.commit("more")
    world.upstream.git("checkout", "-q", "main")
    world.push_mr(7, moved)
    mr = world.fake.mrs[7]
    mr["sha"] = moved
    mr["diff_refs"]["head_sha"] = moved  # type: ignore[index]
    for note in _gitlab_ours(world):  # what GitLab's position tracing does after the push
        note["position"]["head_sha"] = moved  # type: ignore[index]
    assert cli("index", "--pr", "7", world.local).code == 0
    from reviewtui.app.open_pr import locate_pull, pull_selector
    from reviewtui.pipeline import load_change
    from reviewtui.sessions.review_records import ReviewVerdict

    _repo, target = locate_pull(world.local, "7")
    loaded = load_change(world.local, pull_selector(target))
    with SessionStore() as store:  # the new head's own review: a verdict only
        session = store.session_for_change(str(loaded.root), loaded.change_set.key, "pr")
        store.set_verdict(session.session_id, ReviewVerdict(verdict="comment", summary="Ok."))
    done = cli("publish", "--pr", "7", world.local)
    assert done.code == 0, done.err
    assert world.fake.ops("DELETE") == [] and "retracted" not in done.out
    assert {n["id"] for n in _gitlab_ours(world)} == published


def test_a_github_comment_others_replied_to_is_marked_taken_back_not_deleted(
        pull_world: PullWorld, cli: CliRunner) -> None:
    """GitHub's REST API cannot resolve a thread: deleting a comment others answered left
    their replies answering nothing. It is edited to say it was taken back instead, once."""
    assert cli("index", "--pr", "7", pull_world.local).code == 0
    sid = seed_review(pull_world)
    assert cli("publish", "--pr", "7", pull_world.local).code == 0
    ids = {c["line"]: c["id"] for c in pull_world.fake.comments[7]}
    reply = pull_world.fake.add_comment(7, path="app/service.py", line=2, user="author",
                                        body="It is intended, see the ticket.", reply_to=ids[2])
    _take_back(sid)

    done = cli("publish", "--pr", "7", pull_world.local)
    assert done.code == 0, done.err
    deleted = [r.path for r in pull_world.fake.ops("DELETE")]
    assert deleted == [f"/repos/octo/proj/pulls/comments/{ids[3]}"]  # no one answered it
    [kept] = [c for c in pull_world.fake.comments[7] if c["id"] == ids[2]]
    assert kept["body"].startswith("~~P1 · Charge rate tripled~~")
    assert "taken back by the reviewer" in kept["body"]
    assert "reviewtui:fingerprint=f-rate" in kept["body"]
    assert reply in pull_world.fake.comments[7]
    assert "2 retracted" in done.out

    again = cli("publish", "--dry-run", "--pr", "7", pull_world.local)
    assert again.code == 0, again.err
    assert f"pulls/comments/{ids[2]}" not in again.out  # taken back once, not again
