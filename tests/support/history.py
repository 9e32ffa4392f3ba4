"""Long histories in a real repository, fast: ``git fast-import`` over one stream.

``long_range`` puts ``count`` commits on top of the repository's HEAD (a base commit must
exist): the first changes ``app/service.py``, the last ``app/views.py``, every other one keeps
the tree as it is, so the range's diff stays small while its log is long. Commit ``n``'s subject
is ``Step n of the migration`` and its body names it; ``last_body`` replaces the newest
commit's body (to plant a secret there).
"""

from __future__ import annotations

from tests.conftest import GitRepoBuilder

WHO = "Dev <dev@example.com> 1704067200 +0000"


def _data(text: bytes) -> bytes:
    return b"data %d\n%s\n" % (len(text), text)


def _blob_modify(path: str, content: str) -> bytes:
    data = content.encode()
    return b"M 100644 inline %s\n" % path.encode() + _data(data)


def long_range(repo: GitRepoBuilder, count: int, *, last_body: str = "") -> tuple[str, str]:
    """(base, tip) commit ids after adding ``count`` commits on ``main``."""
    base = repo.head()
    service = (repo.root / "app/service.py").read_text()
    views = (repo.root / "app/views.py").read_text()
    parts: list[bytes] = []
    for n in range(1, count + 1):
        body = last_body if n == count and last_body else f"Part {n} of the long migration."
        message = f"Step {n} of the migration\n\n{body}\n".encode()
        parts.append(b"commit refs/heads/main\n")
        parts.append(b"committer %s\n" % WHO.encode())
        parts.append(_data(message))
        if n == 1:
            parts.append(b"from %s\n" % base.encode())
            parts.append(_blob_modify("app/service.py", service.replace("* 2", "* 3")))
        if n == count:
            parts.append(_blob_modify("app/views.py", views + "\n# paid\n"))
    repo.git("fast-import", "--quiet", "--done", input=b"".join(parts) + b"done\n")
    repo.git("reset", "-q", "--hard", "main")
    return base, repo.head()
