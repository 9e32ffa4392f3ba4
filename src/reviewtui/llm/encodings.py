"""Load tiktoken encodings offline, from copies shipped inside the package.

``tiktoken.get_encoding`` downloads its BPE file on first use, which fails (or hangs) without
network. reviewtui ships gzipped copies of ``cl100k_base`` and ``o200k_base``; before the first
``get_encoding`` they are decompressed, checked against the SHA-256 that tiktoken itself pins,
and written into tiktoken's cache under the name tiktoken looks for (the SHA-1 of the download
URL); when that cache cannot be written, into a directory of the user's in the temporary folder.
tiktoken is never allowed to reach for the network: when the shipped copy is missing or
corrupt and no valid cached copy exists, ``load_encoding`` returns None and callers estimate.
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import importlib
import inspect
import os
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

SHIPPED_DIR = Path(__file__).resolve().parent.parent / "_data" / "tiktoken"

_BLOB = "https://openaipublic.blob.core.windows.net/encodings"
# (download URL, sha256 of the content), as in tiktoken_ext/openai_public.py (tiktoken 0.14).
PINNED_SOURCES: dict[str, tuple[str, str]] = {
    "cl100k_base": (f"{_BLOB}/cl100k_base.tiktoken",
                    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
    "o200k_base": (f"{_BLOB}/o200k_base.tiktoken",
                   "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
}
SHIPPED = tuple(PINNED_SOURCES)

_lock = threading.Lock()
_installed_sources: dict[str, tuple[str, str]] | None = None


def installed_sources() -> dict[str, tuple[str, str]]:
    """URL and hash per encoding, read from the installed tiktoken's ``openai_public`` source.

    tiktoken passes them as literal arguments (``load_tiktoken_bpe(url, expected_hash=...)``)
    rather than constants, so they are read from the source; an unreadable source gives {}.
    """
    try:
        openai_public = importlib.import_module("tiktoken_ext.openai_public")
        tree = ast.parse(inspect.getsource(openai_public))
    except Exception:
        return {}
    found: dict[str, tuple[str, str]] = {}
    for function in tree.body:
        if not isinstance(function, ast.FunctionDef):
            continue
        for node in ast.walk(function):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "load_tiktoken_bpe" and node.args):
                continue
            url = node.args[0]
            hashes = [k.value for k in node.keywords if k.arg == "expected_hash"]
            if (isinstance(url, ast.Constant) and isinstance(url.value, str) and hashes
                    and isinstance(hashes[0], ast.Constant) and isinstance(hashes[0].value, str)):
                found.setdefault(function.name, (url.value, hashes[0].value))
    return found


def source_of(name: str) -> tuple[str, str] | None:
    """Where tiktoken downloads ``name`` from and the hash it expects (installed, else pinned)."""
    global _installed_sources
    if _installed_sources is None:
        _installed_sources = installed_sources()
    return _installed_sources.get(name) or PINNED_SOURCES.get(name)


def cache_dir() -> Path:
    """tiktoken's cache: the user's ``TIKTOKEN_CACHE_DIR`` / ``DATA_GYM_CACHE_DIR``, or ours."""
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        value = os.environ.get(variable)
        if value:
            return Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "reviewtui" / "tiktoken"


def cache_path(name: str, directory: Path | None = None) -> Path | None:
    source = source_of(name)
    if source is None:
        return None
    key = hashlib.sha1(source[0].encode()).hexdigest()
    return (directory or cache_dir()) / key


def _valid(path: Path, expected: str) -> bool:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == expected
    except OSError:
        return False


def seed_cache(name: str, *, data_dir: Path | None = None, directory: Path | None = None) -> bool:
    """Make sure tiktoken's cache holds a verified copy of ``name``; False if impossible."""
    source = source_of(name)
    target = cache_path(name, directory)
    if source is None or target is None:
        return False
    expected = source[1]
    if _valid(target, expected):
        return True
    try:
        content = gzip.decompress(((data_dir or SHIPPED_DIR) / f"{name}.tiktoken.gz").read_bytes())
    except (OSError, EOFError, gzip.BadGzipFile):
        return False
    if hashlib.sha256(content).hexdigest() != expected:
        return False
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f"{target.name}.{uuid.uuid4().hex}.tmp")
        temporary.write_bytes(content)
        temporary.replace(target)
    except OSError:
        return False
    return True


def _private_dir() -> Path:
    """Where the copy goes when the cache cannot be written (a read-only home, a full disk
    there): a directory of this user's in the temporary folder -- counting on an estimate
    instead would under-count prompts by about 40%."""
    user = os.getuid() if hasattr(os, "getuid") else os.getpid()
    return Path(tempfile.gettempdir()) / f"reviewtui-tiktoken-{user}"


def _already_loaded(name: str) -> Any:
    try:
        from tiktoken import registry

        return registry.ENCODINGS.get(name)
    except Exception:
        return None


def load_encoding(name: str, *, data_dir: Path | None = None) -> Any:
    """The ``tiktoken.Encoding`` for ``name``, loaded without network; None if impossible."""
    loaded = _already_loaded(name)
    if loaded is not None and data_dir is None:
        return loaded
    with _lock:
        directory = next((d for d in (cache_dir(), _private_dir())
                          if seed_cache(name, data_dir=data_dir, directory=d)), None)
        if directory is None:
            return None
        if loaded is not None:
            return loaded
        previous = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(directory)  # where we seeded (tiktoken reads it)
        try:
            import tiktoken

            return tiktoken.get_encoding(name)
        except Exception:
            return None
        finally:
            if previous is None:
                os.environ.pop("TIKTOKEN_CACHE_DIR", None)
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = previous
