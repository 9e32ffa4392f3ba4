"""The token the person already has for a forge, and where it came from.

GitHub: ``GH_TOKEN``, ``GITHUB_TOKEN`` (``GH_ENTERPRISE_TOKEN`` / ``GITHUB_ENTERPRISE_TOKEN``
first for a host other than github.com), then ``gh auth token --hostname HOST`` when ``gh`` is
installed. GitLab: ``GITLAB_TOKEN``, then the instance's ``token`` in glab's ``config.yml``
(``$GLAB_CONFIG_DIR``, else ``~/.config/glab-cli``).

glab keys its ``hosts`` by host name (``glab auth login`` refuses a name with a path); the
instance an entry is for is where its API is, ``{api_protocol}://{api_host}/api/v4``, with
``api_host`` the key itself when not set. A GitLab served under a path (``HOST/gitlab``,
``target.gitlab_root``) is therefore an entry whose ``api_host`` is ``HOST/gitlab`` (or, set
by hand with ``glab config set --host HOST/gitlab``, whose key is). That entry is preferred;
else the host's entry that names no path (what ``glab auth login HOST`` writes) stands for
it. An entry naming another path on the host is another GitLab, and when an entry names
this one's path the bare host's is the host-root GitLab's: neither token is used for it.

A ``Token`` never shows its value: ``str`` and ``repr`` give its source, so an error message,
a log line or ``--dry-run`` output can name it without leaking it. reviewtui stores none.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field

from reviewtui.errors import ForgeAuthError
from reviewtui.forge.glab_config import entry_key, glab_config_path, glab_hosts
from reviewtui.forge.target import RepoAddress

GH_TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class Token:
    source: str  # "GH_TOKEN", "gh auth token", "glab config (~/.config/glab-cli/config.yml)"
    value: str = field(repr=False)

    def __str__(self) -> str:
        return f"token from {self.source}"


def _env(*names: str) -> Token | None:
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return Token(name, value)
    return None


def _gh_token(host: str) -> Token | None:
    gh = shutil.which("gh")
    if gh is None:
        return None
    try:
        done = subprocess.run([gh, "auth", "token", "--hostname", host], capture_output=True,
                              timeout=GH_TIMEOUT_SECONDS, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    value = done.stdout.decode("utf-8", "replace").strip()
    return Token("gh auth token", value) if done.returncode == 0 and value else None


def _glab_token(repo: RepoAddress) -> Token | None:
    path = glab_config_path()
    hosts = glab_hosts(path)
    key = entry_key(hosts, {repo.host, repo.authority}, repo.root)
    entry = hosts.get(key) if key is not None else None
    value = entry.get("token") if isinstance(entry, dict) else None
    if isinstance(value, str) and value.strip():
        return Token(f"glab config ({path}, host {key})", value.strip())
    return None


def find_token(repo: RepoAddress) -> Token:
    """The first token found for ``repo``'s host; ``ForgeAuthError`` naming where it looked."""
    if repo.forge == "github":
        enterprise = ("GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN")
        names = ("GH_TOKEN", "GITHUB_TOKEN") if repo.host == "github.com" else (
            *enterprise, "GH_TOKEN", "GITHUB_TOKEN")
        token = _env(*names) or _gh_token(repo.host)
        if token is None:
            raise ForgeAuthError(f"no GitHub token for {repo.host}",
                                 hint=f"set {' or '.join(names)}, or run 'gh auth login'")
        return token
    token = _env("GITLAB_TOKEN") or _glab_token(repo)
    if token is None:
        if not repo.root:
            raise ForgeAuthError(f"no GitLab token for {repo.host}",
                                 hint="set GITLAB_TOKEN, or run 'glab auth login'")
        instance = f"{repo.host}/{repo.root}"
        raise ForgeAuthError(f"no GitLab token for {instance}",
                             hint=f"set GITLAB_TOKEN, or run 'glab auth login --hostname "
                                  f"{repo.host}' and 'glab config set --host {repo.host} "
                                  f"api_host {instance}'")
    return token
