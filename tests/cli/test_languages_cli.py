"""Rust, C, C++, C#, PHP and Kotlin through ``reviewtui index`` and ``reviewtui bundle``.

Per language, on a real repository: a change inside a nested definition (a method in an impl
block or a namespaced class, a closure or lambda in a function) gets exactly the innermost
definition, attributes included, as its function context; a changed signature is tagged; the
callers of a changed function are real references -- not comments, strings, longer identifiers
or the definition itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder


@dataclass(frozen=True)
class Nested:
    """A change at ``line`` (the text of the changed line) and the context it must get."""

    line: str
    replacement: str
    context: str  # "kind qualified.name"
    first: str  # the first line of the definition (its first attribute)
    last: str


@dataclass(frozen=True)
class Language:
    name: str
    path: str
    source: str
    nested: tuple[Nested, ...]
    signature: tuple[str, str]  # (old, new) header text
    symbol: str  # what the signature change defines
    function: str  # the name callers are asked for
    caller: tuple[str, str]  # (path, text) of a file that really calls it
    not_callers: tuple[str, str]  # (path, text): the name only in comments/strings/longer names
    added: str  # a whole new type with a function in it (a struct and a function in C)


RUST = Language(
    "rust", "src/billing.rs",
    """pub struct Invoice {
    total: u64,
}

impl Invoice {
    #[inline]
    #[must_use]
    pub fn charge(&self, amount: u64) -> u64 {
        let fee = |x: u64| {
            x / 100
        };
        self.total + amount + fee(amount)
    }
}
""",
    (Nested("            x / 100", "            x / 50", "function Invoice.charge.fee",
            "        let fee = |x: u64| {", "        };"),
     Nested("        self.total + amount + fee(amount)", "        self.total + fee(amount)",
            "method Invoice.charge", "    #[inline]", "    }")),
    ("pub fn charge(&self, amount: u64) -> u64",
     "pub fn charge(&self, amount: u64, tip: u64) -> u64"),
    "Invoice.charge", "charge",
    ("src/main.rs", "fn main() {\n    let due = invoice.charge(5);\n}\n"),
    ("src/notes.rs", "// charge() is called from main\nfn charge_all() {\n"
                     "    let label = \"charge\";\n}\n"),
    "\npub struct Refund {\n    amount: u64,\n}\n\nimpl Refund {\n"
    "    pub fn apply(&self) -> u64 {\n        self.amount\n    }\n}\n",
)

C = Language(
    "c", "lib/buffer.c",
    """#include <stddef.h>

#define GROW(b, n) \\
    ((b)->cap * 2 + (n))

