"""ProjectSearch on real repositories: callers, text, config usage, implementations, model usage,
class methods, the three "after" sides, awkward paths and hostile search text."""

from __future__ import annotations

import re
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest

from reviewtui.code.languages import language_for_path
from reviewtui.config import ContextSettings
from reviewtui.context.search import ProjectSearch
from reviewtui.context.search.project import split_symbol
from reviewtui.context.search.references import SourceFile, classify
from reviewtui.context.search.side import parse_grep_z
from reviewtui.git import ChangeSelector, ContentReader, SelectorMode
from reviewtui.git.model import ChangeSet, Side, SideKind
from reviewtui.models import CodeSnippet
from reviewtui.pipeline import load_change
from tests.conftest import GitRepoBuilder

_NUMBERED = re.compile(r"^ *\d+ \| ")


def search_for(root: Path, mode: SelectorMode = SelectorMode.ALL, ref: str | None = None,
               **settings: Any) -> ProjectSearch:
    loaded = load_change(root, ChangeSelector(mode, ref=ref))
    context = loaded.settings.context.model_copy(update=settings)
    return ProjectSearch(loaded.repo, loaded.change_set, loaded.reader, context)


def where(snippets: list[CodeSnippet]) -> list[tuple[str, int]]:
    return [(s.file_path, s.line) for s in snippets]


def write_all(repo: GitRepoBuilder, files: dict[str, str]) -> None:
    for path, text in files.items():
        repo.write(path, dedent(text))


def assert_numbered(snippet: CodeSnippet) -> None:
    lines = snippet.snippet.split("\n")
    assert all(_NUMBERED.match(line) for line in lines), snippet.snippet
    assert any(line.lstrip().startswith(f"{snippet.line} | ") for line in lines)


# --- callers --------------------------------------------------------------------------------

BILLING = """\
class Billing:
    def compute_total(self, items):
        return sum(items)

    def grand_total(self):
        return self.compute_total([])
"""


@pytest.fixture
def python_callers(repo: GitRepoBuilder) -> GitRepoBuilder:
    write_all(repo, {
        "svc/__init__.py": "",
        "svc/billing.py": BILLING,
        "app/views.py": """\
            from svc.billing import Billing

            def checkout(items):
                billing = Billing()
                total = billing.compute_total(items)
                return total
            """,
        "app/tasks.py": """\
            def nightly(b):
                # compute_total is called below, but this comment is no call


                label = "compute_total"


                cached = b.compute_total_cached()


                return b.compute_total([1, 2])
            """,
        "tests/test_billing.py": """\
            from svc.billing import Billing

            def test_total():
                assert Billing().compute_total([1]) == 1
            """,
        "docs/usage.md": "Call `billing.compute_total(items)` to sum.\n",
    })
    repo.commit("base")
    repo.write("svc/billing.py", BILLING.replace("sum(items)", "sum(items) + 1"))
    return repo


def test_python_callers_are_references_only(python_callers: GitRepoBuilder) -> None:
    search = search_for(python_callers.root)
    found = search.callers("Billing.compute_total")
    # Lines naming the qualifier, then files naming it, tests after them, and last a file
    # that never mentions ``Billing`` (probably another ``compute_total``).
    assert where(found) == [
        ("app/views.py", 5), ("svc/billing.py", 6), ("tests/test_billing.py", 4),
        ("app/tasks.py", 11),
    ]
    for snippet in found:
        assert snippet.kind == "callers"
        assert snippet.symbol == "Billing.compute_total"
        assert_numbered(snippet)
    views = found[0].snippet
    assert "   5 |     total = billing.compute_total(items)" in views
    assert views.startswith("   3 | def checkout(items):")
    assert views.endswith("   6 |     return total")


def test_callers_skip_the_excluded_unit(python_callers: GitRepoBuilder) -> None:
    search = search_for(python_callers.root)
    found = search.callers("compute_total", exclude=[("svc/billing.py", 5, 6)])
    assert ("svc/billing.py", 6) not in where(found)
    assert ("app/views.py", 5) in where(found)


