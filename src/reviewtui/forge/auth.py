"""The token the person already has for a forge, and where it came from.

GitHub: ``GH_TOKEN``, ``GITHUB_TOKEN`` (``GH_ENTERPRISE_TOKEN`` / ``GITHUB_ENTERPRISE_TOKEN``
first for a host other than github.com), then ``gh auth token --hostname HOST`` when ``gh`` is
installed. GitLab: ``GITLAB_TOKEN``, then the host's ``token`` in glab's ``config.yml``
(``$GLAB_CONFIG_DIR``, else ``~/.config/glab-cli``).

A ``Token`` never shows its value: ``str`` and ``repr`` give its source, so an error message,
a log line or ``--dry-run`` output can name it without leaking it. reviewtui stores none.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from reviewtui.errors import ForgeAuthError
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


def glab_config_path() -> Path:
    folder = os.environ.get("GLAB_CONFIG_DIR", "").strip()
    if folder:
        return Path(folder) / "config.yml"
    base = os.environ.get("XDG_CONFIG_HOME", "").strip() or str(Path.home() / ".config")
    return Path(base) / "glab-cli" / "config.yml"


def _glab_token(host: str) -> Token | None:
    path = glab_config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    hosts = data.get("hosts") if isinstance(data, dict) else None
    entry = hosts.get(host) if isinstance(hosts, dict) else None
    value = entry.get("token") if isinstance(entry, dict) else None
    if isinstance(value, str) and value.strip():
        return Token(f"glab config ({path})", value.strip())
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
    token = _env("GITLAB_TOKEN") or _glab_token(repo.host)
    if token is None:
        raise ForgeAuthError(f"no GitLab token for {repo.host}",
                             hint="set GITLAB_TOKEN, or run 'glab auth login'")
    return token
