"""Symbol analysis (public API, constructors, interfaces, data models) for Rust, C, C++, C#,
PHP and Kotlin, through the real pipeline: a real repository, one edit, the unit's facts."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.rules.symbols import SymbolFacts
from tests.conftest import GitRepoBuilder


@dataclass(frozen=True)
class Edit:
    name: str
    path: str
    before: str
    old: str
    new: str
    public: tuple[str, ...] = ()
    constructors: tuple[str, ...] = ()
    interfaces: tuple[str, ...] = ()
    models: tuple[str, ...] = ()


RUST = """use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct Order {
    pub total: u64,
}

impl Order {
    pub fn new(total: u64) -> Self {
        Order { total }
    }

    pub fn charge(&self, amount: u64) -> u64 {
        self.total + amount
    }

    fn audit(&self) -> bool {
        true
    }
}

pub trait Shape {
    fn area(&self) -> f64;
}
"""

C = """#include <stddef.h>

struct buffer {
    char *data;
    size_t len;
};

int buffer_append(struct buffer *b, const char *s)
{
    return 0;
}

static int grow(struct buffer *b)
{
    return 1;
}
"""

CPP = """namespace geo {
class Shape {
public:
    Shape(int sides);
    virtual double area() const = 0;
    double scale(double by) const;
private:
    int sides_;
    void check();
};
}  // namespace geo
"""

CSHARP = """namespace Shop
{
    public class OrderService
    {
        public OrderService(IRepo repo) { }

        public decimal Charge(decimal amount)
        {
            return amount;
        }

        private void Audit()
        {
        }
    }

    public interface IRepo
    {
        void Save();
    }

    public record Order(decimal Total);
}
"""

PHP = """<?php
namespace App\\Models;

class Order extends Model
{
    public function __construct(array $attributes = []) {}

    public function charge(int $amount): int
    {
        return $amount;
    }

    private function audit(): bool
    {
        return true;
    }
}

trait Auditable
{
    public function audited(): bool { return true; }
}
"""

KOTLIN = """package shop

data class Order(val total: Long)

class OrderService(private val repo: Repo) {
    constructor(url: String) : this(Repo(url))

    fun charge(amount: Long): Long {
        return amount
    }

    private fun audit(): Boolean {
        return true
    }
}