def test_go_function_called_from_another_package(repo: GitRepoBuilder) -> None:
    write_all(repo, {
        "go.mod": "module example.com/shop\n\ngo 1.21\n",
        "pricing/pricing.go": """\
            package pricing

            // Discount returns a tenth.
            func Discount(v int) int {
            \treturn v / 10
            }
            """,
        "cmd/main.go": """\
            package main

            import "example.com/shop/pricing"

            func main() {
            \t_ = pricing.Discount(100)
            \tmsg := "Discount"
            \t_ = msg // Discount applied
            }
            """,
    })
    repo.commit("base")
    repo.write("pricing/pricing.go", (repo.root / "pricing/pricing.go").read_text()
               .replace("/ 10", "/ 20"))
    found = search_for(repo.root).callers("pricing.Discount")
    assert where(found) == [("cmd/main.go", 6)]


def test_typescript_method_called_through_an_object(repo: GitRepoBuilder) -> None:
    write_all(repo, {
        "src/cart.ts": """\
            export class Cart {
              items: string[] = [];
              addItem(id: string): void {
                this.items.push(id);
              }
            }
            """,
        "src/page.ts": """\
            import { Cart } from "./cart";
            const cart = new Cart();


            cart.addItem("x");


            const msg = `addItem is called`;


            const other = cart.addItemLater;
            """,
    })
    repo.commit("base")
    found = search_for(repo.root, SelectorMode.COMMIT, "HEAD").callers("Cart.addItem")
    assert where(found) == [("src/page.ts", 5)]


def test_qualified_symbol_prefers_lines_naming_the_qualifier(repo: GitRepoBuilder) -> None:
    files = {f"m{i}.py": f"def f{i}(x):\n    return x.save()\n" for i in range(4)}
    files["z_order.py"] = "def g(o):\n    return Order.save(o)\n"
    write_all(repo, files)
    repo.commit("base")
    found = search_for(repo.root, SelectorMode.COMMIT, "HEAD", search_max_hits=2).callers(
        "Order.save")
    assert where(found) == [("z_order.py", 2), ("m0.py", 2)]


def test_ruby_callers_and_symbols(repo: GitRepoBuilder) -> None:
    write_all(repo, {
        "app/controllers/orders_controller.rb": """\
            class OrdersController
              before_action :authenticate




              def authenticate
                true
              end
            end
            """,
        "app/services/login.rb": "# authenticate here\nsession.authenticate(user)\n",
    })
    repo.commit("base")
    found = search_for(repo.root, SelectorMode.COMMIT, "HEAD").callers("authenticate")
    # the call site first, then the symbol reference
    assert where(found) == [("app/services/login.rb", 2),
                            ("app/controllers/orders_controller.rb", 2)]


# --- text -----------------------------------------------------------------------------------


def test_text_search_is_literal_and_never_an_option(repo: GitRepoBuilder) -> None:
    write_all(repo, {
        "deploy.sh": "#!/bin/sh\ngit push --force origin main\n",
        "notes.txt": "use -n to dry run\nforce is bad\n",
    })
    repo.commit("base")
    search = search_for(repo.root, SelectorMode.COMMIT, "HEAD")
    found = search.text("--force")
    assert where(found) == [("deploy.sh", 2)]
    assert found[0].kind == "search" and found[0].symbol == "--force"
    assert where(search.text("-n")) == [("notes.txt", 1)]
    assert where(search.text("--")) == [("deploy.sh", 2)]
    assert where(search.text("-e")) == []
    assert search.text("--no-index") == []
    assert search.text("Force") == []  # case-sensitive


@pytest.mark.parametrize("bad", ["", "a\nb", "a\rb", "nul\0byte"])
def test_unusable_text_gives_nothing(python_callers: GitRepoBuilder, bad: str) -> None:
    search = search_for(python_callers.root)
    assert search.text(bad) == []
    assert search.callers(bad) == []
    assert search.model_usage(bad) == []
    assert search.implementations(bad) == []
    assert search.config_usage([bad]) == []
    assert search.class_methods("svc/billing.py", bad) == []


def test_no_match_is_empty(python_callers: GitRepoBuilder) -> None:
    search = search_for(python_callers.root)
    assert search.text("no_such_thing_anywhere") == []
    assert search.callers("no_such_function") == []