int buffer_append(struct buffer *b, const char *s, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = GROW(b, n);
    }
    return 0;
}
""",
    (Nested("    ((b)->cap * 2 + (n))", "    ((b)->cap * 3 + (n))", "macro GROW",
            "#define GROW(b, n) \\", "    ((b)->cap * 2 + (n))"),
     Nested("        b->cap = GROW(b, n);", "        b->cap = GROW(b, n + 1);",
            "function buffer_append", "int buffer_append(struct buffer *b, const char *s, "
            "size_t n)", "}")),
    ("int buffer_append(struct buffer *b, const char *s, size_t n)",
     "int buffer_append(struct buffer *b, const char *s)"),
    "buffer_append", "buffer_append",
    ("lib/main.c", "int main(void)\n{\n    return buffer_append(0, \"x\", 1);\n}\n"),
    ("lib/notes.c", "/* buffer_append grows the buffer */\n"
                    "static const char *name = \"buffer_append\";\n"
                    "int buffer_append_all(void);\n"),
    "\nstruct refund {\n    int amount;\n};\n\nint refund_apply(struct refund *r)\n{\n"
    "    return r->amount;\n}\n",
)

CPP = Language(
    "cpp", "src/cart.cpp",
    """namespace shop {
class Cart {
public:
    [[nodiscard]]
    int total(int tax) const {
        auto add = [tax](int x) {
            return x + tax;
        };
        return add(sum_);
    }
private:
    int sum_ = 0;
};
}  // namespace shop
""",
    (Nested("            return x + tax;", "            return x - tax;",
            "function shop.Cart.total.add", "        auto add = [tax](int x) {", "        };"),
     Nested("        return add(sum_);", "        return add(sum_ + 1);", "method shop.Cart.total",
            "    [[nodiscard]]", "    }")),
    ("int total(int tax) const {", "int total(int tax, int fee) const {"),
    "shop.Cart.total", "total",
    ("src/main.cpp", "int main() {\n    shop::Cart cart;\n    return cart.total(1);\n}\n"),
    ("src/notes.cpp", "// total() sums the cart\nconst char *label = \"total\";\n"
                      "int total_all();\n"),
    "\nclass Refund {\npublic:\n    int apply(int a) {\n        return a;\n    }\n};\n",
)

CSHARP = Language(
    "csharp", "Shop/Api/OrdersController.cs",
    """namespace Shop.Api
{
    public class OrdersController
    {
        [HttpPost]
        [Authorize]
        public int Create(int amount)
        {
            Func<int, int> fee = x =>
                x / 100;
            return amount + fee(amount);
        }
    }
}
""",
    (Nested("                x / 100;", "                x / 50;",
            "function Shop.Api.OrdersController.Create.fee",
            "            Func<int, int> fee = x =>", "                x / 100;"),
     Nested("            return amount + fee(amount);", "            return fee(amount);",
            "method Shop.Api.OrdersController.Create", "        [HttpPost]", "        }")),
    ("public int Create(int amount)", "public int Create(int amount, int tip)"),
    "Shop.Api.OrdersController.Create", "Create",
    ("Shop/Client.cs", "class Client\n{\n    int Run(OrdersController c)\n    {\n"
                       "        return c.Create(5);\n    }\n}\n"),
    ("Shop/Notes.cs", "// Create is the POST endpoint\nclass Notes\n{\n"
                      "    string Label = \"Create\";\n    void CreateAll() { }\n}\n"),
    "\npublic class Refund\n{\n    public int Apply(int a)\n    {\n        return a;\n"
    "    }\n}\n",
)

PHP = Language(
    "php", "app/Http/OrderController.php",
    """<?php
namespace App\\Http;

class OrderController
{
    #[Route('/orders')]
    public function create(int $amount): int
    {
        $fee = function ($x) {
            return $x / 100;
        };
        return $amount + $fee($amount);
    }
}
""",
    (Nested("            return $x / 100;", "            return $x / 50;",
            "function App.Http.OrderController.create.$fee",
            "        $fee = function ($x) {", "        };"),
     Nested("        return $amount + $fee($amount);", "        return $fee($amount);",
            "method App.Http.OrderController.create", "    #[Route('/orders')]", "    }")),
    ("public function create(int $amount): int",
     "public function create(int $amount, int $tip): int"),
    "App.Http.OrderController.create", "create",  # a statement namespace qualifies names
    ("app/Client.php", "<?php\nfunction run($c) {\n    return $c->create(5);\n}\n"),
    ("app/Notes.php", "<?php\n// create() makes an order\n$label = 'create';\n"
                      "function create_all() {}\n"),
    "\nclass Refund\n{\n    public function apply(int $a): int\n    {\n        return $a;\n"
    "    }\n}\n",
)

KOTLIN = Language(
    "kotlin", "src/main/kotlin/shop/OrderController.kt",
    """package shop