interface Repo {
    fun save(order: Order)
}
"""

EDITS = [
    Edit("rust pub fn", "src/order.rs", RUST, "pub fn charge(&self, amount: u64)",
         "pub fn charge(&self, amount: u64, tip: u64)", public=("charge",)),
    Edit("rust private fn", "src/order.rs", RUST, "fn audit(&self) -> bool",
         "fn audit(&self, deep: bool) -> bool"),
    Edit("rust fn new", "src/order.rs", RUST, "pub fn new(total: u64) -> Self",
         "pub fn new(total: u64, tip: u64) -> Self", constructors=("Order",)),
    Edit("rust trait", "src/order.rs", RUST, "fn area(&self) -> f64;",
         "fn area(&self) -> f64;\n    fn name(&self) -> String;", interfaces=("Shape",)),
    Edit("rust serde struct", "src/order.rs", RUST, "pub total: u64,",
         "pub total: u64,\n    pub tip: u64,", models=("Order",)),
    Edit("c function", "lib/buffer.c", C, "int buffer_append(struct buffer *b, const char *s)",
         "int buffer_append(struct buffer *b, const char *s, size_t n)",
         public=("buffer_append",)),
    Edit("c static function", "lib/buffer.c", C, "static int grow(struct buffer *b)",
         "static int grow(struct buffer *b, size_t by)"),
    Edit("c struct", "lib/buffer.c", C, "size_t len;", "size_t len;\n    size_t cap;",
         models=("buffer",)),
    Edit("cpp public method", "src/shape.cpp", CPP, "double scale(double by) const;",
         "double scale(double by, double min) const;", public=("scale",)),
    Edit("cpp private method", "src/shape.cpp", CPP, "void check();", "void check(bool deep);"),
    Edit("cpp constructor", "src/shape.cpp", CPP, "Shape(int sides);",
         "explicit Shape(int sides);", constructors=("Shape",)),
    Edit("cpp pure virtual", "src/shape.cpp", CPP, "virtual double area() const = 0;",
         "virtual double area(double unit) const = 0;", public=("area",),
         interfaces=("Shape",)),
    Edit("csharp public method", "Shop/OrderService.cs", CSHARP,
         "public decimal Charge(decimal amount)", "public decimal Charge(decimal amount, int n)",
         public=("Charge",)),
    Edit("csharp private method", "Shop/OrderService.cs", CSHARP, "private void Audit()",
         "private void Audit(bool deep)"),
    Edit("csharp constructor", "Shop/OrderService.cs", CSHARP,
         "public OrderService(IRepo repo) { }", "public OrderService(IRepo repo, int n) { }",
         constructors=("OrderService",)),
    Edit("csharp interface", "Shop/OrderService.cs", CSHARP, "void Save();",
         "void Save();\n        void Delete();", interfaces=("IRepo",)),
    Edit("csharp record", "Shop/OrderService.cs", CSHARP, "public record Order(decimal Total);",
         "public record Order(decimal Total, decimal Tip);", public=("Order",),
         models=("Order",)),
    Edit("php public method", "app/Models/Order.php", PHP,
         "public function charge(int $amount): int", "public function charge(int $a, int $b): int",
         public=("charge",), models=("Order",)),  # inside the model: its users matter
    Edit("php private method", "app/Models/Order.php", PHP, "private function audit(): bool",
         "private function audit(bool $deep): bool", models=("Order",)),
    Edit("php constructor", "app/Models/Order.php", PHP,
         "public function __construct(array $attributes = []) {}",
         "public function __construct(array $attributes = [], bool $x = false) {}",
         constructors=("Order",), models=("Order",)),
    Edit("php eloquent model", "app/Models/Order.php", PHP, "class Order extends Model",
         "final class Order extends Model", public=("Order",), models=("Order",)),
    Edit("php trait", "app/Models/Order.php", PHP,
         "public function audited(): bool { return true; }",
         "public function audited(): bool { return false; }", public=("audited",),
         interfaces=("Auditable",)),
    Edit("kotlin fun", "src/main/kotlin/shop/Order.kt", KOTLIN, "fun charge(amount: Long): Long",
         "fun charge(amount: Long, tip: Long): Long", public=("charge",)),
    Edit("kotlin private fun", "src/main/kotlin/shop/Order.kt", KOTLIN,
         "private fun audit(): Boolean", "private fun audit(deep: Boolean): Boolean"),
    Edit("kotlin secondary constructor", "src/main/kotlin/shop/Order.kt", KOTLIN,
         "constructor(url: String) : this(Repo(url))",
         "constructor(url: String, n: Int) : this(Repo(url))", constructors=("OrderService",)),
    Edit("kotlin data class", "src/main/kotlin/shop/Order.kt", KOTLIN,
         "data class Order(val total: Long)", "data class Order(val total: Long, val tip: Long)",
         public=("Order",), models=("Order",), constructors=("Order",)),
    Edit("kotlin interface", "src/main/kotlin/shop/Order.kt", KOTLIN,
         "fun save(order: Order)", "fun save(order: Order, flush: Boolean)",
         public=("save",), interfaces=("Repo",)),
]


def _facts(repo: GitRepoBuilder, edit: Edit) -> SymbolFacts:
    assert edit.old in edit.before
    repo.write(edit.path, edit.before)
    repo.commit("base")
    repo.write(edit.path, edit.before.replace(edit.old, edit.new))
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL), use_cache=False)
    [unit] = loaded.units
    assert unit.parsed, unit
    return loaded.rules.handler(unit.language).symbols(unit)


@pytest.mark.parametrize("edit", EDITS, ids=[e.name for e in EDITS])
def test_symbol_facts(repo: GitRepoBuilder, edit: Edit) -> None:
    facts = _facts(repo, edit)
    assert facts.public_api == edit.public
    assert facts.constructors == edit.constructors
    assert facts.interfaces == edit.interfaces
    assert facts.data_models == edit.models
