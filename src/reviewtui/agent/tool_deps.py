"""Declared dependencies from a project's manifests, for the agent's ``get_dependencies`` tool.

A reviewer asks "is this library already a dependency?" or "which version of X does this
project use?". The manifests of the change's after side (root and one folder down) are parsed
as data only - ``tomllib``, ``json``, ``configparser`` and regular expressions; nothing is ever
executed (no ``setup.py``, no Gradle, no Bundler). Credentials in URLs are masked, and pip
options other than includes (``--index-url`` and friends may carry tokens) are left out.
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from pathlib import PurePosixPath
from typing import Any

__all__ = ["is_manifest", "parse_manifest", "render_manifest"]

Sections = list[tuple[str, list[str]]]

MAX_PER_SECTION = 80
_REQUIREMENTS = re.compile(r"^requirements[\w.-]*\.(?:txt|in)$", re.IGNORECASE)
_CREDENTIALS = re.compile(r"(\b[a-zA-Z][\w+.-]*://)[^/@\s]+@")


def _mask(text: str) -> str:
    return _CREDENTIALS.sub(r"\1***@", text.strip())


def is_manifest(path: str) -> bool:
    """A dependency manifest at the root or one folder down (``requirements/*.txt`` too)."""
    pure = PurePosixPath(path)
    if len(pure.parts) > 2:
        return False
    name = pure.name
    if name in _PARSERS or _REQUIREMENTS.match(name):
        return True
    return (len(pure.parts) == 2 and pure.parts[0].lower() == "requirements"
            and name.endswith((".txt", ".in")))


def _entries(mapping: Any, fmt: Callable[[str, Any], str]) -> list[str]:
    if not isinstance(mapping, Mapping):
        return []
    return [fmt(str(name), spec) for name, spec in mapping.items()]


def _strings(items: Any) -> list[str]:
    if not isinstance(items, list):
        return []
    return [str(item) for item in items if isinstance(item, str)]


def _toml_spec(name: str, spec: Any) -> str:
    """``name spec`` for poetry/cargo/pipfile entries: a version string or a table."""
    if isinstance(spec, str):
        return f"{name} {spec}" if spec not in ("", "*") else name
    if isinstance(spec, Mapping):
        for key in ("version", "path", "git", "url", "workspace"):
            if key in spec:
                value = spec[key]
                return f"{name} ({key}: {value})" if key != "version" else f"{name} {value}"
    return name


def _pyproject(data: dict[str, Any]) -> Sections:
    sections: Sections = []
    project = data.get("project", {})
    if isinstance(project, Mapping):
        sections.append(("dependencies", _strings(project.get("dependencies"))))
        extras = project.get("optional-dependencies")
        if isinstance(extras, Mapping):
            sections += [(f"optional[{g}]", _strings(items)) for g, items in extras.items()]
    groups = data.get("dependency-groups")
    if isinstance(groups, Mapping):
        sections += [(f"group[{g}]", _strings(items)) for g, items in groups.items()]
    tool = data.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, Mapping) else None
    if isinstance(poetry, Mapping):
        sections.append(("poetry", _entries(poetry.get("dependencies"), _toml_spec)))
        sections.append(("poetry dev", _entries(poetry.get("dev-dependencies"), _toml_spec)))
        poetry_groups = poetry.get("group")
        if isinstance(poetry_groups, Mapping):
            for group, body in poetry_groups.items():
                deps = body.get("dependencies") if isinstance(body, Mapping) else None
                sections.append((f"poetry group[{group}]", _entries(deps, _toml_spec)))
    build = data.get("build-system")
    if isinstance(build, Mapping):
        sections.append(("build-system", _strings(build.get("requires"))))
    return sections


def _cargo(data: dict[str, Any]) -> Sections:
    sections: Sections = [
        (key, _entries(data.get(key), _toml_spec))
        for key in ("dependencies", "dev-dependencies", "build-dependencies")
    ]
    workspace = data.get("workspace")
    if isinstance(workspace, Mapping):
        sections.append(("workspace", _entries(workspace.get("dependencies"), _toml_spec)))
    return sections


def _pipfile(data: dict[str, Any]) -> Sections:
    return [("packages", _entries(data.get("packages"), _toml_spec)),
            ("dev-packages", _entries(data.get("dev-packages"), _toml_spec))]


def _requirements(text: str) -> Sections:
    deps: list[str] = []
    includes: list[str] = []
    for raw in text.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()
        if not line:
            continue
        if line.startswith("-"):
            option, _, value = line.partition(" ")
            if option in ("-r", "--requirement", "-c", "--constraint") and value.strip():
                includes.append(f"{option} {value.strip()}")
            elif option in ("-e", "--editable") and value.strip():
                deps.append(f"(editable) {value.strip()}")
            continue  # index URLs and other options: may hold credentials, never shown
        deps.append(line)
    return [("dependencies", deps), ("includes", includes)]


def _setup_cfg(text: str) -> Sections:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.read_string(text)

    def lines(value: str) -> list[str]:
        return [v.strip() for v in value.splitlines() if v.strip() and v.strip()[0] not in "#;"]

    sections: Sections = []
    if parser.has_section("options"):
        for key in ("install_requires", "setup_requires", "tests_require"):
            if parser.has_option("options", key):
                sections.append((key, lines(parser.get("options", key))))
    if parser.has_section("options.extras_require"):
        for key, value in parser.items("options.extras_require"):
            sections.append((f"extras[{key}]", lines(value)))
    return sections


def _package_json(text: str) -> Sections:
    data = json.loads(text)
    if not isinstance(data, Mapping):
        raise ValueError("not a JSON object")

    def fmt(name: str, spec: Any) -> str:
        return f"{name} {spec}" if isinstance(spec, str) else name

    return [(key, _entries(data.get(key), fmt))
            for key in ("dependencies", "devDependencies", "peerDependencies",
                        "optionalDependencies")]


_GO_REQUIRE_BLOCK = re.compile(r"^require\s*\((.*?)^\)", re.MULTILINE | re.DOTALL)
_GO_REQUIRE_LINE = re.compile(r"^require\s+([^\s(]\S*)\s+(\S+)(.*)$", re.MULTILINE)


def _go_entry(line: str) -> str | None:
    body, _, comment = line.partition("//")
    parts = body.split()
    if len(parts) < 2:
        return None
    suffix = " (indirect)" if "indirect" in comment else ""
    return f"{parts[0]} {parts[1]}{suffix}"


def _go_mod(text: str) -> Sections:
    entries: list[str] = []
    for block in _GO_REQUIRE_BLOCK.findall(text):
        entries += [e for e in map(_go_entry, block.splitlines()) if e]
    for module, version, rest in _GO_REQUIRE_LINE.findall(text):
        entry = _go_entry(f"{module} {version}{rest}")
        if entry:
            entries.append(entry)
    direct = [e for e in entries if not e.endswith("(indirect)")]
    indirect = [e.removesuffix(" (indirect)") for e in entries if e.endswith("(indirect)")]
    return [("require", direct), ("indirect", indirect)]


_GEM = re.compile(r"""^\s*gem\s*\(?\s*['"]([^'"]+)['"]((?:\s*,\s*['"][^'"]*['"])*)""",
                  re.MULTILINE)


def _gemfile(text: str) -> Sections:
    gems: list[str] = []
    for name, versions in _GEM.findall(text):
        specs = ", ".join(re.findall(r"""['"]([^'"]*)['"]""", versions))
        gems.append(f"{name} {specs}" if specs else name)
    return [("gems", gems)]


_XML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_POM_DEPENDENCY = re.compile(r"<dependency>(.*?)</dependency>", re.DOTALL)


def _xml_value(block: str, tag: str) -> str | None:
    found = re.search(rf"<{tag}>\s*([^<]*?)\s*</{tag}>", block)
    return found.group(1) if found else None


def _pom(text: str) -> Sections:
    deps: list[str] = []
    for block in _POM_DEPENDENCY.findall(_XML_COMMENT.sub("", text)):
        artifact = _xml_value(block, "artifactId")
        if artifact is None:
            continue
        name = ":".join(p for p in (_xml_value(block, "groupId"), artifact) if p)
        version = _xml_value(block, "version")
        scope = _xml_value(block, "scope")
        deps.append(name + (f" {version}" if version else "") + (f" ({scope})" if scope else ""))
    return [("dependencies", deps)]


_GRADLE_CONFIGS = (
    "implementation|api|compileOnly|runtimeOnly|testImplementation|testCompileOnly|"
    "testRuntimeOnly|annotationProcessor|kapt|ksp|classpath|compile|testCompile|runtime|"
    "developmentOnly|androidTestImplementation|debugImplementation|releaseImplementation"
)
_GRADLE = re.compile(
    rf"""^\s*({_GRADLE_CONFIGS})\s*\(?\s*(?:(?:platform|enforcedPlatform)\s*\(\s*)?"""
    r"""(?:['"]([^'"]+)['"]|(libs\.[\w.]+)|project\s*\(\s*['"]([^'"]+)['"])""",
    re.MULTILINE,
)


def _gradle(text: str) -> Sections:
    by_config: dict[str, list[str]] = {}
    for config, coordinate, catalog, project in _GRADLE.findall(text):
        entry = coordinate or catalog or f"project {project}"
        by_config.setdefault(config, []).append(entry)
    return list(by_config.items())


def _toml(parse: Callable[[dict[str, Any]], Sections]) -> Callable[[str], Sections]:
    def run(text: str) -> Sections:
        return parse(tomllib.loads(text))

    return run


_PARSERS: dict[str, tuple[str, Callable[[str], Sections]]] = {
    "pyproject.toml": ("Python", _toml(_pyproject)),
    "Pipfile": ("Python, pipenv", _toml(_pipfile)),
    "setup.cfg": ("Python, setuptools", _setup_cfg),
    "package.json": ("JavaScript, npm", _package_json),
    "go.mod": ("Go modules", _go_mod),
    "Gemfile": ("Ruby, Bundler", _gemfile),
    "Cargo.toml": ("Rust, Cargo", _toml(_cargo)),
    "pom.xml": ("Java, Maven", _pom),
    "build.gradle": ("Java/Kotlin, Gradle", _gradle),
    "build.gradle.kts": ("Java/Kotlin, Gradle", _gradle),
}


def parse_manifest(path: str, text: str) -> tuple[str, Sections]:
    """(ecosystem, [(section, entries)]) for the manifest at ``path``; ``ValueError`` if the
    file does not parse."""
    name = PurePosixPath(path).name
    ecosystem, parse = _PARSERS.get(name, ("Python, pip", _requirements))
    try:
        sections = parse(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, configparser.Error) as exc:
        raise ValueError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
    return ecosystem, [(title, [_mask(e) for e in entries]) for title, entries in sections]


def _line(title: str, entries: Iterable[str]) -> str:
    items = list(entries)
    shown = ", ".join(items[:MAX_PER_SECTION])
    more = f", … and {len(items) - MAX_PER_SECTION} more" if len(items) > MAX_PER_SECTION else ""
    return f"  {title} ({len(items)}): {shown}{more}"


def render_manifest(path: str, text: str) -> str:
    """A short listing of one manifest: its ecosystem, then one line per non-empty section."""
    try:
        ecosystem, sections = parse_manifest(path, text)
    except ValueError as exc:
        return f"{path} - could not parse: {exc}"
    lines = [f"{path} ({ecosystem})"]
    lines += [_line(title, entries) for title, entries in sections if entries]
    if len(lines) == 1:
        lines.append("  (no dependencies declared)")
    return "\n".join(lines)
