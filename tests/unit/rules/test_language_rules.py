"""Table-driven: real small repositories per language, changes that must get a given level/risk.

Each case commits ``before``, writes ``after`` into the work tree and scores the single unit of
``path`` through the real pipeline (git -> units -> rules), as ``reviewtui index`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.rules import RuleSuggestion
from reviewtui.units import ReviewUnit
from tests.conftest import GitRepoBuilder


@dataclass(frozen=True)
class Case:
    name: str
    path: str
    before: str | None
    after: str
    level: str
    risk: set[str]
    labels: set[str] = field(default_factory=set)  # rule labels that must be in the notes
    requests: set[tuple[str, str | None]] = field(default_factory=set)
    min_confidence: float = 0.0
    max_confidence: float = 1.0
    extra_files: dict[str, str] = field(default_factory=dict)


def score(repo: GitRepoBuilder, case: Case) -> tuple[ReviewUnit, RuleSuggestion]:
    for path, text in case.extra_files.items():
        repo.write(path, text)
    if case.before is not None:
        repo.write(case.path, case.before)
    repo.write("README.md", "seed\n")
    repo.commit("base")
    repo.write(case.path, case.after)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL))
    units = [u for u in loaded.units if u.file_path == case.path]
    assert len(units) == 1, [u.location for u in units]
    return units[0], loaded.suggestions[units[0].unit_id]


PY_AUTH_BEFORE = '''import hashlib


def login(user, password):
    digest = hashlib.sha256(password.encode()).hexdigest()
    return user.password_hash == digest


def unrelated():
    return 1
'''

PY_CASES = [
    Case("python login code in auth.py (the reference's diff_only flaw)", "app/auth.py",
         PY_AUTH_BEFORE, PY_AUTH_BEFORE.replace("return user.password_hash == digest",
                                                "return user.password_hash.startswith(digest)"),
         level="file_context", risk={"high", "critical"},
         labels={"pattern:security_sensitive"}, requests={("previous_version", None)},
         min_confidence=0.8),
    Case("flask route", "app/routes_api.py",
         "from flask import Flask\napp = Flask(__name__)\n\n\n@app.route('/items')\n"
         "def items():\n    return []\n",
         "from flask import Flask\napp = Flask(__name__)\n\n\n@app.route('/items')\n"
         "def items():\n    return [1]\n",
         level="function", risk={"high"}, labels={"py:flask:route"}, min_confidence=0.8),
    Case("fastapi router decorator on an added endpoint", "svc/main.py",
         "from fastapi import APIRouter\nrouter = APIRouter()\n",
         "from fastapi import APIRouter\nrouter = APIRouter()\n\n\n@router.post('/orders')\n"
         "async def create_order(order: dict) -> dict:\n    return order\n",
         level="function", risk={"high"}, labels={"py:fastapi:route"}),
    Case("celery shared_task around the changed line", "jobs/work.py",
         "from celery import shared_task\n\n\n@shared_task\ndef send(n):\n    return n\n",
         "from celery import shared_task\n\n\n@shared_task\ndef send(n):\n    return n + 1\n",
         level="function", risk={"high"}, labels={"py:celery:task"}),
    Case("django ORM model", "shop/models.py",
         "from django.db import models\n\n\nclass Order(models.Model):\n"
         "    total = models.IntegerField()\n",
         "from django.db import models\n\n\nclass Order(models.Model):\n"
         "    total = models.IntegerField()\n    note = models.TextField(blank=True)\n",
         level="file_context", risk={"high"}, labels={"py:django:models"},
         requests={("search_model_usage", "Order")}),
    Case("django migration", "shop/migrations/0002_order_note.py",
         None,
         "from django.db import migrations, models\n\n\nclass Migration(migrations.Migration):\n"
         "    operations = [migrations.AddField('order', 'note', models.TextField())]\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:migration"}),
    Case("settings file", "proj/settings.py", "DEBUG = False\nALLOWED_HOSTS = []\n",
         "DEBUG = True\nALLOWED_HOSTS = []\n",
         level="file_context", risk={"medium", "high"}, labels={"pattern:config_change"},
         requests={("search_config_usage", "DEBUG")}),
    Case("test code", "tests/test_math.py", "def test_add():\n    assert 1 + 1 == 2\n",
         "def test_add():\n    assert 1 + 2 == 3\n",
         level="function", risk={"low", "medium"}, labels={"pattern:test_code"},
         max_confidence=0.79),
    Case("comment-only change", "lib/calc.py",
         "def add(a, b):\n    # add two numbers\n    return a + b\n",
         "def add(a, b):\n    # add two integers\n    return a + b\n",
         level="diff_only", risk={"low"}, labels={"pattern:comment_only"}),
    Case("import-only change", "lib/calc.py", "import os\n\n\ndef f():\n    return 1\n",
         "import os\nimport sys\n\n\ndef f():\n    return 1\n",
         level="diff_only", risk={"low"}, labels={"pattern:import_only"}),
    Case("signature change of a public function", "lib/calc.py",
         "def add(a, b):\n    return a + b\n\n\ndef use():\n    return add(1, 2)\n",
         "def add(a, b, c=0):\n    return a + b\n\n\ndef use():\n    return add(1, 2)\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:signature_change"},
         requests={("search_callers", "add")}),
    Case("abstract interface change", "lib/base.py",
         "from abc import ABC, abstractmethod\n\n\nclass Store(ABC):\n    @abstractmethod\n"
         "    def get(self, key):\n        ...\n",
         "from abc import ABC, abstractmethod\n\n\nclass Store(ABC):\n    @abstractmethod\n"
         "    def get(self, key, default=None):\n        ...\n",
         level="file_context", risk={"high", "critical"}, labels={"py:abstract"},
         requests={("search_implementations", "Store")}),
    Case("sql built with an f-string", "lib/repo.py",
         "def find(cur, name):\n    cur.execute('SELECT 1')\n",
         "def find(cur, name):\n    cur.execute(f'SELECT * FROM t WHERE n = {name}')\n",
         level="function", risk={"high", "critical"},
         labels={"py:sql_injection_risk", "pattern:data_access"}),
]

JAVA_CTRL = '''package com.acme.web;

@RestController
public class OrderController {
    @GetMapping("/orders")
    public List<Order> list() {
        return service.all();
    }
}
'''
JAVA_CASES = [
    Case("spring controller method (annotation on the class and the method)",
         "src/main/java/com/acme/web/OrderController.java", JAVA_CTRL,
         JAVA_CTRL.replace("service.all()", "service.all(limit)"),
         level="function", risk={"high"}, labels={"java:spring:web"}, min_confidence=0.8),
    Case("spring security annotation", "src/main/java/com/acme/svc/AdminService.java",
         "package com.acme.svc;\n\npublic class AdminService {\n"
         "    public void wipe() {\n        repo.deleteAll();\n    }\n}\n",
         "package com.acme.svc;\n\npublic class AdminService {\n"
         "    @PreAuthorize(\"hasRole('ADMIN')\")\n"
         "    public void wipe() {\n        repo.deleteAll();\n    }\n}\n",
         level="file_context", risk={"high", "critical"}, labels={"java:spring:security"}),
    Case("jpa entity field", "src/main/java/com/acme/data/Customer.java",
         "package com.acme.data;\n\n@Entity\npublic class Customer {\n"
         "    private String name;\n}\n",
         "package com.acme.data;\n\n@Entity\npublic class Customer {\n    private String name;\n"
         "    private String email;\n}\n",
         level="file_context", risk={"high"}, labels={"java:jpa:entity"},
         requests={("search_model_usage", "Customer")}),
    Case("interface method added", "src/main/java/com/acme/api/Payments.java",
         "package com.acme.api;\n\npublic interface Payments {\n    void pay(long cents);\n}\n",
         "package com.acme.api;\n\npublic interface Payments {\n    void pay(long cents);\n"
         "    void refund(long cents);\n}\n",
         level="file_context", risk={"high", "critical"},
         requests={("search_implementations", "Payments")}),
]

GO_CASES = [
    Case("goroutine and channel", "internal/worker/pool.go",
         "package worker\n\nfunc Run(jobs []int) {\n\tfor _, j := range jobs {\n"
         "\t\thandle(j)\n\t}\n}\n",
         "package worker\n\nfunc Run(jobs []int) {\n\tdone := make(chan bool)\n"
         "\tfor _, j := range jobs {\n\t\tgo func(j int) { handle(j); done <- true }(j)\n"
         "\t}\n}\n",
         level="function", risk={"high"}, labels={"go:concurrency"}),
    Case("gin route registration", "internal/api/router.go",
         "package api\n\nfunc Register(r *gin.Engine) {\n\tr.GET(\"/health\", health)\n}\n",
         "package api\n\nfunc Register(r *gin.Engine) {\n\tr.GET(\"/health\", health)\n"
         "\tr.POST(\"/admin/reset\", reset)\n}\n",
         level="file_context", risk={"high", "critical"}, labels={"go:routes"}),
    Case("exported constructor signature", "pkg/store/store.go",
         "package store\n\nfunc NewStore(path string) *Store {\n\treturn &Store{path: path}\n}\n",
         "package store\n\nfunc NewStore(path string, ro bool) *Store {\n"
         "\treturn &Store{path: path}\n}\n",
         level="file_context", risk={"high", "critical"},
         labels={"go:constructor", "pattern:signature_change"},
         requests={("search_callers", "NewStore")}),
    Case("go test", "pkg/store/store_test.go",
         "package store\n\nfunc TestOpen(t *testing.T) {\n\tOpen()\n}\n",
         "package store\n\nfunc TestOpen(t *testing.T) {\n\tOpen()\n\tOpen()\n}\n",
         level="function", risk={"low", "medium"}, labels={"pattern:test_code"}),
]

TS_CASES = [
    Case("react hook in a component", "web/src/Cart.tsx",
         "export function Cart() {\n  const n = 1;\n  return <div>{n}</div>;\n}\n",
         "export function Cart() {\n  const [n, setN] = useState(1);\n"
         "  return <div>{n}</div>;\n}\n",
         level="function", risk={"medium", "high"}, labels={"ts:framework_hooks"}),
    Case("nestjs guard decorator", "api/src/users/users.ts",
         "@Controller('users')\nexport class UsersController {\n  @Get()\n"
         "  list() {\n    return this.svc.all();\n  }\n}\n",
         "@Controller('users')\nexport class UsersController {\n  @UseGuards(AuthGuard)\n"
         "  @Get()\n  list() {\n    return this.svc.all();\n  }\n}\n",
         level="file_context", risk={"high", "critical"}, labels={"ts:nest:security"}),
    Case("exported TS interface", "web/src/model.ts",
         "export interface Payment {\n  cents: number;\n}\n",
         "export interface Payment {\n  cents: number;\n  currency: string;\n}\n",
         level="file_context", risk={"high", "critical"},
         requests={("search_implementations", "Payment")}),
    Case("innerHTML in plain javascript", "web/src/render.js",
         "export function show(el, text) {\n  el.textContent = text;\n}\n",
         "export function show(el, text) {\n  el.innerHTML = text;\n}\n",
         level="file_context", risk={"high", "critical"}, labels={"ts:dom_injection"}),
]

RUBY_CTRL = '''class SessionsController < ApplicationController
  before_action :require_login, only: [:destroy]

  def destroy
    reset_session
  end

  private

  def require_login
    redirect_to root_path unless current_user
  end
end
'''
RUBY_CASES = [
    Case("method used as a rails callback (found from the enclosing class)",
         "app/controllers/sessions_controller.rb", RUBY_CTRL,
         RUBY_CTRL.replace("unless current_user", "unless current_user&.active?"),
         level="file_context", risk={"high", "critical"}, labels={"rails:callback"}),
    Case("active record model validation", "app/models/user.rb",
         "class User < ApplicationRecord\n  has_many :orders\nend\n",
         "class User < ApplicationRecord\n  has_many :orders\n  validates :email, presence: true\n"
         "end\n",
         level="file_context", risk={"high"}, labels={"rb:rails:model_dsl", "rb:rails:models"},
         requests={("search_model_usage", "User")}),
    Case("rails routes", "config/routes.rb",
         "Rails.application.routes.draw do\n  resources :users\nend\n",
         "Rails.application.routes.draw do\n  resources :users\n  resources :admin\nend\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:routing_change"}),
]

OTHER_CASES = [
    Case("yaml config in an unknown-handler language", "deploy/app.yaml", "replicas: 2\n",
         "replicas: 3\n", level="file_context", risk={"medium", "high"},
         labels={"pattern:config_change"}, requests={("search_config_usage", "replicas")}),
    Case("markdown docs", "docs/guide.md", "# Guide\n", "# Guide\n\nMore words.\n",
         level="diff_only", risk={"low"}, labels={"pattern:doc_change"}),
]

ALL = PY_CASES + JAVA_CASES + GO_CASES + TS_CASES + RUBY_CASES + OTHER_CASES


@pytest.mark.parametrize("case", ALL, ids=[c.name for c in ALL])
def test_language_case(repo: GitRepoBuilder, case: Case) -> None:
    unit, suggestion = score(repo, case)
    explain = f"{unit.tags} -> {suggestion.notes}"
    assert suggestion.context_level.value == case.level, explain
    assert suggestion.risk.value in case.risk, explain
    for label in case.labels:
        assert f"{label}(" in suggestion.notes, explain
    requests = {(r.type, r.symbol) for r in suggestion.extra_requests}
    assert case.requests <= requests, (requests, explain)
    assert case.min_confidence <= suggestion.confidence <= case.max_confidence, explain
    assert f"risk={suggestion.risk.value}" in suggestion.notes


# The same ten situations for every language: login code, a route, an ORM model, a migration, a
# config file, a test, a comment-only change, an import-only change, a signature change and an
# interface change. (Python's are above; these complete Java, Go, TypeScript and Ruby.)
MATRIX = [
    # Java
    Case("java login code", "src/main/java/com/acme/auth/LoginService.java",
         "class LoginService {\n  boolean login(String user, String pw) {\n"
         "    return check(user, pw);\n  }\n}\n",
         "class LoginService {\n  boolean login(String user, String pw) {\n"
         "    return check(user, pw) && active(user);\n  }\n}\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:security_sensitive"},
         min_confidence=0.8),
    Case("java flyway migration", "src/main/resources/db/migration/V2__add_email.sql", None,
         "ALTER TABLE customer ADD COLUMN email TEXT;\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:migration"}),
    Case("java spring config", "src/main/resources/application.yml",
         "server:\n  port: 8080\n", "server:\n  port: 9090\n",
         level="file_context", risk={"high"}, labels={"java:spring:config"}
         | {"pattern:config_change"}, requests={("search_config_usage", "port")}),
    Case("java test", "src/test/java/com/acme/OrderTest.java",
         "class OrderTest {\n  void testTotal() {\n    assertEquals(1, 1);\n  }\n}\n",
         "class OrderTest {\n  void testTotal() {\n    assertEquals(2, 2);\n  }\n}\n",
         level="function", risk={"low", "medium"}, labels={"pattern:test_code"}),
    Case("java comment only", "src/main/java/com/acme/Util.java",
         "class Util {\n  // adds\n  int add(int a) {\n    return a;\n  }\n}\n",
         "class Util {\n  // adds one\n  int add(int a) {\n    return a;\n  }\n}\n",
         level="diff_only", risk={"low"}, labels={"pattern:comment_only"}),
    Case("java import only", "src/main/java/com/acme/Util.java",
         "package com.acme;\n\nimport java.util.List;\n\nclass Util {\n}\n",
         "package com.acme;\n\nimport java.util.List;\nimport java.util.Map;\n\nclass Util {\n}\n",
         level="diff_only", risk={"low"}, labels={"pattern:import_only"}),
    Case("java signature change", "src/main/java/com/acme/Util.java",
         "public class Util {\n  public int add(int a) {\n    return a;\n  }\n}\n",
         "public class Util {\n  public int add(int a, int b) {\n    return a;\n  }\n}\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:signature_change"},
         requests={("search_callers", "add")}),
    # Go
    Case("go login code", "internal/auth/login.go",
         "package auth\n\nfunc Login(u, p string) bool {\n\treturn check(u, p)\n}\n",
         "package auth\n\nfunc Login(u, p string) bool {\n\treturn check(u, p) && active(u)\n}\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:security_sensitive"}),
    Case("go gorm model", "internal/models/user.go",
         "package models\n\ntype User struct {\n\tID   uint `gorm:\"primaryKey\"`\n}\n",
         "package models\n\ntype User struct {\n\tID   uint `gorm:\"primaryKey\"`\n"
         "\tName string `json:\"name\"`\n}\n",
         level="file_context", risk={"high"}, labels={"go:models", "symbol:data_model"},
         requests={("search_model_usage", "User")}),
    Case("go migration", "db/migrations/000002_add_name.up.sql", None,
         "ALTER TABLE users ADD COLUMN name TEXT;\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:migration"}),
    Case("go module config", "go.mod", "module acme\n\ngo 1.21\n", "module acme\n\ngo 1.22\n",
         level="file_context", risk={"medium", "high"}, labels={"go:module"}),
    Case("go comment only", "pkg/calc/calc.go",
         "package calc\n\n// Add adds.\nfunc Add(a int) int {\n\treturn a\n}\n",
         "package calc\n\n// Add adds one.\nfunc Add(a int) int {\n\treturn a\n}\n",
         level="diff_only", risk={"low"}, labels={"pattern:comment_only"}),
    Case("go import only", "pkg/calc/calc.go",
         "package calc\n\nimport (\n\t\"fmt\"\n)\n\nfunc Add(a int) int {\n\treturn a\n}\n",
         "package calc\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc Add(a int) int {\n"
         "\treturn a\n}\n",
         level="diff_only", risk={"low"}, labels={"pattern:import_only"}),
    Case("go interface", "pkg/store/store.go",
         "package store\n\ntype Store interface {\n\tGet(k string) string\n}\n",
         "package store\n\ntype Store interface {\n\tGet(k string) string\n"
         "\tPut(k, v string)\n}\n",
         level="file_context", risk={"high", "critical"}, labels={"symbol:interface"},
         requests={("search_implementations", "Store")}),
    # TypeScript / JavaScript
    Case("ts login code", "api/src/auth/auth.service.ts",
         "export class AuthService {\n  login(user: string) {\n    return this.check(user);\n"
         "  }\n}\n",
         "export class AuthService {\n  login(user: string) {\n"
         "    return this.check(user) && this.active(user);\n  }\n}\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:security_sensitive"}),
    Case("ts next api route", "web/pages/api/orders.ts",
         "export default function handler(req, res) {\n  res.json([]);\n}\n",
         "export default function handler(req, res) {\n  res.json([1]);\n}\n",
         level="function", risk={"high"}, labels={"ts:next:api"}),
    Case("ts typeorm entity", "api/src/orders/order.ts",
         "@Entity()\nexport class Order {\n  @Column()\n  total: number;\n}\n",
         "@Entity()\nexport class Order {\n  @Column()\n  total: number;\n  @Column()\n"
         "  note: string;\n}\n",
         level="file_context", risk={"high"}, labels={"ts:orm:entity"},
         requests={("search_model_usage", "Order")}),
    Case("ts typeorm migration", "api/src/migrations/1700000000000-AddNote.ts", None,
         "export class AddNote1700000000000 {\n  async up(q) {\n"
         "    await q.query('ALTER TABLE o ADD note TEXT');\n  }\n}\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:migration"}),
    Case("ts config", "web/tsconfig.json", '{\n  "strict": true\n}\n',
         '{\n  "strict": false\n}\n',
         level="file_context", risk={"medium", "high"}, labels={"pattern:config_change"},
         requests={("search_config_usage", "strict")}),
    Case("ts test", "web/src/cart.test.ts", "test('adds', () => {\n  expect(1).toBe(1);\n});\n",
         "test('adds', () => {\n  expect(2).toBe(2);\n});\n",
         level="function", risk={"low", "medium"}, labels={"pattern:test_code"}),
    Case("ts comment only", "web/src/util.ts",
         "// adds\nexport function add(a: number) {\n  return a;\n}\n",
         "// adds one\nexport function add(a: number) {\n  return a;\n}\n",
         level="diff_only", risk={"low"}, labels={"pattern:comment_only"}),
    Case("ts import only", "web/src/util.ts",
         "import { a } from './a';\n\nexport function add(x: number) {\n  return x;\n}\n",
         "import { a } from './a';\nimport { b } from './b';\n\n"
         "export function add(x: number) {\n  return x;\n}\n",
         level="diff_only", risk={"low"}, labels={"pattern:import_only"}),
    Case("ts signature change", "web/src/util.ts",
         "export function add(a: number) {\n  return a;\n}\n",
         "export function add(a: number, b: number) {\n  return a;\n}\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:signature_change"},
         requests={("search_callers", "add")}),
    # Ruby
    Case("ruby login code", "app/services/login_service.rb",
         "class LoginService\n  def login(user, pw)\n    check(user, pw)\n  end\nend\n",
         "class LoginService\n  def login(user, pw)\n    check(user, pw) && user.active?\n"
         "  end\nend\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:security_sensitive"}),
    Case("ruby migration", "db/migrate/20240101000000_add_email.rb", None,
         "class AddEmail < ActiveRecord::Migration[7.1]\n  def change\n"
         "    add_column :users, :email, :string\n  end\nend\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:migration"}),
    Case("ruby config", "config/database.yml", "pool: 5\n", "pool: 10\n",
         level="file_context", risk={"medium", "high"}, labels={"pattern:config_change"},
         requests={("search_config_usage", "pool")}),
    Case("ruby spec", "spec/models/user_spec.rb",
         "describe User do\n  it { expect(1).to eq(1) }\nend\n",
         "describe User do\n  it { expect(2).to eq(2) }\nend\n",
         level="function", risk={"low", "medium"}, labels={"pattern:test_code"}),
    Case("ruby comment only", "lib/calc.rb",
         "class Calc\n  # adds\n  def add(a)\n    a\n  end\nend\n",
         "class Calc\n  # adds one\n  def add(a)\n    a\n  end\nend\n",
         level="diff_only", risk={"low"}, labels={"pattern:comment_only"}),
    Case("ruby require only", "lib/calc.rb",
         "require 'json'\n\nclass Calc\nend\n",
         "require 'json'\nrequire 'set'\n\nclass Calc\nend\n",
         level="diff_only", risk={"low"}, labels={"pattern:import_only"}),
    Case("ruby signature change", "lib/calc.rb",
         "class Calc\n  def add(a)\n    a\n  end\nend\n",
         "class Calc\n  def add(a, b = 0)\n    a\n  end\nend\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:signature_change"},
         requests={("search_callers", "add")}),
    Case("ruby module (interface) method", "lib/payable.rb",
         "module Payable\n  def pay\n    raise NotImplementedError\n  end\nend\n",
         "module Payable\n  def pay(amount)\n    raise NotImplementedError\n  end\nend\n",
         level="file_context", risk={"high", "critical"}, labels={"pattern:signature_change"},
         requests={("search_implementations", "Payable")}),
]


@pytest.mark.parametrize("case", MATRIX, ids=[c.name for c in MATRIX])
def test_language_matrix(repo: GitRepoBuilder, case: Case) -> None:
    test_language_case(repo, case)


def test_language_base_override_changes_the_size_signal(repo: GitRepoBuilder) -> None:
    """Precedence: a language's [base] numbers beat the base pack's (external > language)."""
    before = "def f():\n    return 0\n"
    after = "def f():\n" + "".join(f"    x{i} = {i}\n" for i in range(12)) + "    return 0\n"
    case = Case("size", "lib/big.py", before, after, level="function", risk={"low", "medium"})
    repo.write(".reviewtui/rules.toml", "[languages.python.base]\nlarge_change_lines = 10\n")
    repo.commit("pack")
    _, suggestion = score(repo, case)
    assert "size:large(12 lines >= 10)" in suggestion.notes
    assert suggestion.context_level.value == "file_context"