def test_hit_cap_and_ranking(repo: GitRepoBuilder) -> None:
    files = {f"tests/test_{i}.py": "from lib import helper\nhelper()\n" for i in range(3)}
    files.update({f"pkg/mod{i}.py": "from lib import helper\nhelper()\n" for i in (3, 1, 2)})
    files["lib.py"] = "def helper():\n    return 1\n"
    write_all(repo, files)
    repo.commit("base")
    search = search_for(repo.root, SelectorMode.COMMIT, "HEAD", search_max_hits=4)
    found = search.callers("helper")
    assert where(found) == [("pkg/mod1.py", 2), ("pkg/mod2.py", 2), ("pkg/mod3.py", 2),
                            ("tests/test_0.py", 2)]
    texts = search_for(repo.root, SelectorMode.COMMIT, "HEAD", search_max_hits=200,
                       search_context_lines=0).text("helper")
    # adjacent hits of one file merge: 6 files x lines 1-2, and lib.py line 1
    assert len(texts) == 7
    assert [s.file_path for s in texts][-3:] == [f"tests/test_{i}.py" for i in range(3)]
    assert texts[1].snippet == "   1 | from lib import helper\n   2 | helper()"


def test_hits_in_one_file_merge_when_their_windows_overlap(repo: GitRepoBuilder) -> None:
    body = "".join(f"line{i}\n" for i in range(1, 31))
    body = body.replace("line5\n", "MARK\n").replace("line8\n", "MARK\n")
    body = body.replace("line25\n", "MARK\n")
    repo.write("data.txt", body)
    repo.commit("base")
    found = search_for(repo.root, SelectorMode.COMMIT, "HEAD").text("MARK")
    assert where(found) == [("data.txt", 5), ("data.txt", 25)]
    first = found[0].snippet.split("\n")
    assert first[0].startswith("   3 | ") and first[-1].startswith("  10 | ")


# --- config usage -----------------------------------------------------------------------------


def test_config_keys_read_in_code(repo: GitRepoBuilder) -> None:
    write_all(repo, {
        "settings.yaml": "server:\n  port: 8080\ndatabase_url: sqlite://\n",
        ".env": "DATABASE_URL=postgres://db\n",
        "config/other.toml": 'DATABASE_URL = "x"\n',
        "app/db.py": """\
            import os

            # DATABASE_URL must be set
            URL = os.environ["DATABASE_URL"]
            """,
        "app/server.py": """\
            def start(config):
                port = config.get("port")
                return port
            """,
        "web/app.js": "const host = settings.server.port;\n",
        "README.md": "Set DATABASE_URL before starting.\n",
    })
    repo.commit("base")
    repo.write("settings.yaml", "server:\n  port: 9090\ndatabase_url: sqlite://\n")
    found = search_for(repo.root).config_usage(["DATABASE_URL", "server.port"],
                                               config_path="settings.yaml")
    assert where(found) == [("app/db.py", 4), ("web/app.js", 1), ("app/server.py", 2),
                            ("README.md", 1)]
    assert [s.symbol for s in found] == ["DATABASE_URL", "server.port", "server.port",
                                         "DATABASE_URL"]
    assert {s.kind for s in found} == {"config_usage"}


# --- model usage ------------------------------------------------------------------------------


def test_model_usage_in_views_and_serializers(repo: GitRepoBuilder) -> None:
    write_all(repo, {
        "shop/models.py": """\
            class Order(Model):
                total = 0


            class Line(Model):
                order = ForeignKey("shop.Order")
            """,
        "shop/views.py": """\
            from shop.models import Order

            def show(pk):
                return Order.objects.get(pk=pk)
            """,
        "shop/serializers.py": """\
            class OrderSerializer(Serializer):
                class Meta:
                    model = Order
            """,
        "shop/admin.py": "# Order admin is elsewhere\nLABEL = 'Order form'\n",
    })
    repo.commit("base")
    repo.write("shop/models.py", (repo.root / "shop/models.py").read_text()
               .replace("total = 0", "total = 1"))
    found = search_for(repo.root).model_usage("Order", exclude=[("shop/models.py", 1, 2)])
    assert where(found) == [("shop/serializers.py", 3), ("shop/views.py", 4),
                            ("shop/models.py", 6)]
    assert "from shop.models import Order" in found[1].snippet  # merged with the import
    assert {s.kind for s in found} == {"model_usage"}


