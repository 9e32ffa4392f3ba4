"""Which pull/merge request ``--pr`` names, and where its forge's API and git repository are.

``--pr 123`` takes the forge from the ``origin`` remote's URL; ``--pr URL`` from the URL
(``https://github.com/o/r/pull/123``, a GitHub Enterprise host's ``/o/r/pull/123``,
``https://gitlab.com/g/sub/p/-/merge_requests/7``, a self-hosted GitLab's). Which forge a host
is: github.com and gitlab.com by name, ``REVIEWTUI_GITHUB_HOSTS`` / ``REVIEWTUI_GITLAB_HOSTS``
(comma-separated) for others, then a host with ``gitlab`` (or ``github``) in its name; a web
URL's path shape says it too (``/-/merge_requests/N`` GitLab, ``/pull/N`` GitHub Enterprise).

The API base URL is derived (``api.github.com``, ``HOST/api/v3``, ``HOST/api/v4``) unless
``REVIEWTUI_GITHUB_API_URL`` / ``REVIEWTUI_GITLAB_API_URL`` set it (tests point them at a local
server). A GitLab served under a path (its relative URL root: ``https://HOST/gitlab/group/proj``)
is named with it, ``REVIEWTUI_GITLAB_HOSTS=HOST/gitlab`` (or by a ``REVIEWTUI_GITLAB_API_URL``
of ``https://HOST/gitlab/api/v4``): nothing in a URL tells that path from a group's name. Its
API is ``HOST/gitlab/api/v4``; its https remotes and merge request URLs hold the path before the
project, its ssh remotes do not (GitLab's ssh paths have no relative URL root). The pull refs
are fetched from the remote whose URL names the same repository, else from the repository's
HTTPS URL (git's own ``url.*.insteadOf`` rewriting applies).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import SplitResult, urlsplit

from reviewtui.errors import ForgeError, UsageError

ForgeKind = Literal["github", "gitlab"]
_GITHUB_PULL = re.compile(r"^/(?P<owner>[^/]+)/(?P<repo>[^/]+)/pulls?/(?P<n>\d+)(?:/.*)?$")
_GITLAB_MR = re.compile(r"^/(?P<project>.+?)/-/merge_requests/(?P<n>\d+)(?:/.*)?$")
_SCP = re.compile(r"^(?:[\w.-]+@)?(?P<host>[\w.-]+):(?P<path>[^/].*)$")


@dataclass(frozen=True, slots=True)
class RepoAddress:
    """A repository on a forge: ``host`` and its path (``owner/repo``, or a GitLab group path)."""

    forge: ForgeKind
    host: str
    path: str
    scheme: str = "https"
    port: int | None = None  # the web's (and API's) port, when not the scheme's own
    root: str = ""  # the path a GitLab is served under ("gitlab"), "" at the host's root
    api_base: str = ""  # where glab says a GitLab's API is, for a remote that cannot tell

    @property
    def authority(self) -> str:
        return f"{self.host}:{self.port}" if self.port is not None else self.host

    @property
    def owner_repo(self) -> tuple[str, str]:
        owner, _, repo = self.path.rpartition("/")
        return owner, repo

    @property
    def web_root(self) -> str:
        """The forge's web address: ``https://HOST[:PORT][/ROOT]``."""
        return f"{self.scheme}://{self.authority}" + (f"/{self.root}" if self.root else "")

    @property
    def web_url(self) -> str:
        return f"{self.web_root}/{self.path}"

    @property
    def api_url(self) -> str:
        env = "REVIEWTUI_GITHUB_API_URL" if self.forge == "github" else "REVIEWTUI_GITLAB_API_URL"
        override = os.environ.get(env, "").strip()
        if override:
            return override.rstrip("/")
        if self.forge == "github":
            return ("https://api.github.com" if self.host == "github.com"
                    else f"{self.scheme}://{self.authority}/api/v3")
        return self.api_base or f"{self.web_root}/api/v4"


