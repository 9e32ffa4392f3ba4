"""Shared fixtures: real temporary git repositories with an isolated git configuration."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

DATA = Path(__file__).parent / "data"


class GitRepoBuilder:
    """A real repository in a temp folder, with helpers to write files and commit."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, input: bytes | None = None,
            env: dict[str, str] | None = None) -> str:
        proc = subprocess.run(["git", *args], cwd=self.root, input=input, capture_output=True,
                              check=False, env={**os.environ, **env} if env else None)
        if proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode()}")
        return proc.stdout.decode("utf-8", "replace")

    def write(self, path: str, content: str | bytes, *, mode: int | None = None) -> Path:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            target.write_bytes(content.encode())
        else:
            target.write_bytes(content)
        if mode is not None:
            target.chmod(mode)
        return target

    def commit(self, message: str = "change", *, add: bool = True,
               date: str | None = None) -> str:
        """Commit everything; ``date``: the author and committer date (ISO 8601)."""
        if add:
            self.git("add", "-A")
        env = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else None
        self.git("commit", "-q", "--allow-empty", "-m", message, env=env)
        return self.git("rev-parse", "HEAD").strip()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()


@pytest.fixture(autouse=True)
def isolated_git(tmp_path_factory: pytest.TempPathFactory,
                 monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """No test sees the developer's git or reviewtui configuration."""
    home = tmp_path_factory.mktemp("home")
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(
        "[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"
        "[commit]\n\tgpgsign = false\n[protocol \"file\"]\n\tallow = always\n"
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z")
    for key in list(os.environ):
        if key.startswith(("REVIEWTUI_", "OPENAI_")):
            monkeypatch.delenv(key)
    yield gitconfig


@pytest.fixture
def make_repo(tmp_path: Path) -> Iterator[type[GitRepoBuilder]]:
    counter = iter(range(1000))

    class _Builder(GitRepoBuilder):
        def __init__(self, name: str | None = None) -> None:
            super().__init__(tmp_path / (name or f"repo{next(counter)}"))

    yield _Builder


@pytest.fixture
def repo(make_repo: type[GitRepoBuilder]) -> GitRepoBuilder:
    return make_repo()


from tests.support.openai_server import ScriptedOpenAIServer  # noqa: E402


@pytest.fixture
def fake_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedOpenAIServer]:
    """A scripted OpenAI-compatible server on 127.0.0.1, and the environment pointing at it.

    ``REVIEWTUI_MODEL``, ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` are set (so a CLI subprocess
    that copies ``os.environ`` uses it too); script replies with ``fake_llm.script(Reply...)``.
    """
    server = ScriptedOpenAIServer().start()
    monkeypatch.setenv("REVIEWTUI_MODEL", "test-model")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    for variable in ("NO_PROXY", "no_proxy"):  # never send 127.0.0.1 through a proxy
        existing = os.environ.get(variable)
        monkeypatch.setenv(variable, f"{existing},127.0.0.1,localhost" if existing
                           else "127.0.0.1,localhost")
    try:
        yield server
    finally:
        server.stop()


if TYPE_CHECKING:
    from tests.support.forge_world import PullWorld
    from tests.support.gitlab_world import MergeRequestWorld


@pytest.fixture
def pull_world(make_repo: type[GitRepoBuilder], tmp_path: Path,
               monkeypatch: pytest.MonkeyPatch) -> Iterator[PullWorld]:
    """GitHub pull request 7 ("Charge three times") on the local GitHub
    (``tests.support.forge_world``); every request and answer must match the contract."""
    from tests.support.forge_world import build_world
    from tests.support.github_server import GitHubServer

    with GitHubServer() as server:
        built = build_world(make_repo, tmp_path, monkeypatch, server)
        built.open_pull(7, built.head_sha, title="Charge three times")
        yield built
        assert server.fake.violations == []


@pytest.fixture
def mr_world(make_repo: type[GitRepoBuilder], tmp_path: Path,
             monkeypatch: pytest.MonkeyPatch) -> Iterator[MergeRequestWorld]:
    """GitLab merge request 7 ("Charge three times") on the local GitLab
    (``tests.support.gitlab_world``); every request and answer must match the contract."""
    from tests.support.gitlab_server import GitLabServer
    from tests.support.gitlab_world import build_gitlab_world

    with GitLabServer() as server:
        built = build_gitlab_world(make_repo, tmp_path, monkeypatch, server)
        built.open_mr(7, built.head_sha, title="Charge three times")
        yield built
        assert server.fake.violations == []