# --- implementations --------------------------------------------------------------------------


def test_java_interface_implementations(repo: GitRepoBuilder) -> None:
    write_all(repo, {
        "src/pay/PaymentGateway.java": """\
            package pay;
            public interface PaymentGateway {
                void charge(int amount);
            }
            """,
        "src/pay/StripeGateway.java": """\
            package pay;
            public class StripeGateway implements PaymentGateway {
                public void charge(int amount) {}
            }
            """,
        "src/pay/PaypalGateway.java": """\
            package pay;
            public class PaypalGateway extends Base
                    implements Auditable, pay.PaymentGateway {
                public void charge(int amount) {}
            }
            """,
        "src/pay/Checkout.java": """\
            package pay;
            class Checkout implements Comparable<PaymentGateway> {
                PaymentGateway gateway;
            }
            """,
    })
    repo.commit("base")
    found = search_for(repo.root, SelectorMode.COMMIT, "HEAD").implementations("PaymentGateway")
    assert where(found) == [("src/pay/PaypalGateway.java", 3), ("src/pay/StripeGateway.java", 2)]
    assert {s.kind for s in found} == {"implementations"}


def test_python_abc_and_typescript_and_ruby_implementations(repo: GitRepoBuilder) -> None:
    write_all(repo, {
        "notify/base.py": """\
            from abc import ABC, abstractmethod

            class Notifier(ABC):
                @abstractmethod
                def send(self, text): ...
            """,
        "notify/email.py": "from notify.base import Notifier\n\n\nclass Email(Notifier):\n"
                           "    def send(self, text): pass\n",
        "notify/sms.py": "from notify import base\n\n\nclass Sms(base.Notifier, Loggable):\n"
                         "    def send(self, text): pass\n",
        "notify/meta.py": "class Weird(metaclass=Notifier):\n    pass\n",
        "web/gateway.ts": "export interface Gateway { pay(): void }\n",
        "web/card.ts": "export class Card implements Gateway {\n  pay(): void {}\n}\n",
        "web/fancy.ts": "interface Fancy extends Gateway {}\n",
        "lib/user.rb": "class Admin < User\nend\n\n\nmodule Tracked\n  include Auditable\nend\n",
    })
    repo.commit("base")
    search = search_for(repo.root, SelectorMode.COMMIT, "HEAD")
    assert where(search.implementations("Notifier")) == [("notify/email.py", 4),
                                                         ("notify/sms.py", 4)]
    assert where(search.implementations("Gateway")) == [("web/card.ts", 1), ("web/fancy.ts", 1)]
    assert where(search.implementations("User")) == [("lib/user.rb", 1)]
    assert where(search.implementations("Auditable")) == [("lib/user.rb", 6)]


def test_rust_cpp_csharp_php_kotlin_implementations(repo: GitRepoBuilder) -> None:
    write_all(repo, {
        "src/shape.rs": "pub trait Shape { fn area(&self) -> f64; }\n",
        "src/circle.rs": "impl Shape for Circle {\n    fn area(&self) -> f64 { 1.0 }\n}\n"
                         "impl Circle {\n    fn shape(&self) -> Shape { todo!() }\n}\n",
        "src/square.rs": "impl<T> geo::Shape for Square<T> {\n}\n",
        "cpp/widget.hpp": "class Button : public Widget, private Noncopyable {\n};\n"
                        "struct Label : Widget {};\nWidget *make();\n",
        "cs/Repo.cs": "public class SqlRepo : IRepo, IDisposable\n{\n}\n"
                      "public class Other { IRepo repo; }\n",
        "php/Order.php": "<?php\nclass Order extends Model implements Jsonable\n{\n"
                         "    use Auditable;\n}\n",
        "kt/Api.kt": "class Api(repo: Repo) : Service, Base() {\n}\n"
                     "object Registry : Service\nfun make(s: Service) = s\n",
    })
    repo.commit("base")
    search = search_for(repo.root, SelectorMode.COMMIT, "HEAD")
    assert where(search.implementations("Shape")) == [("src/circle.rs", 1),
                                                      ("src/square.rs", 1)]
    assert where(search.implementations("Widget")) == [("cpp/widget.hpp", 1), ("cpp/widget.hpp", 3)]
    assert where(search.implementations("IRepo")) == [("cs/Repo.cs", 1)]
    assert where(search.implementations("Model")) == [("php/Order.php", 2)]
    assert where(search.implementations("Auditable")) == [("php/Order.php", 4)]
    assert where(search.implementations("Service")) == [("kt/Api.kt", 1), ("kt/Api.kt", 3)]


