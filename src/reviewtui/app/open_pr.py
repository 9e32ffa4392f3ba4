"""Open a pull/merge request for review: ``reviewtui --pr N|URL`` (and every command's ``--pr``).

Reads the pull request from its forge's API (title, body, labels: the change's stated purpose; the
base branch), fetches its head and base into ``refs/reviewtui/pr/HOST/PATH/N/`` (unless this clone
has both commits already: ``forge.fetch.refs_here``) and hands back the selector of
``merge-base(base, head)..head`` (``--range base...head``). Nothing the person has checked out
changes. ``locate_pull`` is the offline half ``publish`` uses: which pull request, and
the head and base fetched when it was opened.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reviewtui.errors import ForgeError
from reviewtui.forge.auth import Token
from reviewtui.forge.fetch import FetchedRefs, fetch_pull, local_refs, refs_here
from reviewtui.forge.http import Sleep
from reviewtui.forge.pull import PullInfo, open_client, read_pull
from reviewtui.forge.target import PullTarget, resolve_target
from reviewtui.git.runner import GitRepo, open_repository
from reviewtui.git.selector import ChangeSelector, SelectorMode

PULL_DESCRIPTION_SOURCE = "pull request"


@dataclass(frozen=True, slots=True)
class OpenedPull:
    target: PullTarget
    pull: PullInfo
    refs: FetchedRefs
    selector: ChangeSelector

    @property
    def description(self) -> str:
        return self.pull.description()


def remotes(repo: GitRepo) -> dict[str, str]:
    """Each remote's configured URL (before ``insteadOf`` rewriting: it names the forge)."""
    out = repo.try_run("config", "--get-regexp", r"^remote\..*\.url$") or b""
    found: dict[str, str] = {}
    for line in out.decode("utf-8", "replace").splitlines():
        key, _, url = line.partition(" ")
        name = key.removeprefix("remote.").removesuffix(".url")
        found.setdefault(name, url.strip())
    return found


def pull_selector(target: PullTarget) -> ChangeSelector:
    """``merge-base(base, head)..head`` of the refs fetched for ``target``."""
    return ChangeSelector(SelectorMode.RANGE, ref=f"{target.base_ref}...{target.head_ref}")


def locate_pull(path: str | Path | None, spec: str) -> tuple[GitRepo, PullTarget]:
    repo = open_repository(path)
    return repo, resolve_target(spec, remotes(repo))


def open_pull_request(path: str | Path | None, spec: str, *, token: Token | None = None,
                      sleep: Sleep | None = None) -> OpenedPull:
    """Read ``spec``'s pull request, fetch its head and base, and say what to review."""
    repo, target = locate_pull(path, spec)
    client = open_client(target, token=token, sleep=sleep)
    try:
        pull = read_pull(client)
    finally:
        client.close()
    refs = (refs_here(repo, target, pull.head_sha, pull.base_sha)
            or fetch_pull(repo, target, pull.base_branch))
    if refs.head != pull.head_sha:
        raise ForgeError(f"{target.label} moved while it was fetched (the API says "
                         f"{pull.head_sha[:10]}, git fetched {refs.head[:10]})",
                         hint="open it again")
    return OpenedPull(target, pull, refs, pull_selector(target))


def reviewed_refs(repo: GitRepo, target: PullTarget) -> FetchedRefs:
    """The head and base fetched when ``target`` was opened; ``ForgeError`` if it never was."""
    refs = local_refs(repo, target)
    if refs is None:
        raise ForgeError(f"{target.label} has not been opened here",
                         hint=f"review it first: reviewtui --pr {target.number}")
    return refs
