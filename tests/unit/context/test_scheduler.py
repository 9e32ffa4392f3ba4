"""Bundles through the real pipeline: change -> rules -> fused plan -> overrides -> bundles.

Each test builds a real repository, lets the person's overrides pick the level and the extra
requests (as the TUI will), and checks what the bundle holds.
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.models import ContextBundle, ContextLevel
from reviewtui.pipeline import LoadedChange, load_change
from reviewtui.plan import OverrideSet, UnitOverride
from tests.conftest import GitRepoBuilder


def _bundle(loaded: LoadedChange, path: str, level: ContextLevel | None,
            requests: list[dict[str, Any]], **budget: int) -> ContextBundle:
    unit = next(u for u in loaded.units if u.file_path == path)
    override = UnitOverride.model_validate({"level": level, "add_requests": requests})
    plan = loaded.plan(use_llm=False, overrides=OverrideSet(units={unit.unit_id: override}))
    (bundle,) = loaded.bundles(plan, [unit.unit_id], **budget).bundles
    return bundle


def _files(snippets: list[Any]) -> set[str]:
    return {s.file_path for s in snippets}


SERVICE = '''\
class Billing:
    def __init__(self, rate):
        self.rate = rate

    @audited("charge")
    def charge(self, amount):
        total = amount * self.rate
        return total

    def refund(self, amount):
        return -amount
'''


def test_a_python_method_with_two_callers(repo: GitRepoBuilder) -> None:
    repo.write("app/service.py", SERVICE)
    repo.write("app/views.py", "from app.service import Billing\n\n\ndef pay(b):\n"
                               "    return b.charge(10)\n")
    repo.write("app/jobs.py", "def nightly(billing):\n    # charge everyone\n"
                              "    billing.charge(1)\n    billing.charge_all()\n")
    repo.commit("base")
    repo.write("app/service.py", SERVICE.replace("amount * self.rate",
                                                 "round(amount * self.rate, 2)"))
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    bundle = _bundle(loaded, "app/service.py", ContextLevel.FUNCTION,
                     [{"type": "search_callers"}, {"type": "previous_version"}])
    assert _files(bundle.callers) == {"app/views.py", "app/jobs.py"}
    jobs = next(c for c in bundle.callers if c.file_path == "app/jobs.py")
    assert jobs.line == 3 and "billing.charge(1)" in jobs.snippet
    # The function level: the decorated method, not the class, not its siblings.
    assert bundle.function_context is not None
    assert '@audited("charge")' in bundle.function_context
    assert "def refund" not in bundle.function_context
    assert bundle.file_context is None and bundle.full_file is None
    # The previous version is the base side: the old expression, with old numbers.
    assert bundle.previous_version is not None
    assert "total = amount * self.rate" in bundle.previous_version
    assert "round(" not in bundle.previous_version
    assert bundle.budget.used <= bundle.budget.limit
    names = [p.name for p in bundle.budget.pieces]
    assert names[:4] == ["rendering", "diff", "function_context", "previous_version"]


def test_a_go_function_called_from_another_package(repo: GitRepoBuilder) -> None:
    repo.write("go.mod", "module example.com/m\n\ngo 1.21\n")
    repo.write("mathx/sum.go", "package mathx\n\n// Sum adds.\nfunc Sum(xs []int) int {\n"
                               "\tt := 0\n\tfor _, x := range xs {\n\t\tt += x\n\t}\n"
                               "\treturn t\n}\n")
    repo.write("cmd/main.go", 'package main\n\nimport "example.com/m/mathx"\n\nfunc main() {\n'
                              "\tprintln(mathx.Sum([]int{1, 2}))\n}\n")
    repo.commit("base")
    repo.write("mathx/sum.go", repo.root.joinpath("mathx/sum.go").read_text().replace(
        "t += x", "t += x * 1"))
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    bundle = _bundle(loaded, "mathx/sum.go", ContextLevel.FUNCTION,
                     [{"type": "callers", "symbol": "mathx.Sum"}])
    assert _files(bundle.callers) == {"cmd/main.go"}
    assert bundle.function_context is not None and "func Sum(" in bundle.function_context


def test_a_typescript_class_method(repo: GitRepoBuilder) -> None:
    cart = ("export class Cart {\n  items: string[] = [];\n\n  addItem(item: string): void {\n"
            "    this.items.push(item);\n  }\n\n  clear(): void {\n    this.items = [];\n  }\n}\n")
    repo.write("src/cart.ts", cart)
    repo.write("src/app.ts", "import { Cart } from './cart';\nconst cart = new Cart();\n"
                             "cart.addItem('apple');\n")
    repo.commit("base")
    repo.write("src/cart.ts", cart.replace("this.items.push(item);",
                                           "if (item) { this.items.push(item); }"))
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    bundle = _bundle(loaded, "src/cart.ts", ContextLevel.FILE_CONTEXT,
                     [{"type": "search_callers"}, {"type": "search_class_methods"}])
    assert _files(bundle.callers) == {"src/app.ts"}
    assert "cart.addItem('apple')" in bundle.callers[0].snippet
    methods = [s for s in bundle.search_results if s.kind == "class_methods"]
    assert any("clear()" in s.snippet for s in methods)
    assert bundle.file_context is not None and "export class Cart" in bundle.file_context


def test_a_config_key_read_elsewhere(repo: GitRepoBuilder) -> None:
    repo.write("config/settings.yaml", "payment_timeout: 30\nretries: 2\n")
    repo.write("app/pay.py", 'def timeout(config):\n    return config.get("payment_timeout")\n')
    repo.write("docs/notes.txt", "payment_timeout is documented here\n")
    repo.commit("base")
    repo.write("config/settings.yaml", "payment_timeout: 5\nretries: 2\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    unit = loaded.units[0]
    # The rules ask for the config key's readers on their own, with the key as the symbol.
    plan = loaded.plan(use_llm=False)
    item = plan.plan[0]
    assert ("search_config_usage", "payment_timeout") in [
        (r.type, getattr(r, "symbol", None)) for r in item.extra_requests]
    assert item.final_context_level is ContextLevel.FILE_CONTEXT
    (bundle,) = loaded.bundles(plan, [unit.unit_id]).bundles
    usage = [s for s in bundle.search_results if s.kind == "config_usage"]
    assert usage and usage[0].file_path == "app/pay.py"
    assert bundle.file_context is not None and "retries: 2" in bundle.file_context


def test_a_model_used_in_views(repo: GitRepoBuilder) -> None:
    repo.write("shop/models.py", "from django.db import models\n\n\nclass Order(models.Model):\n"
                                 "    total = models.IntegerField()\n")
    repo.write("shop/views.py", "from shop.models import Order\n\n\ndef list_orders():\n"
                                "    return Order.objects.all()\n")
    repo.write("shop/serializers.py", "from shop.models import Order\n\n\nclass S:\n"
                                      "    model = Order\n")
    repo.commit("base")
    repo.write("shop/models.py", "from django.db import models\n\n\nclass Order(models.Model):\n"
                                 "    total = models.IntegerField()\n"
                                 "    paid = models.BooleanField(default=False)\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    bundle = _bundle(loaded, "shop/models.py", None, [{"type": "search_model_usage"}])
    usage = [s for s in bundle.search_results if s.kind == "model_usage"]
    assert _files(usage) == {"shop/views.py", "shop/serializers.py"}


def test_an_interface_with_two_implementations(repo: GitRepoBuilder) -> None:
    repo.write("src/PaymentGateway.java", "public interface PaymentGateway {\n"
                                          "    void pay(int cents);\n}\n")
    repo.write("src/StripeGateway.java", "public class StripeGateway implements PaymentGateway "
                                         "{\n    public void pay(int cents) {}\n}\n")
    repo.write("src/PaypalGateway.java", "public class PaypalGateway implements PaymentGateway "
                                         "{\n    public void pay(int cents) {}\n}\n")
    repo.commit("base")
    repo.write("src/PaymentGateway.java", "public interface PaymentGateway {\n"
                                          "    void pay(int cents);\n    void refund(int cents);"
                                          "\n}\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    bundle = _bundle(loaded, "src/PaymentGateway.java", None,
                     [{"type": "search_implementations"}])
    found = [s for s in bundle.search_results if s.kind == "implementations"]
    assert _files(found) == {"src/StripeGateway.java", "src/PaypalGateway.java"}


def test_search_keyword_and_notes_for_requests_that_find_nothing(repo: GitRepoBuilder) -> None:
    repo.write("a.py", "FLAG = 'x'\n")
    repo.write("b.py", "import a\nprint(a.FLAG)\n")
    repo.commit("base")
    repo.write("a.py", "FLAG = 'y'\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    bundle = _bundle(loaded, "a.py", ContextLevel.DIFF_ONLY,
                     [{"type": "search", "keyword": "a.FLAG"},
                      {"type": "callers", "symbol": "no_such_function"}])
    assert [(s.file_path, s.line) for s in bundle.search_results] == [("b.py", 2)]
    assert any("no_such_function" in note and "nothing found" in note for note in bundle.notes)
    assert bundle.function_context is None  # diff_only: the diff alone


def test_a_tight_budget_clips_and_drops_and_accounts_for_it(repo: GitRepoBuilder) -> None:
    body = "".join(f"    x{i} = compute({i})\n" for i in range(200))
    repo.write("big.py", f"def big():\n{body}    return x0\n")
    repo.write("use.py", "".join(f"big()  # call {i}\n" for i in range(5)))
    repo.commit("base")
    repo.write("big.py", f"def big():\n{body.replace('compute(100)', 'compute(-100)')}"
                         "    return x0\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    bundle = _bundle(loaded, "big.py", ContextLevel.FULL_FILE,
                     [{"type": "search_callers"}], unit_budget=500)
    account = bundle.budget
    assert account.limit == 500 and account.used <= 500
    statuses = {p.name: p.status for p in account.pieces}
    assert statuses["diff"] == "included"
    assert statuses["full_file"] == "clipped"
    assert "clipped" in (bundle.full_file or "")
    assert all(p.tokens <= p.original_tokens for p in account.pieces)
    # The clipped file left no room: the callers were never searched, and the account says so.
    left_out = [p for p in account.pieces if p.status == "not_fetched"]
    assert [p.name for p in left_out] == ["search_callers 'big'"]
    assert (left_out[0].note or "").startswith("not fetched (over budget)")
    assert left_out[0].original_tokens > 0 and left_out[0].tokens == 0
    assert bundle.callers == []


def test_the_review_budget_goes_to_whole_units(repo: GitRepoBuilder) -> None:
    for n in range(4):
        repo.write(f"m{n}.py", "".join(f"v{i} = {i}\n" for i in range(300)))
    repo.commit("base")
    for n in range(4):
        repo.write(f"m{n}.py", "".join(f"v{i} = {i + (i == 150)}\n" for i in range(300)))
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    overrides = OverrideSet(units={u.unit_id: UnitOverride(level=ContextLevel.FULL_FILE)
                                   for u in loaded.units})
    plan = loaded.plan(use_llm=False, overrides=overrides)
    built = loaded.bundles(plan, unit_budget=4000, review_budget=5000)
    allocation = built.allocation
    assert 0 < len(built.bundles) < 4 and len(built.bundles) + len(allocation.deferred) == 4
    assert allocation.used == sum(b.budget.used for b in built.bundles) <= 5000
    for bundle in built.bundles:  # what is in is whole: nothing clipped to make room
        assert all(p.status == "included" for p in bundle.budget.pieces)
    for deferred in allocation.deferred:
        assert deferred.tokens > 5000 - allocation.used
        assert deferred.reason.startswith("over the review budget: needs ")


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is a test dependency")
def test_scanner_issues_run_the_scanners_for_the_requesting_file(repo: GitRepoBuilder) -> None:
    repo.write("lint_me.py", "def f():\n    return 1\n")
    repo.commit("base")
    repo.write("lint_me.py", "import os\n\n\ndef f():\n    return 1\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    bundle = _bundle(loaded, "lint_me.py", None, [{"type": "scanner_issues"}])
    assert any(f.tool == "ruff" and f.rule_id == "F401" for f in bundle.scanner_issues)


def test_a_deleted_file_and_a_binary_file(repo: GitRepoBuilder) -> None:
    repo.write("gone.py", "def old():\n    return 'bye'\n")
    repo.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00binary")
    repo.commit("base")
    (repo.root / "gone.py").unlink()
    repo.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x01binary!")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    gone = _bundle(loaded, "gone.py", ContextLevel.FUNCTION, [{"type": "previous_version"}])
    assert gone.previous_version is not None and "return 'bye'" in gone.previous_version
    logo = _bundle(loaded, "logo.png", ContextLevel.FULL_FILE, [{"type": "previous_version"}])
    assert logo.full_file is None and logo.previous_version is None
    assert any("binary" in note for note in logo.notes)


def test_previous_version_comes_from_the_base_side_never_the_disk(repo: GitRepoBuilder) -> None:
    repo.write("m.py", "def f():\n    return 'v1'\n")
    first = repo.commit("v1")
    repo.write("m.py", "def f():\n    return 'v2'\n")
    repo.commit("v2")
    repo.write("m.py", "def f():\n    return 'v3'\n")
    repo.commit("v3")
    repo.write("m.py", "def f():\n    return 'on disk'\n")  # uncommitted noise
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.RANGE, ref=f"{first}..HEAD~1"))
    bundle = _bundle(loaded, "m.py", ContextLevel.FUNCTION, [{"type": "previous_version"}])
    assert "'v1'" in (bundle.previous_version or "")
    assert "'v2'" in (bundle.function_context or "")
    assert "on disk" not in bundle.model_dump_json() and "'v3'" not in bundle.model_dump_json()
    # --working compares against the index: the previous version is the staged text.
    repo.write("m.py", "def f():\n    return 'staged'\n")
    repo.git("add", "m.py")
    repo.write("m.py", "def f():\n    return 'working'\n")
    working = load_change(repo.root, ChangeSelector(SelectorMode.WORKING))
    bundle = _bundle(working, "m.py", ContextLevel.FUNCTION, [{"type": "previous_version"}])
    assert "'staged'" in (bundle.previous_version or "")
    assert "'working'" in (bundle.function_context or "")


def test_batched_name_search_finds_the_same_callers(repo: GitRepoBuilder) -> None:
    names = [f"fn{i}" for i in range(12)]
    repo.write("lib.py", "".join(f"def {n}():\n    return {i}\n\n\n" for i, n in enumerate(names)))
    repo.write("use.py", "import lib\n" + "".join(f"lib.{n}()  # {n}\nlib.{n}x()\n"
                                                 for n in names))
    repo.commit("base")
    repo.write("lib.py", "".join(f"def {n}():\n    return {i + 100}\n\n\n"
                                 for i, n in enumerate(names)))
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    requests = [{"type": "search_callers"}]
    overrides = OverrideSet(units={u.unit_id: UnitOverride.model_validate(
        {"add_requests": requests}) for u in loaded.units})
    plan = loaded.plan(use_llm=False, overrides=overrides)
    batched = loaded.bundles(plan).bundles  # all names in one grep
    one_by_one = [loaded.bundles(plan, [u.unit_id]).bundles[0] for u in loaded.units]
    assert [[(c.file_path, c.line) for c in b.callers] for b in batched] == [
        [(c.file_path, c.line) for c in b.callers] for b in one_by_one]
    found = {c.line for b in batched for c in b.callers}
    # The calls only: never fnNx() (odd lines) and never the comments.
    assert found and found <= {2 + 2 * i for i in range(12)}


def test_a_change_inside_one_long_line_reaches_the_bundle(repo: GitRepoBuilder) -> None:
    """Minified code: the change sits in the middle of a 30 KB line. The diff is cut inside
    the removed and the added line, to a window around the characters that changed, marked,
    within the unit budget -- never clipped down to its headers."""
    entries = ",".join(f"k{i}:{i}" for i in range(3000))
    repo.write("app.js", f"function a(){{return 1}}\nvar cfg={{{entries}}};\n"
                         "function b(){return 2}\n")
    repo.commit("base")
    repo.write("app.js", f"function a(){{return 1}}\nvar cfg={{"
                         f"{entries.replace('k1500:1500', 'k1500:eval(userInput)')}}};\n"
                         "function b(){return 2}\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    bundle = _bundle(loaded, "app.js", ContextLevel.DIFF_ONLY, [], unit_budget=2000)
    assert bundle.budget.used <= 2000
    [diff] = [p for p in bundle.budget.pieces if p.name == "diff"]
    assert diff.status == "clipped" and "cut to a window around the change" in (diff.note or "")
    removed = next(ln for ln in bundle.diff.splitlines() if ln[12:13] == "-")
    added = next(ln for ln in bundle.diff.splitlines() if ln[12:13] == "+")
    assert "k1500:1500" in removed and "k1500:eval(userInput)" in added
    assert "k0:0" not in added and " chars]" in added and "chars …]" in added
    assert "function b(){return 2}" in bundle.diff  # the short lines stay whole


def test_used_is_the_token_count_of_the_bundle_as_sent(repo: GitRepoBuilder) -> None:
    """The last section ends in a four-backtick fence (its code holds ```): dropping its
    blank line would save a token there ("````\\n\\n" is three, "````\\n" two), so the
    budget, counted part by part, would not be what is sent (seen on gson: 2,518 stated,
    2,517 sent). ``used`` is the token count of ``render_bundle_markdown``."""
    from reviewtui.context import render_bundle_markdown
    from reviewtui.llm.tokens import counter_for_encoding

    source = 'def run(x):\n    """Usage:\n    ```\n    run --fast\n    ```\n    """\n    return x\n'
    repo.write("cli.py", source)
    repo.commit("base")
    repo.write("cli.py", source.replace("return x", "return x + 1"))
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    bundle = _bundle(loaded, "cli.py", ContextLevel.DIFF_ONLY, [{"type": "previous_version"}])
    assert bundle.previous_version is not None and "```" in bundle.previous_version
    assert not bundle.notes
    sent = render_bundle_markdown(bundle)
    assert sent.rstrip("\n").endswith("\n````")
    assert counter_for_encoding(bundle.budget.counter).count(sent) == bundle.budget.used


def test_a_file_over_max_file_bytes_says_why_it_has_no_context(repo: GitRepoBuilder) -> None:
    """A committed file larger than ``git.max_file_bytes`` is not read: the bundle's notes
    said "file content not available", as if the file were missing; they name the limit."""
    source = "".join(f"def f{i}(a):\n    return a * {i}\n\n\n" for i in range(200))
    repo.write(".reviewtui.toml", "[git]\nmax_file_bytes = 1024\n")
    repo.write("big.py", source)
    repo.commit("base")
    repo.write("big.py", source.replace("return a * 100\n", "return a * 101\n"))
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    bundle = _bundle(loaded, "big.py", ContextLevel.FULL_FILE, [{"type": "previous_version"}])
    assert bundle.full_file is None and bundle.previous_version is None
    size = len(source.encode())
    assert (f"full_file: big.py is {size:,} bytes, over git.max_file_bytes (1,024): not read"
            in bundle.notes)
    assert (f"previous_version: big.py is {size:,} bytes, over git.max_file_bytes (1,024): "
            "not read" in bundle.notes)