def test_go_interface_implementations(repo: GitRepoBuilder) -> None:
    write_all(repo, {
        "go.mod": "module example.com/kv\n\ngo 1.21\n",
        "store/store.go": """\
            package store

            type Store interface {
            \tGet(key string) string
            \tPut(key, value string)
            }
            """,
        "store/mem.go": """\
            package store

            type memStore struct{ m map[string]string }

            func (s memStore) Get(key string) string { return s.m[key] }

            func (s memStore) Put(key, value string) { s.m[key] = value }
            """,
        "disk/disk.go": """\
            package disk

            func (d *diskStore) Get(key string) string { return "" }

            func (d *diskStore) Put(key, value string) {}
            """,
        "disk/types.go": "package disk\n\ntype diskStore struct{}\n",
        "half/half.go": """\
            package half

            type halfStore struct{}

            func (h halfStore) Get(key string) string { return "" }
            """,
    })
    repo.commit("base")
    found = search_for(repo.root, SelectorMode.COMMIT, "HEAD").implementations("Store")
    assert where(found) == [("disk/types.go", 3), ("store/mem.go", 3)]


# --- class methods ----------------------------------------------------------------------------


def test_class_methods_lists_signatures_with_decorators(repo: GitRepoBuilder) -> None:
    source = """\
        class Account:
            balance = 0

            @property
            def total(self) -> int:
                return self.balance

            def deposit(
                self,
                amount: int,
            ) -> None:
                self.balance += amount

            class Inner:
                def hidden(self): pass


        def outside(): pass
        """
    repo.write("bank/account.py", dedent(source))
    repo.commit("base")
    repo.write("bank/account.py", dedent(source).replace("+= amount", "+= 2 * amount"))
    found = search_for(repo.root).class_methods("bank/account.py", "Account")
    assert where(found) == [("bank/account.py", 5), ("bank/account.py", 8)]
    assert found[0].snippet == "   4 |     @property\n   5 |     def total(self) -> int:"
    assert found[1].snippet.split("\n")[-1] == "  11 |     ) -> None:"
    assert {s.kind for s in found} == {"class_methods"}
    go = search_for(repo.root).class_methods("missing.py", "Account")
    assert go == []


def test_class_methods_of_a_go_type_outside_the_change(repo: GitRepoBuilder) -> None:
    repo.write("kv.go", "package kv\n\ntype KV struct{}\n\nfunc (k *KV) Get() int { return 1 }\n"
                        "\nfunc Free() {}\n")
    repo.write("other.py", "x = 1\n")
    repo.commit("base")
    repo.write("other.py", "x = 2\n")
    found = search_for(repo.root).class_methods("kv.go", "KV")
    assert where(found) == [("kv.go", 5)]


# --- the three sides --------------------------------------------------------------------------


def test_worktree_side_includes_untracked_but_not_ignored_files(
        python_callers: GitRepoBuilder) -> None:
    python_callers.write(".gitignore", "ignored/\n")
    python_callers.write("new_caller.py", "def f(b):\n    return b.compute_total([])\n")
    python_callers.write("ignored/gen.py", "def f(b):\n    return b.compute_total([])\n")
    found = search_for(python_callers.root, SelectorMode.ALL).callers("compute_total")
    assert ("new_caller.py", 2) in where(found)
    assert not any(p.startswith("ignored/") for p, _ in where(found))


