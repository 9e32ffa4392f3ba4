"""Structure gaps left from the language work, each on real-looking code through the pipeline.

C# properties and C++ conversion operators are definitions (a change in a getter sits in the
property, not in "the class"); statement-form namespaces name what follows them; a change to a
Kotlin primary constructor is a constructor change; PHP docblock annotations (``@IsGranted``,
``@Route``, ``@ORM\\Column``) are behaviour, not comments.
"""

from __future__ import annotations

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.rules import RuleSuggestion
from reviewtui.units import ReviewUnit
from tests.conftest import GitRepoBuilder
from tests.unit.rules.language_cases import EvidenceCase, check


def _unit(repo: GitRepoBuilder, path: str, before: str, after: str
          ) -> tuple[ReviewUnit, RuleSuggestion]:
    repo.write(path, before)
    repo.commit("base")
    repo.write(path, after)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL))
    (unit,) = [u for u in loaded.units if u.file_path == path]
    return unit, loaded.suggestions[unit.unit_id]


CS_ORDER = """using System.Text.Json.Serialization;

namespace Shop.Models;

public class Order
{
    private decimal total;

    [JsonPropertyName("total")]
    public decimal Total
    {
        get { return total; }
        set { total = value; }
    }

    public string Label => $"Order {total}";
}
"""


def test_a_csharp_property_is_a_definition_in_its_statement_namespace(
        repo: GitRepoBuilder) -> None:
    unit, suggestion = _unit(repo, "src/Shop/Models/Order.cs", CS_ORDER, CS_ORDER.replace(
        "set { total = value; }", "set { total = Math.Round(value, 2); }"))
    assert unit.functions == ("Shop.Models.Order.Total",), unit.functions
    assert "in_single_function" in unit.tags
    assert "signature_change" not in unit.tags  # the accessors are the body, not the header
    (scope,) = [s for s in unit.scopes if s.role == "encloses"]
    assert (scope.kind, scope.signature, scope.decorators) == (
        "method", "public decimal Total", ('[JsonPropertyName("total")]',))
    # the property's attribute is read as the attribute of the changed definition
    assert "cs:serialization([JsonPropertyName)" in suggestion.notes, suggestion.notes


CPP_HANDLE = """#include <cstdio>

namespace io {

class Handle {
public:
    explicit Handle(FILE *f) : f_(f) {}

    explicit operator bool() const {
        return f_ != nullptr;
    }

private:
    FILE *f_;
};

}  // namespace io
"""


def test_a_cpp_conversion_operator_is_a_definition(repo: GitRepoBuilder) -> None:
    unit, _ = _unit(repo, "src/io/handle.hpp", CPP_HANDLE, CPP_HANDLE.replace(
        "return f_ != nullptr;", "return f_ != nullptr && !ferror(f_);"))
    assert unit.functions == ("io.Handle.operator bool",), unit.functions
    assert "in_single_function" in unit.tags


PHP_CONTROLLER = """<?php
namespace App\\Controller\\Admin;

use Sensio\\Bundle\\FrameworkExtraBundle\\Configuration\\IsGranted;
use Symfony\\Component\\Routing\\Annotation\\Route;

class UserController extends AbstractController
{
    /**
     * Lists the users.
     *
     * @Route("/admin/users", name="admin_users")
     * @IsGranted("ROLE_ADMIN")
     */
    public function index(UserRepository $users): Response
    {
        return $this->render('admin/users.html.twig', ['users' => $users->findAll()]);
    }
}
"""


def test_a_php_docblock_annotation_is_behaviour_not_a_comment(repo: GitRepoBuilder) -> None:
    check(repo, EvidenceCase(
        "IsGranted lowered in a docblock", "src/Controller/Admin/UserController.php",
        PHP_CONTROLLER, PHP_CONTROLLER.replace('@IsGranted("ROLE_ADMIN")',
                                               '@IsGranted("ROLE_USER")'),
        level="function", risk={"high", "critical"},
        labels={'php:security_attribute(@IsGranted)'},
        absent={"pattern:comment_only"}))


def test_a_php_docblock_prose_change_is_still_a_comment(repo: GitRepoBuilder) -> None:
    unit, suggestion = _unit(
        repo, "src/Controller/Admin/UserController.php", PHP_CONTROLLER,
        PHP_CONTROLLER.replace("Lists the users.", "Lists every user of the shop."))
    assert "only_comments" in unit.tags
    assert suggestion.risk.value == "low", suggestion.notes


def test_php_definitions_are_named_in_their_statement_namespace(repo: GitRepoBuilder) -> None:
    unit, _ = _unit(repo, "src/Controller/Admin/UserController.php", PHP_CONTROLLER,
                    PHP_CONTROLLER.replace("findAll()", "findBy(['active' => true])"))
    assert unit.functions == ("App.Controller.Admin.UserController.index",), unit.functions


KT_ORDER = """package shop

data class Order(
    val id: Long,
    val total: Long,
) {
    fun withTip(tip: Long) = copy(total = total + tip)
}
"""


def test_a_kotlin_primary_constructor_change_is_a_constructor_change(
        repo: GitRepoBuilder) -> None:
    check(repo, EvidenceCase(
        "primary constructor gains a parameter", "src/main/kotlin/shop/Order.kt", KT_ORDER,
        KT_ORDER.replace("    val total: Long,\n",
                         "    val total: Long,\n    val tip: Long = 0,\n"),
        level="file_context", risk={"medium", "high", "critical"},
        labels={"symbol:constructor(Order)"},
        requests={("search_class_methods", "Order")}))
