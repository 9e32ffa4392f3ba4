"""Take back what an earlier publish put on a pull request's lines and the review no longer says.

A finding the person dismissed after publishing it, a comment they deleted: the review kept no
longer has it, but the forge still shows it, and publishing again only edited or posted what
the review has. ``github_retractions`` and ``gitlab_retractions`` pick the line comments to take
back: reviewtui's own (its fingerprint marker, written by the token's user: a colleague's
reviewtui comments are hers), published for the head that was reviewed (a comment on an earlier
head belongs to that head's review, left as it was sent), whose key the draft no longer holds
(neither on a line, nor in the summary, nor left where it was), or that this publish puts on
other lines of that head (the person moved it: the earlier copy is not left behind). GitHub:
the review comment is deleted, or, when others replied to it, edited to say it was taken back
(the REST API cannot resolve a thread, and the replies would answer nothing). GitLab: the note
is deleted, or, when others replied to it, its thread is resolved so that their replies keep
what they answer. ``sync.run_retractions`` sends
them one by one: one that fails is one line in the report, and the rest go on.
"""

from __future__ import annotations

from datetime import UTC, datetime

from reviewtui.forge.draft import ReviewDraft, marker, marker_key
from reviewtui.forge.github import GitHubReviewComment
from reviewtui.forge.gitlab import GitLabDiscussion
from reviewtui.forge.gitlab_sync import by_viewer as by_gitlab_viewer
from reviewtui.forge.sync import Operation, Retraction, by_viewer

WHY = "dismissed or deleted since it was published"
MOVED = "moved since: published again on its new lines"


def _why(key: str, posted: set[str]) -> str:
    return MOVED if key in posted else WHY


def kept_keys(draft: ReviewDraft) -> set[str]:
    """The keys the review still publishes: on a line, in the summary, or left where they are."""
    return ({c.key for c in draft.comments} | {f.comment.key for f in draft.folded}
            | {c.key for c in draft.left})


def title_of(body: str) -> str:
    """A published comment's first line, as the listings show it (without its bold marks)."""
    for line in body.splitlines():
        text = line.strip().strip("*").strip()
        if text:
            return text[:80]
    return "(empty)"


TAKEN_BACK = "<!-- reviewtui:taken-back -->"


def taken_back_body(body: str, key: str, why: str) -> str:
    """A published comment others answered, edited to say it was taken back: GitHub's REST
    API cannot resolve a thread, and deleting the comment leaves the replies answering
    nothing. Its marker stays, so a finding accepted again edits it back."""
    return (f"~~{title_of(body)}~~\n\n*This comment was taken back by the reviewer ({why}); "
            f"it is left here because others replied to it.*\n\n{TAKEN_BACK}\n{marker(key)}")


def github_retractions(prefix: str, comments: list[GitHubReviewComment], viewer: str | None,
                       head: str, keep: set[str], posted: set[str]) -> list[Retraction]:
    """The review comments to delete (``prefix``: ``repos/OWNER/REPO``), or, when others
    replied to one, to mark taken back. ``posted``: the keys this publish puts on their lines
    anew (moved to other lines of the same head): their earlier copies on this head are taken
    back too, not left where the comment was."""
    answered = {c.in_reply_to_id for c in comments
                if c.in_reply_to_id is not None and not by_viewer(c.user, viewer)}
    found: list[Retraction] = []
    for c in comments:
        key = marker_key(c.body)
        if (key is None or (key in keep and key not in posted) or c.in_reply_to_id is not None
                or not by_viewer(c.user, viewer) or (c.original_commit_id or c.commit_id) != head
                or TAKEN_BACK in c.body):
            continue
        where = f"{c.path} L{c.line}" if c.line is not None else f"{c.path} (outdated)"
        label = f"{where}: {title_of(c.body)}"
        why = _why(key, posted)
        if c.id in answered:
            op = Operation("PATCH", f"{prefix}/pulls/comments/{c.id}",
                           {"body": taken_back_body(c.body, key, why)},
                           f"mark comment {c.id} on {label} taken back ({why}; others replied "
                           "to it)")
        else:
            op = Operation("DELETE", f"{prefix}/pulls/comments/{c.id}", None,
                           f"retract comment {c.id} on {label} ({why})")
        found.append(Retraction(op, f"comment {c.id} on {where}", label, key))
    return found


def _stamp(text: str | None) -> datetime | None:
    try:
        found = datetime.fromisoformat(text) if text else None
    except ValueError:
        return None
    return found.replace(tzinfo=UTC) if found is not None and found.tzinfo is None else found


def _before(note_created: str | None, since: str | None) -> bool:
    """Whether a note was written before ``since`` (the review's start): GitLab moves a note
    onto a new head when its line is still there, so its head does not tell which review
    published it; a note older than the review was not published by it."""
    created, start = _stamp(note_created), _stamp(since)
    return created is not None and start is not None and created < start


def gitlab_retractions(mr_path: str, discussions: list[GitLabDiscussion], viewer: str | None,
                       head: str, keep: set[str], posted: set[str],
                       since: str | None = None) -> list[Retraction]:
    """The notes to delete or threads to resolve (``mr_path``: the merge request's API path);
    ``posted`` as for ``github_retractions``; ``since``: when the review began (notes written
    before it are an earlier review's, whatever head GitLab now places them on)."""
    found: list[Retraction] = []
    for discussion in discussions:
        if not discussion.notes:
            continue
        note = discussion.notes[0]
        key = marker_key(note.body)
        position = note.position
        if (key is None or (key in keep and key not in posted) or position is None
                or position.head_sha != head or note.resolved
                or not by_gitlab_viewer(note.author, viewer)
                or _before(note.created_at, since)):
            continue
        line = position.new_line if position.new_line is not None else position.old_line
        where = f"{position.new_path or position.old_path} L{line}"
        label = f"{where}: {title_of(note.body)}"
        why = _why(key, posted)
        if any(not n.system for n in discussion.notes[1:]):
            op = Operation("PUT", f"{mr_path}/discussions/{discussion.id}", {"resolved": True},
                           f"resolve the thread of note {note.id} on {label} ({why}; others "
                           "replied to it)")
        else:
            op = Operation("DELETE", f"{mr_path}/discussions/{discussion.id}/notes/{note.id}",
                           None, f"retract note {note.id} on {label} ({why})")
        found.append(Retraction(op, f"note {note.id} on {where}", label, key))
    return found