def test_index_side_sees_staged_content_not_the_disk(python_callers: GitRepoBuilder) -> None:
    python_callers.write("staged.py", "def f(b):\n    return b.compute_total([])\n")
    python_callers.git("add", "staged.py", "svc/billing.py")
    python_callers.write("staged.py", "def f(b):\n    return 0\n")
    python_callers.write("app/disk_only.py", "x.compute_total(1)\n")
    found = search_for(python_callers.root, SelectorMode.STAGED).callers("compute_total")
    assert ("staged.py", 2) in where(found)
    assert not any(p == "app/disk_only.py" for p, _ in where(found))
    [staged] = [s for s in found if s.file_path == "staged.py"]
    assert "return b.compute_total([])" in staged.snippet


def test_commit_side_sees_the_commit_not_the_disk(repo: GitRepoBuilder) -> None:
    repo.write("lib.py", "def ping():\n    return 1\n")
    first = repo.commit("base")
    repo.write("use.py", "import lib\n\n\ndef go():\n    return lib.ping()\n")
    second = repo.commit("use ping")
    repo.write("use.py", "import lib\n\n\ndef go():\n    return None\n")
    repo.write("disk.py", "lib.ping()\n")
    for search in (search_for(repo.root, SelectorMode.RANGE, f"{first}..{second}"),
                   search_for(repo.root, SelectorMode.COMMIT, "HEAD")):
        found = search.callers("lib.ping")
        assert where(found) == [("use.py", 5)]
        assert "   5 |     return lib.ping()" in found[0].snippet
        assert search.text("return None") == []


def test_paths_with_spaces_and_non_ascii(repo: GitRepoBuilder) -> None:
    repo.write("lib.py", "def ping():\n    return 1\n")
    repo.write("dir with space/ünïcode: file.py", "from lib import ping\nping()\n")
    repo.commit("base")
    repo.write("lib.py", "def ping():\n    return 2\n")
    for mode, ref in ((SelectorMode.ALL, None), (SelectorMode.COMMIT, "HEAD")):
        found = search_for(repo.root, mode, ref).callers("ping")
        assert where(found) == [("dir with space/ünïcode: file.py", 2)]
        assert "   2 | ping()" in found[0].snippet


def test_a_foreign_patch_cannot_be_searched(tmp_path: Path) -> None:
    change_set = ChangeSet(tmp_path, "patch", Side(SideKind.UNKNOWN), Side(SideKind.UNKNOWN))
    search = ProjectSearch(None, change_set, ContentReader(None, change_set, 1000),
                           ContextSettings())
    assert not search.available
    assert search.callers("x") == [] and search.text("x") == []
    assert search.class_methods("a.py", "A") == []


def test_a_timeout_gives_nothing_and_does_not_raise(python_callers: GitRepoBuilder) -> None:
    search = search_for(python_callers.root, search_timeout=1e-9)
    assert search.callers("compute_total") == []


# --- small pieces -----------------------------------------------------------------------------


def test_split_symbol() -> None:
    assert split_symbol("pkg.Class.method") == ("method", ("pkg", "Class"))
    assert split_symbol("Foo::Bar#baz") == ("baz", ("Foo", "Bar"))
    assert split_symbol("github.com/x/pricing.Discount") == (
        "Discount", ("github", "com", "x", "pricing"))
    assert split_symbol("(*Store).Get") == ("Get", ("Store",))
    assert split_symbol("compute()") == ("compute", ())
    assert split_symbol("  ") is None


def test_parse_grep_z_handles_odd_paths_and_rev_prefix() -> None:
    out = (b"abc:x y:z.py\x001\x00a: b\n"
           b"abc:odd\nname.py\x0012\x00text\r\n"
           b"abc:bad\xff.py\x003\x00skip\n"
           b"abc:broken\x00notanumber\x00x\n")
    hits = parse_grep_z(out, b"abc:")
    assert [(h.path, h.line, h.text) for h in hits] == [
        ("x y:z.py", 1, "a: b"), ("odd\nname.py", 12, "text")]


def kinds_on(path: str, source: str, line: int, name: str) -> list[str]:
    parsed = SourceFile(path, language_for_path(path), dedent(source).encode())
    return [k.value for k in classify(parsed, line, "", name)]


