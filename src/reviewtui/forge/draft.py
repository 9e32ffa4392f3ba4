"""The person's review, as a forge review: a verdict, a summary and line comments.

Pure: from the kept review (``sessions.export.ExportedReview``: the verdict, the person's
comments, the accepted and untriaged findings) and the lines the diff shows, build what would be
sent. A finding with an applicable fix is anchored on the fix's lines with a ``suggestion``
block (``sessions.export.fix_block``), the only suggestion it holds (one the model wrote in its
text is shown as plain code); a comment or finding whose lines are not all in one hunk
of the diff is placed on the longest part of them that is (its body names all its lines), and
folded into the summary when none is, as is everything when the head moved since the review.
Each comment ends with a hidden ``<!-- reviewtui:fingerprint=KEY -->`` marker (the finding's
fingerprint, ``comment-ID`` for the person's own comments) and the summary with
``<!-- reviewtui:review -->``, so publishing again can find and edit them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from reviewtui.git.model import ChangeSet
from reviewtui.sessions.export import ExportedFinding, ExportedReview, fix_block
from reviewtui.sessions.markdown_text import code_span, inert_suggestions

Side = Literal["RIGHT", "LEFT"]
REVIEW_MARKER = "<!-- reviewtui:review -->"
_MARKER = re.compile(r"<!-- reviewtui:fingerprint=([^\s>]+) -->")
_SUGGESTION = re.compile(r"^`{3,}suggestion\s*$", re.MULTILINE)  # replaces the lines it is on
# A finding whose fix was applied here ("fixed") is still in the head that was reviewed: the
# pull request gets it (with its suggestion) until that head changes.
PUBLISHED_STATES = frozenset({"accepted", "open", "fixed"})
EVENTS = {"approve": "APPROVE", "request_changes": "REQUEST_CHANGES", "comment": "COMMENT"}


def marker(key: str) -> str:
    return f"<!-- reviewtui:fingerprint={key} -->"


_REFUSED = re.compile(r"<!-- reviewtui:refused=([^\s>]+) -->")
# The reasons of a comment the forge would not put on its line: the summary marks each such
# comment (``refused_keys``), so that publishing the same head again does not offer it again.
REFUSED = "refused by GitHub"
GITLAB_REFUSED = "refused by GitLab"  # a draft note answered HTTP 400/422
GITLAB_DROPPED = "not kept on its line by GitLab"  # published, but not found on its line
REFUSED_REASONS = (REFUSED, GITLAB_REFUSED, GITLAB_DROPPED)
SHORTENED = ("(Their text is left out: with it this summary would be longer than the forge "
             "takes. `reviewtui export` has it.)")


def refused_keys(summary: str) -> set[str]:
    """The comments a published summary holds because the forge refused their lines."""
    return set(_REFUSED.findall(summary))


def marker_key(body: str) -> str | None:
    """The fingerprint a published comment carries, if reviewtui wrote it: its last marker,
    the one reviewtui ends it with (the text before may quote one: a finding on this code)."""
    found = _MARKER.findall(body)
    return found[-1] if found else None


@dataclass(frozen=True, slots=True)
class DraftComment:
    key: str  # the fingerprint in its marker
    path: str
    start_line: int
    line: int
    side: Side
    body: str  # with the marker
    title: str  # one line, for listings and the summary
    # the name GitHub knows the file by in the diff, when not ``path``: a renamed file's new
    # name for a comment on its removed lines (GitHub has one path per file of the diff)
    diff_path: str | None = None

    @property
    def github_path(self) -> str:
        return self.diff_path or self.path

    @property
    def lines(self) -> str:
        same = self.start_line == self.line
        lines = f"L{self.line}" if same else f"L{self.start_line}-{self.line}"
        return lines if self.side == "RIGHT" else f"removed {lines}"

    def payload(self) -> dict[str, object]:
        """The comment as GitHub's create-review ``comments[]`` item."""
        item: dict[str, object] = {"path": self.github_path, "line": self.line,
                                   "side": self.side, "body": self.body}
        if self.start_line != self.line:
            item["start_line"] = self.start_line
            item["start_side"] = self.side
        return item


@dataclass(frozen=True, slots=True)
class Folded:
    comment: DraftComment
    reason: str  # "outside the diff", "the head moved since the review", "refused by GitHub"


