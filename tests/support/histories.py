"""Generated histories with a planted bug: a commit introduces it, a later commit fixes it.

``planted_bug(repo)`` builds, in order: a root commit; the *bug commit* (a pricing function
that subtracts the percentage instead of the share, plus eleven unrelated helpers in other
files, so the change has more than ten units); an unrelated commit; the *fix*; a typo-only
"fix" of the README; and a commit after the fix (the future, as seen from the bug commit).
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.conftest import GitRepoBuilder

PRICING_BEFORE = '''"""Prices."""


def total(items):
    return sum(item.price for item in items)
'''

PRICING_BUG = PRICING_BEFORE + '''

def discounted(price, percent):
    """The price after a discount of ``percent`` per cent."""
    if percent <= 0:
        return price
    return price - percent
'''

PRICING_FIXED = PRICING_BUG.replace("    return price - percent",
                                    "    return price * (100 - percent) / 100")


def helper(name: str, body_lines: int) -> str:
    body = "\n".join(f"    value = value + {i}" for i in range(body_lines))
    return f'\n\ndef {name}(value):\n{body}\n    return value\n'


@dataclass(frozen=True)
class PlantedBug:
    root: str
    bug: str
    unrelated: str
    fix: str
    typo: str
    later: str
    bug_line: int  # the buggy line's number in the bug commit's pricing.py


def planted_bug(repo: GitRepoBuilder) -> PlantedBug:
    repo.write("shop/pricing.py", PRICING_BEFORE)
    repo.write("README.md", "# Shop\n\nA shop. Teh prices are right.\n")
    for n in range(4):
        repo.write(f"shop/util{n}.py", f'"""Utilities {n}."""\n')
    root = repo.commit("initial shop")
    repo.write("shop/pricing.py", PRICING_BUG)
    for n in range(11):
        repo.write(f"shop/util{n % 4}.py" if n < 4 else f"shop/scale{n}.py",
                   f'"""Utilities {n}."""\n' + helper(f"scale_{n}", 3 + n % 3))
    bug = repo.commit("add discounts and scaling helpers")
    repo.write("shop/report.py", '"""Reports."""\n\n\ndef report(items):\n    return len(items)\n')
    unrelated = repo.commit("add a report")
    repo.write("shop/pricing.py", PRICING_FIXED)
    fix = repo.commit("fix discounted price: a percentage is a share of the price")
    repo.write("README.md", "# Shop\n\nA shop. The prices are right.\n")
    typo = repo.commit("fix typo in README")
    repo.write("shop/pricing.py", PRICING_FIXED + helper("later_only", 2))
    repo.write("shop/util0.py", "# rewritten later\n")
    later = repo.commit("add a later helper")
    line = PRICING_BUG.splitlines().index("    return price - percent") + 1
    return PlantedBug(root, bug, unrelated, fix, typo, later, line)


def many_bugs(repo: GitRepoBuilder, count: int = 14, *, bug_in: str = "function") -> list[str]:
    """``count`` bug commits, each changing a function and a far-away constant, the bug in the
    function (``bug_in="constant"``: in the constant, which the shipped weights rank below the
    function), each fixed by a later commit; committed a day apart so time order is clear. The
    bug commits."""
    functions = "".join(f"def f{i}(x):\n    return x + {i}\n" + "\n" * 12 for i in range(count))
    constants = "".join(f"C{i} = {i}\n" + "\n" * 12 for i in range(count))
    repo.write("calc.py", functions + "\n" * 12 + constants)
    repo.commit("initial calc")
    bugs = []
    for i in range(count):
        text = (repo.root / "calc.py").read_text()
        text = text.replace(f"    return x + {i}\n", f"    if x > {i}:\n        return x - {i}\n"
                                                      f"    return x + {i}\n")
        text = text.replace(f"C{i} = {i}\n", f"C{i} = {i + 100}\n")
        repo.write("calc.py", text)
        bugs.append(repo.commit(f"rework f{i} and C{i}", date=f"2024-01-{i + 2:02d}T00:00:00Z"))
    for i in range(count):
        text = (repo.root / "calc.py").read_text()
        if bug_in == "constant":
            repo.write("calc.py", text.replace(f"C{i} = {i + 100}\n", f"C{i} = {i + 10}\n"))
            repo.commit(f"fix C{i}: wrong value", date=f"2024-02-{i + 2:02d}T00:00:00Z")
            continue
        repo.write("calc.py", text.replace(f"        return x - {i}\n",
                                           f"        return x * {i}\n"))
        repo.commit(f"fix f{i}: wrong sign", date=f"2024-02-{i + 2:02d}T00:00:00Z")
    return bugs


def bug_fixed_in(repo: GitRepoBuilder, name: str) -> tuple[str, int]:
    """A bug planted in ``name`` among other edits, then fixed; the bug commit and the
    bug's line."""
    body = f"# {name}\n" + "".join(f"def f{i}(x):\n    y = x * {i}\n    return y + {i}\n\n\n"
                                  for i in range(8))
    repo.write(name, body)
    repo.commit(f"initial {name}")
    repo.write(name, body.replace("return y + 2\n", "return y - 2\n")
               .replace("return y + 5\n", "return y + 50\n"))
    bug = repo.commit(f"rework {name}")
    repo.write(name, body.replace("return y + 5\n", "return y + 50\n"))
    repo.commit(f"fix: wrong sign in {name}")
    return bug, 14
