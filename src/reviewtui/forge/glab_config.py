"""glab's ``config.yml``: which entry of its ``hosts`` is a repository's GitLab, and where
that GitLab's API is.

glab keys ``hosts`` by host name; an entry's API is ``{api_protocol}://{api_host}/api/v4``,
with ``api_host`` the key itself when not set and ``api_protocol`` https. A remote reached over
ssh (``git@HOST:group/proj.git``) says nothing of the web's scheme, port or path, nor whether
the API is on another host (an ssh host beside the web one): the entry glab keeps for the
host says it, so the API is where glab itself would call it. ``auth`` reads the entry's token
from the same lookup (its rules for a GitLab under a path are in ``auth``'s docstring).
"""

from __future__ import annotations

import os
from pathlib import Path


def glab_config_path() -> Path:
    folder = os.environ.get("GLAB_CONFIG_DIR", "").strip()
    if folder:
        return Path(folder) / "config.yml"
    base = os.environ.get("XDG_CONFIG_HOME", "").strip() or str(Path.home() / ".config")
    return Path(base) / "glab-cli" / "config.yml"


def glab_hosts(path: Path | None = None) -> dict[object, object]:
    """glab's ``hosts`` mapping; {} when there is no config or it cannot be read."""
    try:
        text = (path or glab_config_path()).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return {}
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}
    hosts = data.get("hosts") if isinstance(data, dict) else None
    return hosts if isinstance(hosts, dict) else {}


def split_name(name: str) -> tuple[str, str]:
    """(``host[:port]`` lower case, path) of ``[SCHEME://]HOST[:PORT][/PATH][/]``."""
    authority, _, path = name.strip().split("://", 1)[-1].partition("/")
    return authority.lower(), path.strip("/")


def entry_key(hosts: dict[object, object], names: set[str], root: str) -> str | None:
    """The key of the ``hosts`` entry for the GitLab on one of ``names`` (its host, with its
    port) served under ``root`` ("" at the host's root): one for that host (or whose API is on
    it) serving that path, else, for an instance under a path that no entry names, the
    host's entry that names no path; None when none is."""
    bare: str | None = None
    for key, entry in hosts.items():
        if not isinstance(key, str) or not isinstance(entry, dict):
            continue
        where, path = split_name(key)
        api = entry.get("api_host")
        api_where, api_path = split_name(api) if isinstance(api, str) and api.strip() else (
            where, path)
        if (where in names or api_where in names) and api_path == root:
            return key
        if where in names and not api_path and bare is None:
            bare = key
    return bare if root else None


def glab_api(host: str, root: str) -> tuple[str, str] | None:
    """(API base ``SCHEME://HOST[:PORT][/PATH]/api/v4``, the path it is served under) that glab
    keeps for the GitLab an ssh remote at ``host`` names: the entry for ``root`` (the path
    named with the host, see ``target.gitlab_root``), else, with no path named, the one entry
    keyed by the host, whatever path its API is under; None when glab has none."""
    hosts = glab_hosts()
    key = entry_key(hosts, {host}, root)
    if key is None and not root:
        key = next((k for k, entry in hosts.items() if isinstance(k, str)
                    and isinstance(entry, dict) and split_name(k)[0] == host), None)
    entry = hosts.get(key) if key is not None else None
    if not isinstance(entry, dict) or key is None:
        return None
    api = entry.get("api_host")
    protocol = entry.get("api_protocol")
    scheme = (protocol.strip().lower() if isinstance(protocol, str)
              and protocol.strip().lower() in ("http", "https") else "https")
    where = api.strip() if isinstance(api, str) and api.strip() else key
    if "://" in where:  # written with its scheme (``https://host/gitlab/``): that scheme
        scheme, _, where = where.partition("://")
        scheme = scheme.lower()
    authority, path = split_name(where)
    base = f"{scheme}://{authority}" + (f"/{path}" if path else "")
    return f"{base}/api/v4", path