@dataclass(frozen=True, slots=True)
class PullTarget:
    """One pull request (GitHub) or merge request (GitLab), and how to fetch it."""

    repo: RepoAddress
    number: int
    remote: str | None  # the local remote that names this repository, if any

    @property
    def fetch_source(self) -> str:
        """What ``git fetch`` is given: the matching remote, else the HTTPS URL."""
        return self.remote or f"{self.repo.web_url}.git"

    @property
    def label(self) -> str:
        sign = "!" if self.repo.forge == "gitlab" else "#"
        return f"{self.repo.path}{sign}{self.number}"

    @property
    def ref_prefix(self) -> str:
        """Where its head and base are fetched: ``refs/reviewtui/pr/HOST/PATH/N/``. The
        repository is in the name: pull request 7 of a fork's upstream is not the origin's 7
        (one clone, two repositories: each review stays with its own pull request)."""
        parts = [self.repo.host, *self.repo.path.split("/")]
        return "refs/reviewtui/pr/" + "/".join(map(_ref_part, parts)) + f"/{self.number}/"

    @property
    def head_ref(self) -> str:
        return self.ref_prefix + "head"

    @property
    def base_ref(self) -> str:
        return self.ref_prefix + "base"


def _ref_part(text: str) -> str:
    """``text`` as one component of a git ref name (``git check-ref-format``): lower case (a
    forge's names are), no control, space or ``~^:?*[\\`` characters, no ``..``, no leading
    dot, no ``.lock`` at the end."""
    part = re.sub(r"[^a-z0-9._-]+", "_", text.lower())
    part = re.sub(r"\.{2,}", "_", part).lstrip(".")
    if part.endswith(".lock"):
        part = part[: -len(".lock")] + "_lock"
    return part or "_"


def _host_list(name: str) -> set[str]:
    """The hosts an environment variable names (``HOST``, ``HOST:PORT``, ``HOST/PATH`` or a
    URL: the host's name alone)."""
    return {_instance(entry)[0] for entry in os.environ.get(name, "").split(",")
            if entry.strip()}


def _instance(entry: str) -> tuple[str, str]:
    """(host, path) of ``HOST[:PORT][/PATH]`` or ``SCHEME://HOST[:PORT][/PATH]``."""
    text = entry.strip().split("://", 1)[-1]
    authority, _, path = text.partition("/")
    host = authority.rsplit("@", 1)[-1]
    host = host.split("]")[0].lstrip("[") if host.startswith("[") else host.split(":")[0]
    return host.lower(), path.strip("/")


def gitlab_root(host: str) -> str:
    """The path the GitLab at ``host`` is served under: named with the host in
    ``REVIEWTUI_GITLAB_HOSTS`` (``HOST/gitlab``), else read from a ``REVIEWTUI_GITLAB_API_URL``
    on that host (``https://HOST/gitlab/api/v4``); "" at the host's root."""
    for entry in os.environ.get("REVIEWTUI_GITLAB_HOSTS", "").split(","):
        named, path = _instance(entry)
        if named == host and path:
            return path
    api = os.environ.get("REVIEWTUI_GITLAB_API_URL", "").strip()
    if api:
        parts = urlsplit(api)
        path = parts.path.rstrip("/")
        if (parts.hostname or "").lower() == host and path.endswith("/api/v4"):
            return path.removesuffix("/api/v4").strip("/")
    return ""


def _within(root: str, path: str) -> str | None:
    """``path`` with the instance path ``root`` taken off its front; None when it is not
    under it."""
    if not root:
        return path
    return path[len(root) + 1:] if path.startswith(root + "/") else None


def forge_of_host(host: str, *, path_hint: ForgeKind | None = None) -> ForgeKind | None:
    host = host.lower()
    if host == "github.com" or host in _host_list("REVIEWTUI_GITHUB_HOSTS"):
        return "github"
    if host == "gitlab.com" or host in _host_list("REVIEWTUI_GITLAB_HOSTS") or "gitlab" in host:
        return "gitlab"
    if path_hint is not None:
        return path_hint
    if "github" in host:
        return "github"
    return None