@pytest.mark.parametrize(("path", "source", "line", "expected"), [
    ("a.py", "def run(): pass\n", 1, ["definition"]),
    ("a.py", "x = run(1) + runner()  # run it\n", 1, ["call", "comment"]),
    ("a.py", "s = 'run'; t = f'{run()}'\n", 1, ["named_string", "call"]),
    ("a.py", "from m import run\n", 1, ["import"]),
    ("a.py", "f(run=1, key=obj.run)\n", 1, ["not_name", "reference"]),
    ("a.py", '"""run the docs"""\n', 1, ["string"]),
    ("a.js", "const run = () => 1; obj.run(`${run}`)\n", 1,
     ["definition", "call", "reference"]),
    ("a.ts", "class A { run(): void {} }\nlet x = { run: 1 };\n", 2, ["not_name"]),
    ("A.java", "class A { void run() { this.run(); String s = \"run\"; } }\n", 1,
     ["definition", "call", "named_string"]),
    ("a.go", "package a\nfunc run() { go run() } // run\n", 2,
     ["definition", "call", "comment"]),
    ("a.rb", "def run; end\nbefore_action :run\nx.run(\"#{run}\")\n", 3,
     ["call", "reference"]),
    ("a.rb", "def run; end\nbefore_action :run\n", 2, ["reference"]),
    ("a.kt", "fun run() = 1\n", 1, ["definition"]),
    ("a.kt", "val x = run() // run\n", 1, ["call", "comment"]),
    ("a.kt", "// run\n", 1, ["comment"]),
    ("a.kt", 'val s = "run"\n', 1, ["named_string"]),
    ("a.c", "#define X run(1)\n", 1, ["call"]),  # a macro body: read as text
    ("a.c", "int run(int a);\nint x = run(1); /* run */\n", 2, ["call", "comment"]),
    ("a.c", "int run(int a);\n", 1, ["definition"]),  # a prototype
    ("a.c", "struct run *p;\nstruct run { int a; };\n", 1, ["reference"]),
    ("a.c", "struct run *p;\nstruct run { int a; };\n", 2, ["definition"]),
    ("a.rs", "fn run() {}\nfn main() { run(); s.run(); run!(); let t = \"run\"; }\n", 2,
     ["call", "call", "call", "named_string"]),
    ("a.rs", "use crate::jobs::run;\n", 1, ["import"]),
    ("a.cpp", "void A::run() {}\nint main() { a->run(); ns::run(); // run\n}\n", 1,
     ["definition"]),
    ("a.cpp", "void A::run() {}\nint main() { a->run(); ns::run(); // run\n}\n", 2,
     ["call", "call", "comment"]),
    ("a.cs", "class A { void run() { this.run(); var s = $\"{run()}\"; } }\n", 1,
     ["definition", "call", "call"]),
    ("a.php", "<?php\nfunction run() {}\n$a->run(); A::run(); run(); # run\n", 3,
     ["call", "call", "call", "comment"]),
    ("a.php", "<?php\nf(run: 1); $s = 'run';\n", 2, ["not_name", "named_string"]),
    ("a.kt", "class A : Run() { fun x() = a.run() }\n", 1, ["call"]),
])
def test_structural_check_per_language(path: str, source: str, line: int,
                                       expected: list[str]) -> None:
    assert kinds_on(path, source, line, "run") == expected


@pytest.mark.parametrize(("test_file", "code_file", "call"), [
    ("a/ChargeTest.kt", "b/Client.kt", "fun use() = charge(1)\n"),
    ("a/ChargeTests.cs", "b/Client.cs", "class C { int U() { return charge(1); } }\n"),
    ("a/ChargeTest.php", "b/client.php", "<?php\ncharge(1);\n"),
    ("a/charge_test.cc", "b/client.cc", "int u() { return charge(1); }\n"),
    ("a/test_charge.c", "b/client.c", "int u(void) { return charge(1); }\n"),
])
def test_callers_in_test_files_come_after_code(repo: GitRepoBuilder, test_file: str,
                                               code_file: str, call: str) -> None:
    write_all(repo, {test_file: call, code_file: call})
    repo.commit("base")
    found = search_for(repo.root, SelectorMode.COMMIT, "HEAD").callers("charge")
    assert [s.file_path for s in found] == [code_file, test_file]