class OrderController {
    @PostMapping("/orders")
    fun create(amount: Int): Int {
        val fee = { x: Int ->
            x / 100
        }
        return amount + fee(amount)
    }
}
""",
    (Nested("            x / 100", "            x / 50", "function OrderController.create.fee",
            "        val fee = { x: Int ->", "        }"),
     Nested("        return amount + fee(amount)", "        return fee(amount)",
            "method OrderController.create", "    @PostMapping(\"/orders\")", "    }")),
    ("fun create(amount: Int): Int {", "fun create(amount: Int, tip: Int): Int {"),
    "OrderController.create", "create",
    ("src/main/kotlin/shop/Client.kt", "package shop\n\nfun run(c: OrderController): Int {\n"
                                       "    return c.create(5)\n}\n"),
    ("src/main/kotlin/shop/Notes.kt", "package shop\n\n// create() makes an order\n"
                                      "val label = \"create\"\nfun createAll() {}\n"),
    "\nclass Refund {\n    fun apply(a: Int): Int {\n        return a\n    }\n}\n",
)

LANGUAGES = [RUST, C, CPP, CSHARP, PHP, KOTLIN]
IDS = [language.name for language in LANGUAGES]


def _units(cli: CliRunner, root: Path) -> list[dict[str, Any]]:
    result = cli("index", "--json", root)
    assert result.code == 0, result.err
    units: list[dict[str, Any]] = result.json()["units"]
    return units


def _bundle(cli: CliRunner, root: Path, tmp_path: Path, unit_id: str,
            requests: list[dict[str, str]]) -> dict[str, Any]:
    overrides = tmp_path / "overrides.json"
    overrides.write_text(json.dumps({unit_id: {"level": "function", "add_requests": requests}}))
    result = cli("bundle", "--json", "--no-llm", "--overrides", overrides, "--unit", unit_id,
                 root)
    assert result.code == 0, result.err
    [bundle] = result.json()["bundles"]
    return dict(bundle)


@pytest.mark.parametrize("language", LANGUAGES, ids=IDS)
def test_function_context_is_the_innermost_definition_with_its_attributes(
        repo: GitRepoBuilder, cli: CliRunner, tmp_path: Path, language: Language) -> None:
    repo.write(language.path, language.source)
    repo.commit("base")
    lines = language.source.split("\n")
    for nested in language.nested:
        repo.write(language.path, language.source.replace(nested.line, nested.replacement))
        [unit] = _units(cli, repo.root)
        assert unit["language"] == language.name
        bundle = _bundle(cli, repo.root, tmp_path, unit["unit_id"], [])
        first = lines.index(nested.first) + 1
        last = next(n for n in range(lines.index(nested.line) + 1, len(lines) + 1)
                    if lines[n - 1] == nested.last)
        header, *body = bundle["function_context"].split("\n")
        assert header == f"# {language.path}:L{first}-{last} ({nested.context})"
        numbers = [int(row.split("|", 1)[0]) for row in body]
        assert numbers == list(range(first, last + 1))
        assert body[0].split("| ", 1)[1] == nested.first  # the attribute is in, nothing above


@pytest.mark.parametrize("language", LANGUAGES, ids=IDS)
def test_a_changed_signature_is_tagged(repo: GitRepoBuilder, cli: CliRunner,
                                       language: Language) -> None:
    repo.write(language.path, language.source)
    repo.commit("base")
    old, new = language.signature
    repo.write(language.path, language.source.replace(old, new))
    [unit] = _units(cli, repo.root)
    assert "signature_change" in unit["tags"]
    assert unit["symbols"] == [language.symbol]
    body_only = language.source.replace(language.nested[-1].line,
                                        language.nested[-1].replacement)
    repo.write(language.path, body_only)
    [unit] = _units(cli, repo.root)
    assert "signature_change" not in unit["tags"] and "in_single_function" in unit["tags"]


@pytest.mark.parametrize("language", LANGUAGES, ids=IDS)
def test_callers_are_real_references(repo: GitRepoBuilder, cli: CliRunner, tmp_path: Path,
                                     language: Language) -> None:
    repo.write(language.path, language.source)
    for path, text in (language.caller, language.not_callers):
        repo.write(path, text)
    repo.commit("base")
    old, new = language.signature
    repo.write(language.path, language.source.replace(old, new))
    [unit] = _units(cli, repo.root)
    bundle = _bundle(cli, repo.root, tmp_path, unit["unit_id"],
                     [{"type": "callers", "symbol": language.function}])
    caller_path, caller_text = language.caller
    call_line = next(n for n, text in enumerate(caller_text.split("\n"), 1)
                     if f"{language.function}(" in text)
    assert [(c["file_path"], c["line"]) for c in bundle["callers"]] == [
        (caller_path, call_line)]


@pytest.mark.parametrize("language", LANGUAGES, ids=IDS)
def test_a_whole_new_type_and_function_are_tagged_complete(repo: GitRepoBuilder, cli: CliRunner,
                                                           language: Language) -> None:
    repo.write(language.path, language.source)
    repo.commit("base")
    repo.write(language.path, language.source + language.added)
    [unit] = _units(cli, repo.root)
    assert {"complete_class", "complete_function"} <= set(unit["tags"])
