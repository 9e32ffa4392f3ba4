"""The change's stated purpose in the export: JSON (``ExportedIntent``), Markdown, SARIF.

An export is read by people who did not see the workbench: it starts with what the change says
it is for (the headline, the description, the linked issues, the commits), so that findings of
the ``intent_mismatch`` category read against it. At most ``MAX_EXPORTED_COMMITS`` commits are
listed (most recent first); ``total_commits`` always says how many there are.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from reviewtui.git.intent import ChangeIntent

MAX_EXPORTED_COMMITS = 100
MAX_MARKDOWN_COMMITS = 20
MAX_DESCRIPTION_LINES = 30


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExportedTrailer(_Model):
    key: str
    value: str


class ExportedCommit(_Model):
    sha: str
    subject: str
    body: str = ""
    trailers: list[ExportedTrailer] = Field(default_factory=list)
    merge: bool = False


class ExportedIntent(_Model):
    """What the change says it is for (``git.intent.ChangeIntent``), secrets redacted."""

    headline: str
    branch: str | None = None
    description: str | None = None
    description_source: str | None = None  # --description, workbench or config
    issues: list[str] = Field(default_factory=list)
    total_commits: int = 0
    commits: list[ExportedCommit] = Field(default_factory=list)  # most recent first

    @classmethod
    def of(cls, intent: ChangeIntent) -> ExportedIntent:
        return cls(
            headline=intent.headline(), branch=intent.branch, description=intent.description,
            description_source=intent.description_source, issues=list(intent.issues),
            total_commits=intent.total_commits,
            commits=[ExportedCommit(sha=c.sha, subject=c.subject, body=c.body, merge=c.merge,
                                    trailers=[ExportedTrailer(key=t.key, value=t.value)
                                              for t in c.trailers])
                     for c in intent.commits[:MAX_EXPORTED_COMMITS]])


def intent_markdown_lines(intent: ExportedIntent) -> list[str]:
    """The top of the Markdown export: the headline, the description quoted, the issues and
    the latest commits' subjects."""
    out = [f"**Stated purpose:** {intent.headline}", ""]
    if intent.description:
        lines = intent.description.splitlines()
        out += [f"> {line}".rstrip() for line in lines[:MAX_DESCRIPTION_LINES]]
        if len(lines) > MAX_DESCRIPTION_LINES:
            out.append(f"> … {len(lines) - MAX_DESCRIPTION_LINES} more lines")
        out.append("")
    if intent.issues:
        out += ["Linked issues: " + ", ".join(intent.issues), ""]
    if intent.commits:
        shown = intent.commits[:MAX_MARKDOWN_COMMITS]
        out.append(f"Commits ({intent.total_commits}, most recent first):")
        out += [f"- `{c.sha[:10]}` {c.subject or '(empty commit message)'}" for c in shown]
        if intent.total_commits > len(shown):
            out.append(f"- … and {intent.total_commits - len(shown)} more")
        out.append("")
    return out


def intent_sarif(intent: ExportedIntent) -> dict[str, Any]:
    """The SARIF run's ``intent`` property bag."""
    return {"headline": intent.headline, "branch": intent.branch,
            "description": intent.description, "issues": intent.issues,
            "totalCommits": intent.total_commits,
            "commits": [{"sha": c.sha, "subject": c.subject}
                        for c in intent.commits[:MAX_MARKDOWN_COMMITS]]}