def parse_remote_url(url: str) -> RepoAddress | None:
    """The forge repository a remote URL names (https, ssh://, scp-like ``git@host:o/r``);
    None for a local path or an unknown host."""
    url = url.strip()
    scheme, port, web = "https", None, False
    if "://" in url:
        parts = urlsplit(url)
        host, path = (parts.hostname or ""), parts.path
        if parts.scheme not in ("http", "https", "ssh", "git"):
            return None
        if parts.scheme in ("http", "https"):  # an ssh or git port is not the web's
            scheme, port, web = parts.scheme, _web_port(parts), True
    else:
        match = _SCP.match(url)
        if match is None:
            return None
        host, path = match.group("host"), "/" + match.group("path")
    path = path.strip("/").removesuffix(".git").strip("/")
    host = host.lower()
    forge = forge_of_host(host)
    root = gitlab_root(host) if forge == "gitlab" else ""
    if web and root:  # an ssh path holds no relative URL root
        path = _within(root, path) or path
    if not host or forge is None or path.count("/") < 1:
        return None
    api_base = ""
    if forge == "gitlab" and not web:  # ssh: the API's scheme, port and path are glab's word
        from reviewtui.forge.glab_config import glab_api

        kept = glab_api(host, root)
        if kept is not None:
            api_base, root = kept[0], root or kept[1]
    return RepoAddress(forge, host, path, scheme, port, root, api_base)


def _web_port(parts: SplitResult) -> int | None:
    """An http(s) URL's port, None when it is the scheme's own (or not a number)."""
    try:
        port = parts.port
    except ValueError:
        return None
    return None if port == {"http": 80, "https": 443}.get(parts.scheme) else port


def parse_pull_url(url: str) -> tuple[RepoAddress, int]:
    """(repository, number) of a pull/merge request's web URL; ``UsageError`` otherwise."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host:
        raise UsageError(f"--pr {url!r} is neither a number nor a pull/merge request URL")
    scheme, port = parts.scheme, _web_port(parts)
    mr = _GITLAB_MR.match(parts.path)
    if mr is not None:
        root = gitlab_root(host)
        project = mr.group("project").strip("/")
        project = _within(root, project) or project
        return RepoAddress("gitlab", host, project, scheme, port, root), int(mr.group("n"))
    pull = _GITHUB_PULL.match(parts.path)
    if pull is not None and forge_of_host(host, path_hint="github") == "github":
        path = f"{pull.group('owner')}/{pull.group('repo')}"
        return RepoAddress("github", host, path, scheme, port), int(pull.group("n"))
    raise UsageError(f"--pr {url!r}: not a GitHub pull request or GitLab merge request URL",
                     hint="e.g. https://github.com/OWNER/REPO/pull/123")


def resolve_target(spec: str, remotes: dict[str, str]) -> PullTarget:
    """The pull request ``spec`` names, with the local remote that points at its repository.
    A number is one of the ``upstream`` remote's repository, else ``origin``'s, else the only
    forge remote's: in a fork's clone ``origin`` is the fork and pull requests are opened on
    ``upstream`` (the order ``gh`` reads remotes in)."""
    spec = spec.strip().lstrip("#!")
    if spec.isdigit():
        number = int(spec)
        if number < 1:
            raise UsageError("--pr takes a positive number or a URL")
        named = [name for name in ("upstream", "origin") if name in remotes]
        candidates = ([(name, remotes[name]) for name in named] if named
                      else sorted(remotes.items()))
        found = [(name, addr) for name, url in candidates
                 if (addr := parse_remote_url(url)) is not None]
        if not found:
            where = (f"the {' and '.join(named)} remote{'s' if len(named) > 1 else ''}"
                     if named else "no remote")
            raise ForgeError(f"--pr {number}: {where} names no GitHub or GitLab repository",
                             hint="give the pull request's URL instead")
        name, repo = found[0]
        return PullTarget(repo, number, name)
    repo, number = parse_pull_url(spec)
    for name, url in sorted(remotes.items(),
                            key=lambda item: (item[0] != "upstream", item[0] != "origin")):
        addr = parse_remote_url(url)
        if addr is not None and (addr.host, addr.path.lower()) == (repo.host, repo.path.lower()):
            return PullTarget(repo, number, name)
    return PullTarget(repo, number, None)
