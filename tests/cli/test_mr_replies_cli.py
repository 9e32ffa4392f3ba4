"""Others' replies to the notes reviewtui published on a GitLab merge request are shown with the
review threads already there (``publish --dry-run``, the workbench), as on GitHub: the person
sees the author's answer to their comment. Only reviewtui's own note is left out."""

from __future__ import annotations

from tests.cli.conftest import CliRunner
from tests.support.forge_world import seed_review
from tests.support.gitlab_world import MergeRequestWorld


def test_a_reply_to_a_published_note_is_shown_with_the_threads(
        mr_world: MergeRequestWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", mr_world.local).code == 0
    seed_review(mr_world)
    assert cli("publish", "--pr", "7", mr_world.local).code == 0
    [ours] = [d for d in mr_world.fake.discussions[7]
              if d["notes"][0]["body"].startswith("Is this covered")]
    first = ours["notes"][0]
    ours["notes"].append(mr_world.fake.note(7, "Yes: test_charge covers it.", "author",
                                            first["position"]))
    dry = cli("publish", "--dry-run", "--pr", "7", mr_world.local)
    assert dry.code == 0, dry.err
    assert "↳ app/service.py L3 @author: Yes: test_charge covers it." in dry.out
    assert "@reviewer: Is this covered" not in dry.out  # our own note is not listed
