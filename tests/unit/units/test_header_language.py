"""A ``.h`` file is C++ in a repository with C++ sources, C otherwise, through the pipeline."""

from __future__ import annotations

from pathlib import Path

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.units.languages import repository_languages
from tests.conftest import GitRepoBuilder

HEADER_BEFORE = """#pragma once
namespace geo {
class Shape {
public:
    virtual double area() const = 0;
};
}  // namespace geo
"""
HEADER_AFTER = HEADER_BEFORE.replace("virtual double area() const = 0;",
                                     "virtual double area(double scale) const = 0;")


def _header_unit(repo: GitRepoBuilder, others: dict[str, str]) -> tuple[str | None, list[str]]:
    for path, text in others.items():
        repo.write(path, text)
    repo.write("include/shape.h", HEADER_BEFORE)
    repo.commit("base")
    repo.write("include/shape.h", HEADER_AFTER)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL), use_cache=False)
    [unit] = loaded.units
    return unit.language, [s.qualified_name for s in unit.scopes]


def test_header_is_cpp_when_the_repository_tracks_cpp_sources(repo: GitRepoBuilder) -> None:
    language, scopes = _header_unit(repo, {"src/shape.cpp": '#include "shape.h"\n'})
    assert language == "cpp"
    assert "geo.Shape.area" in scopes  # parsed as C++: the namespace, class and member


C_HEADER = """#ifndef SHAPE_H
#define SHAPE_H
#ifdef __cplusplus
extern "C" {
#endif
struct shape { double w, h; };
double shape_area(const struct shape *s);
#ifdef __cplusplus
}
#endif
#endif
"""


def test_header_is_c_in_a_c_repository(repo: GitRepoBuilder) -> None:
    repo.write("src/shape.c", '#include "shape.h"\n')
    repo.write("include/shape.h", C_HEADER)
    repo.commit("base")
    repo.write("include/shape.h", C_HEADER.replace("double w, h;", "double w, h, d;"))
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL), use_cache=False)
    assert [u.language for u in loaded.units] == ["c"]  # its extern "C" guard is no C++


def test_a_header_only_cpp_library_reads_its_headers_as_cpp(repo: GitRepoBuilder) -> None:
    """No .cpp anywhere (pybind11's sdist): the headers themselves say C++."""
    language, scopes = _header_unit(repo, {"include/util.h": "#pragma once\n#include <vector>\n"
                                           "template <typename T> T twice(T x) { return x + x; }\n",
                                           "include/plain.h": C_HEADER})
    assert language == "cpp"
    assert "geo.Shape.area" in scopes


def test_a_cpp_file_in_the_change_decides_without_asking_git(repo: GitRepoBuilder) -> None:
    repo.write("a.h", "int f(void);\n")
    repo.write("b.cc", "int f(void) { return 1; }\n")
    repo.commit("base")
    repo.write("a.h", "int f(int x);\n")
    repo.write("b.cc", "int f(int x) { return x; }\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL), use_cache=False)
    assert {u.file_path: u.language for u in loaded.units} == {"a.h": "cpp", "b.cc": "cpp"}


def test_a_range_in_a_bare_repository_reads_the_after_tree(repo: GitRepoBuilder,
                                                           tmp_path: Path) -> None:
    repo.write("src/main.cpp", "int main() { return 0; }\n")
    repo.write("include/shape.h", HEADER_BEFORE)
    old = repo.commit("base")
    repo.write("include/shape.h", HEADER_AFTER)
    new = repo.commit("change")
    bare = tmp_path / "bare.git"
    repo.git("clone", "-q", "--bare", str(repo.root), str(bare))
    loaded = load_change(bare, ChangeSelector(SelectorMode.RANGE, ref=f"{old}..{new}"),
                         use_cache=False)
    assert [u.language for u in loaded.units] == ["cpp"]
    assert repository_languages(loaded.repo, loaded.change_set).cpp_headers


def test_a_commits_headers_are_read_as_that_commit_says_not_as_today(
        repo: GitRepoBuilder) -> None:
    """A C repository that later became C++: its old commit's header is still C (an old
    commit reviewed, or evaluated by ``reviewtui eval``, must not see the future)."""
    repo.write("src/shape.c", '#include "shape.h"\n')
    repo.write("include/shape.h", C_HEADER)
    repo.commit("base")
    repo.write("include/shape.h", C_HEADER.replace("double w, h;", "double w, h, d;"))
    old = repo.commit("a third dimension")
    repo.write("src/more.cpp", "namespace geo { int more() { return 1; } }\n")
    repo.commit("port to C++")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref=old),
                         use_cache=False)
    assert [u.language for u in loaded.units] == ["c"]