@dataclass(frozen=True, slots=True)
class ReviewDraft:
    event: str  # APPROVE, REQUEST_CHANGES, COMMENT
    verdict_summary: str
    headline: str  # counts and the change, one line
    comments: tuple[DraftComment, ...]
    folded: tuple[Folded, ...] = ()
    notes: tuple[str, ...] = ()  # warnings shown at the top of the summary
    existing: tuple[str, ...] = field(default=())  # read-only listing of others' threads
    # comments published on their lines before the head moved: left there (edited if their
    # text changed), neither posted again nor copied into the summary
    left: tuple[DraftComment, ...] = ()

    def fold(self, keys: Iterable[str], reason: str) -> ReviewDraft:
        """This draft with the comments of ``keys`` moved into the summary."""
        moving = set(keys)
        return replace(self, comments=tuple(c for c in self.comments if c.key not in moving),
                       folded=self.folded + tuple(Folded(c, reason) for c in self.comments
                                                  if c.key in moving))

    def leave(self, keys: Iterable[str]) -> ReviewDraft:
        """This draft with the comments of ``keys`` left where an earlier publish put them."""
        staying = set(keys)
        return replace(self, comments=tuple(c for c in self.comments if c.key not in staying),
                       left=self.left + tuple(c for c in self.comments if c.key in staying))

    def with_note(self, note: str) -> ReviewDraft:
        return replace(self, notes=(*self.notes, note))

    def summary(self, limit: int | None = None) -> str:
        """The review's body: notes, the verdict's summary, the counts, the folded comments.
        Longer than ``limit`` characters (what the forge takes), the folded comments are
        named without their text, then the last of them counted only."""
        full = self._summary(brief=False)
        if limit is None or len(full) <= limit:
            return full
        kept = len(self.folded)
        while True:
            text = self._summary(brief=True, kept=kept)
            if len(text) <= limit or kept == 0:
                return text
            kept = max(0, kept - max(1, (len(text) - limit) // 80))

    def _summary(self, *, brief: bool, kept: int | None = None) -> str:
        out = [f"> **Note:** {note}" for note in self.notes]
        if out:
            out.append("")
        if self.verdict_summary.strip():
            out += [self.verdict_summary.strip(), ""]
        out.append(self.headline)
        if self.folded:
            out += ["", "#### Not on the diff's lines", ""]
            if brief:
                out += [SHORTENED, ""]
            shown = self.folded if kept is None else self.folded[:kept]
            for item in shown:
                c = item.comment
                text = c.title if brief else _strip_marker(c.body).replace("\n", "\n  ")
                refused = (f" <!-- reviewtui:refused={c.key} -->"
                           if any(r in item.reason for r in REFUSED_REASONS) else "")
                out.append(f"- {code_span(c.path)} {c.lines} ({item.reason}): {text}{refused}")
            if len(shown) < len(self.folded):
                out.append(f"- … and {len(self.folded) - len(shown)} more")
        out += ["", REVIEW_MARKER]
        return "\n".join(out)


def _strip_marker(body: str) -> str:
    return _MARKER.sub("", body).strip()


def commentable_lines(change_set: ChangeSet) -> dict[tuple[str, Side], list[range]]:
    """Per (path, side): the line ranges of each hunk, which a line comment may span."""
    found: dict[tuple[str, Side], list[range]] = {}
    for change in change_set.files:
        for hunk in change.hunks:
            if change.new_path and hunk.new_count:
                found.setdefault((change.new_path, "RIGHT"), []).append(
                    range(hunk.new_start, hunk.new_start + hunk.new_count))
            if change.old_path and hunk.old_count:
                found.setdefault((change.old_path, "LEFT"), []).append(
                    range(hunk.old_start, hunk.old_start + hunk.old_count))
    return found


def _in_one_hunk(hunks: Sequence[range], start: int, end: int) -> bool:
    return any(start in hunk and end in hunk for hunk in hunks)


def _overlap(hunks: Sequence[range], start: int, end: int) -> range | None:
    """The longest part of ``start``..``end`` that lies in one hunk (the first of equals)."""
    best: range | None = None
    for hunk in hunks:
        low, high = max(start, hunk.start), min(end, hunk.stop - 1)
        if low <= high and (best is None or high - low + 1 > len(best)):
            best = range(low, high + 1)
    return best


def _placed(draft: DraftComment, hunks: Sequence[range]) -> DraftComment | None:
    """``draft`` on the diff: as it is when its lines are in one hunk; else on the longest part
    of them that is (a forge takes a line comment on one hunk's lines only), its body saying
    which lines it is about; None when none of them is on the diff. A suggestion is never
    moved: it replaces exactly the lines it is on (``_finding_comment`` placed it)."""
    if _in_one_hunk(hunks, draft.start_line, draft.line):
        return draft
    part = _overlap(hunks, draft.start_line, draft.line)
    if part is None or _SUGGESTION.search(draft.body):
        return None
    note = f"(About {draft.path} {draft.lines}; placed on the lines of it that are in the diff.)"
    body, sep, mark = draft.body.rpartition("\n\n<!-- reviewtui:fingerprint=")
    text = f"{body}\n\n{note}{sep}{mark}" if sep else f"{draft.body}\n\n{note}"
    return replace(draft, start_line=part.start, line=part.stop - 1, body=text)


def _finding_comment(finding: ExportedFinding,
                     hunks: dict[tuple[str, Side], list[range]]) -> DraftComment:
    """A finding's line comment: on its lines (removed lines on the left side), or on the
    lines of its applicable fix (the right side: a suggestion replaces the lines it is on)."""
    title = f"{finding.severity} · {finding.title}"
    body = [f"**{title}**"]
    if finding.body:
        body += ["", inert_suggestions(finding.body)]
    if finding.suggestion:
        body += ["", f"Suggestion: {inert_suggestions(finding.suggestion)}"]
    side: Side = "LEFT" if finding.side == "old" else "RIGHT"
    start, end = finding.start_line, finding.end_line
    fix = finding.fix
    if fix is not None:
        right = hunks.get((finding.file_path, "RIGHT"), [])
        if fix.applicable and _in_one_hunk(right, fix.start_line, fix.end_line):
            if side == "LEFT":
                body += ["", f"(Found at {finding.place}; the suggestion replaces {fix.lines}.)"]
            side, start, end = "RIGHT", fix.start_line, fix.end_line
            body += fix_block(fix)
        else:
            text_fix = fix.model_copy(update={"applicable": False, "reason": fix.reason or (
                "its lines are not all in one hunk of the diff")})
            body += fix_block(text_fix)
    body += ["", marker(finding.fingerprint)]
    return DraftComment(finding.fingerprint, finding.file_path, start, end, side,
                        "\n".join(body), title)


def _renamed(change_set: ChangeSet) -> dict[str, str]:
    """Old path → new path of the files the change renames."""
    return {c.old_path: c.new_path for c in change_set.files
            if c.old_path and c.new_path and c.old_path != c.new_path}


def _on_the_diff(draft: DraftComment, renamed: dict[str, str]) -> DraftComment:
    """``draft`` with the name GitHub gives its file: a comment on the removed lines of a
    renamed file is on the left side of the file's new name."""
    if draft.side == "LEFT" and draft.path in renamed:
        return replace(draft, diff_path=renamed[draft.path])
    return draft


def build_draft(review: ExportedReview, change_set: ChangeSet) -> ReviewDraft:
    """The review to send for ``review`` of ``change_set``; comments off the diff folded."""
    hunks = commentable_lines(change_set)
    renamed = _renamed(change_set)
    placed: list[DraftComment] = []
    folded: list[Folded] = []
    for comment in review.comments:
        side: Side = "LEFT" if comment.side == "old" else "RIGHT"
        key = f"comment-{comment.comment_id}" if comment.comment_id is not None else (
            f"comment-{comment.file_path}-{comment.start_line}")
        draft = _on_the_diff(DraftComment(
            key, comment.file_path, comment.start_line, comment.end_line, side,
            f"{comment.body}\n\n{marker(key)}", comment.body.splitlines()[0][:80]), renamed)
        on_diff = _placed(draft, hunks.get((comment.file_path, side), []))
        (placed.append(on_diff) if on_diff is not None
         else folded.append(Folded(draft, "outside the diff")))
    for finding in review.findings:
        if finding.state not in PUBLISHED_STATES:
            continue
        draft = _on_the_diff(_finding_comment(finding, hunks), renamed)
        on_diff = _placed(draft, hunks.get((draft.path, draft.side), []))
        (placed.append(on_diff) if on_diff is not None
         else folded.append(Folded(draft, "outside the diff")))
    s = review.summary
    headline = (f"reviewtui: {s.reviewed} of {s.units} units reviewed · {s.skipped} skipped · "
                f"{len(review.comments)} comments · {len(review.findings)} findings")
    return ReviewDraft(EVENTS[review.verdict or "comment"], review.verdict_summary, headline,
                       tuple(placed), tuple(folded))
