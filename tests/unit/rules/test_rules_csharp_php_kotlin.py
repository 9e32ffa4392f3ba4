"""C#, PHP and Kotlin rules on real repositories: what a reviewer of each language looks for.

Each case is a change a reviewer would flag (or knowingly not flag), scored through the real
pipeline; the rule must name its evidence in ``rule_notes``. Tests, comments and imports are
calibrated down.
"""

from __future__ import annotations

import pytest

from tests.conftest import GitRepoBuilder
from tests.unit.rules.language_cases import EvidenceCase, check, ids

CS_CTRL = '''using Microsoft.AspNetCore.Mvc;

[ApiController]
[Route("api/[controller]")]
public class OrdersController : ControllerBase
{
    [HttpGet]
    public IActionResult List()
    {
        return Ok(repo.All());
    }
}
'''
CS_SVC = '''public class OrderService
{
    public int Count(string name)
    {
        return 0;
    }
}
'''


def cs(line: str) -> str:
    return CS_SVC.replace("        return 0;\n", f"        {line}\n        return 0;\n")


CSHARP = [
    EvidenceCase("csharp AllowAnonymous added", "src/Api/OrdersController.cs", CS_CTRL,
                 CS_CTRL.replace("    [HttpGet]\n", "    [HttpGet]\n    [AllowAnonymous]\n"),
                 level="function", risk={"high", "critical"},
                 labels={"cs:aspnet:anonymous([AllowAnonymous)", "cs:aspnet:controllers"},
                 min_confidence=0.8),
    EvidenceCase("csharp Authorize removed", "src/Api/OrdersController.cs",
                 CS_CTRL.replace("[ApiController]\n", "[ApiController]\n[Authorize]\n"), CS_CTRL,
                 level="file_context", risk={"high", "critical"},
                 labels={"cs:protection_removed([Authorize)"},
                 requests={("previous_version", None)}),
    EvidenceCase("csharp anti-forgery token removed", "src/Web/AccountController.cs",
                 CS_CTRL.replace("    [HttpGet]\n", "    [HttpPost]\n"
                                 "    [ValidateAntiForgeryToken]\n"),
                 CS_CTRL.replace("    [HttpGet]\n", "    [HttpPost]\n"),
                 level="file_context", risk={"high", "critical"},
                 labels={"cs:protection_removed([ValidateAntiForgeryToken)"}),
    EvidenceCase("csharp route attribute added", "src/Api/OrdersController.cs", CS_CTRL,
                 CS_CTRL.replace("    [HttpGet]\n", '    [HttpGet("{id}")]\n'),
                 level="function", risk={"high"}, labels={"cs:aspnet:route([HttpGet)"},
                 requests={("previous_version", None)}),
    EvidenceCase("csharp raw SQL with interpolation", "src/Data/OrderService.cs", CS_SVC,
                 cs('var rows = db.Orders.FromSqlRaw($"SELECT * FROM Orders WHERE Name = '
                    '\'{name}\'");'),
                 level="function", risk={"high", "critical"},
                 labels={'cs:sql_injection_risk(.FromSqlRaw($")', "cs:raw_sql"}),
    EvidenceCase("csharp SqlCommand with concatenation", "src/Data/OrderService.cs", CS_SVC,
                 cs('var cmd = new SqlCommand("SELECT * FROM Orders WHERE Name = \'" + name + '
                    '"\'", conn);'),
                 level="function", risk={"high", "critical"},
                 labels={"cs:sql_injection_risk(new SqlCommand(\"SELECT", "cs:raw_sql"}),
    EvidenceCase("csharp unsafe and stackalloc", "src/Core/Buffer.cs", CS_SVC,
                 cs("unsafe { byte* p = stackalloc byte[16]; }"),
                 level="function", risk={"high"}, labels={"cs:unsafe(unsafe)"}),
    EvidenceCase("csharp BinaryFormatter", "src/Core/Cache.cs", CS_SVC,
                 cs("var o = new BinaryFormatter().Deserialize(stream);"),
                 level="function", risk={"high", "critical"},
                 labels={"cs:deserialization(BinaryFormatter)"}),
    EvidenceCase("csharp TypeNameHandling.All", "src/Core/Json.cs", CS_SVC,
                 cs("settings.TypeNameHandling = TypeNameHandling.All;"),
                 level="function", risk={"high", "critical"}, labels={"cs:deserialization"}),
    EvidenceCase("csharp Process.Start", "src/Core/Runner.cs", CS_SVC,
                 cs("Process.Start(\"git\", name);"),
                 level="function", risk={"high"}, labels={"cs:process(Process.Start()"}),
    EvidenceCase("csharp MD5 and new Random", "src/Core/Ids.cs", CS_SVC,
                 cs("var id = MD5.Create().ComputeHash(bytes); var r = new Random();"),
                 level="function", risk={"high"}, labels={"cs:crypto_random"}),
    EvidenceCase("csharp EF entity column", "src/Data/Customer.cs",
                 "public class Customer\n{\n    [Key]\n    public int Id { get; set; }\n}\n",
                 "public class Customer\n{\n    [Key]\n    public int Id { get; set; }\n"
                 "    [Column(\"email\")]\n    public string Email { get; set; }\n}\n",
                 level="file_context", risk={"high"}, labels={"cs:ef:entity([Column)"},
                 requests={("search_model_usage", "Customer")}),
    EvidenceCase("csharp lock and Interlocked", "src/Core/Counter.cs", CS_SVC,
                 cs("lock (gate) { Interlocked.Increment(ref count); }"),
                 level="function", risk={"high"}, labels={"cs:concurrency(lock ()"}),
    EvidenceCase("csharp appsettings", "src/Api/appsettings.json",
                 '{\n  "Jwt": { "Issuer": "a" }\n}\n', '{\n  "Jwt": { "Issuer": "b" }\n}\n',
                 level="file_context", risk={"high"},
                 labels={"cs:aspnet:config(appsettings.json)", "pattern:config_change"}),
    EvidenceCase("csharp test class", "tests/Api.Tests/OrdersControllerTests.cs", CS_SVC,
                 cs("var o = new BinaryFormatter();"),
                 level="function", risk={"low", "medium"}, role="test",
                 labels={"pattern:test_code"}),
    EvidenceCase("csharp xml doc comment only", "src/Core/OrderService.cs",
                 "/// <summary>Orders.</summary>\n" + CS_SVC,
                 "/// <summary>All orders.</summary>\n" + CS_SVC,
                 level="diff_only", risk={"low"}, labels={"pattern:comment_only"}),
    EvidenceCase("csharp using only", "src/Core/OrderService.cs",
                 "using System;\n\n" + CS_SVC, "using System;\nusing System.Linq;\n\n" + CS_SVC,
                 level="diff_only", risk={"low"}, labels={"pattern:import_only"}),
]

PHP_FN = "<?php\n\nfunction show($id)\n{\n    return null;\n}\n"


def php(line: str) -> str:
    return PHP_FN.replace("    return null;\n", f"    {line}\n    return null;\n")


PHP = [
    EvidenceCase("php superglobal", "src/page.php", PHP_FN, php("$id = $_GET['id'];"),
                 level="function", risk={"high"}, labels={"php:superglobals($_GET)"}),
    EvidenceCase("php eval", "src/page.php", PHP_FN, php("eval($code);"),
                 level="file_context", risk={"high", "critical"},
                 labels={"php:code_from_data(eval()", "pattern:security_sensitive"}),
    EvidenceCase("php preg_replace with /e", "src/text.php", PHP_FN,
                 php("$out = preg_replace('/(.*)/e', 'strtoupper(\"\\\\1\")', $in);"),
                 level="function", risk={"high", "critical"}, labels={"php:code_from_data"}),
    EvidenceCase("php unserialize", "src/cache.php", PHP_FN,
                 php("$data = unserialize($raw);"),
                 level="function", risk={"high", "critical"},
                 labels={"php:deserialization(unserialize()"}),
    EvidenceCase("php include of a variable", "src/router.php", PHP_FN,
                 php("include $page . '.php';"),
                 level="function", risk={"high"}, labels={"php:include_variable"}),
    EvidenceCase("php include of a constant path is fine", "src/router.php", PHP_FN,
                 php("require_once __DIR__ . '/helpers.php';"),
                 level="diff_only", risk={"low"}, labels={"pattern:import_only"},
                 absent={"php:include_variable"}),
    EvidenceCase("php mysqli_query with concatenation", "src/repo.php", PHP_FN,
                 php("$r = mysqli_query($db, \"SELECT * FROM users WHERE id = \" . $id);"),
                 level="function", risk={"high", "critical"},
                 labels={"php:sql_injection_risk", "php:raw_sql(mysqli_query()"}),
    EvidenceCase("php laravel whereRaw", "app/Repositories/Orders.php", PHP_FN,
                 php("return Order::whereRaw(\"name = '$id'\")->get();"),
                 level="function", risk={"high", "critical"},
                 labels={"php:sql_injection_risk(::whereRaw(\"name", "php:raw_sql(::whereRaw()"}),
    EvidenceCase("php shell_exec", "src/tools.php", PHP_FN, php("$out = shell_exec($cmd);"),
                 level="function", risk={"high", "critical"}, labels={"php:shell(shell_exec()"}),
    EvidenceCase("php PDO exec is not shell", "src/repo.php", PHP_FN,
                 php("$pdo->exec('VACUUM');"),
                 level="file_context", risk={"high", "critical", "medium"},
                 absent={"php:shell"}),
    EvidenceCase("php extract", "src/form.php", PHP_FN, php("extract($_POST);"),
                 level="function", risk={"high"},
                 labels={"php:variable_injection(extract()", "php:superglobals"}),
    EvidenceCase("php md5 of a password", "src/users.php", PHP_FN,
                 php("$hash = md5($password);"),
                 level="file_context", risk={"high", "critical"},
                 labels={"php:crypto_random(md5()", "pattern:security_sensitive"}),
    EvidenceCase("php htmlspecialchars", "src/view.php", PHP_FN,
                 php("echo htmlspecialchars($name, ENT_QUOTES);"),
                 level="function", risk={"high"}, labels={"php:escaping(htmlspecialchars()"},
                 requests={("search_callers", "show")}),
    EvidenceCase("php laravel route file", "routes/web.php",
                 "<?php\n\nRoute::get('/', [HomeController::class, 'index']);\n",
                 "<?php\n\nRoute::get('/', [HomeController::class, 'index']);\n"
                 "Route::post('/admin/reset', [AdminController::class, 'reset']);\n",
                 level="file_context", risk={"high", "critical"},
                 labels={"pattern:routing_change", "php:routes_middleware(Route::post()"}),
    EvidenceCase("php middleware removed from a route", "app/Http/Kernel.php",
                 PHP_FN, php("$router->withoutMiddleware('auth');"),
                 level="file_context", risk={"high", "critical"},
                 labels={"php:routes_middleware(->withoutMiddleware()"}),
    EvidenceCase("php symfony route attribute", "src/Controller/AdminController.php",
                 "<?php\n\nclass AdminController\n{\n    public function reset()\n    {\n"
                 "    }\n}\n",
                 "<?php\n\nclass AdminController\n{\n"
                 "    #[Route('/admin/reset', methods: ['POST'])]\n"
                 "    public function reset()\n    {\n    }\n}\n",
                 level="function", risk={"high"},
                 labels={"php:route(#[Route()", "php:controllers"}),
    EvidenceCase("php symfony IsGranted", "src/Controller/AdminController.php",
                 "<?php\n\nclass AdminController\n{\n    public function reset()\n    {\n"
                 "    }\n}\n",
                 "<?php\n\nclass AdminController\n{\n    #[IsGranted('ROLE_ADMIN')]\n"
                 "    public function reset()\n    {\n    }\n}\n",
                 level="function", risk={"high", "critical"},
                 labels={"php:security_attribute(#[IsGranted)"}),
    EvidenceCase("php doctrine column", "src/Entity/Customer.php",
                 "<?php\n\nclass Customer\n{\n    #[ORM\\Id]\n    private int $id;\n}\n",
                 "<?php\n\nclass Customer\n{\n    #[ORM\\Id]\n    private int $id;\n\n"
                 "    #[ORM\\Column(length: 180)]\n    private string $email;\n}\n",
                 level="file_context", risk={"high"},
                 labels={"php:doctrine:entity(#[ORM\\Column)", "php:models"},
                 requests={("search_model_usage", "Customer")}),
    EvidenceCase("php config file", "config/database.php",
                 "<?php\n\nreturn ['default' => 'mysql'];\n",
                 "<?php\n\nreturn ['default' => 'pgsql'];\n",
                 level="file_context", risk={"medium", "high"}, labels={"pattern:config_change"}),
    EvidenceCase("php test", "tests/Feature/PageTest.php", PHP_FN, php("eval($code);"),
                 level="function", risk={"low", "medium"}, role="test",
                 labels={"pattern:test_code"}),
    # the second alternative of '\b(ZipArchive|PharData)\b|->extractTo\s*\(' right after a
    # variable's name (a leading word boundary belongs to the first alternative only)
    EvidenceCase("php archive extracted", "src/upload.php", PHP_FN,
                 php("$zip->extractTo($target);"),
                 level="function", risk={"medium"},
                 labels={"php:untrusted_parser(->extractTo()"}),
    EvidenceCase("php comment only", "src/page.php",
                 PHP_FN.replace("function", "// show\nfunction"),
                 PHP_FN.replace("function", "// show one page\nfunction"),
                 level="diff_only", risk={"low"}, labels={"pattern:comment_only"}),
    EvidenceCase("php use only", "src/page.php",
                 "<?php\n\nuse App\\Models\\User;\n\nfunction f() {}\n",
                 "<?php\n\nuse App\\Models\\User;\nuse App\\Models\\Order;\n\nfunction f() {}\n",
                 level="diff_only", risk={"low"}, labels={"pattern:import_only"}),
]

KT_FN = "package app\n\nclass Repo {\n    fun load(id: String): Int {\n        return 0\n    }\n}\n"


def kt(line: str) -> str:
    return KT_FN.replace("        return 0\n", f"        {line}\n        return 0\n")


MANIFEST = ('<manifest xmlns:android="http://schemas.android.com/apk/res/android">\n'
            '    <application>\n        <activity android:name=".Main" />\n'
            '    </application>\n</manifest>\n')

KOTLIN = [
    EvidenceCase("kotlin Gson fromJson on an instance", "app/src/main/kotlin/app/Repo.kt",
                 KT_FN, kt("val user = gson.fromJson(body, User::class.java)"),
                 level="function", risk={"medium"},
                 labels={"kt:untrusted_parser(.fromJson()"}),
    EvidenceCase("kotlin GlobalScope.launch", "app/src/main/kotlin/app/Repo.kt", KT_FN,
                 kt("GlobalScope.launch { refresh(id) }"),
                 level="function", risk={"high"},
                 labels={"kt:coroutine_scope(GlobalScope)", "kt:coroutines(launch {)"}),
    EvidenceCase("kotlin runBlocking", "app/src/main/kotlin/app/Repo.kt", KT_FN,
                 kt("runBlocking { refresh(id) }"),
                 level="function", risk={"high"}, labels={"kt:coroutine_scope(runBlocking {)"}),
    EvidenceCase("kotlin withContext(Dispatchers.IO)", "app/src/main/kotlin/app/Repo.kt", KT_FN,
                 kt("withContext(Dispatchers.IO) { refresh(id) }"),
                 level="function", risk={"medium"}, labels={"kt:coroutines(withContext()"}),
    EvidenceCase("kotlin !! added", "app/src/main/kotlin/app/Repo.kt", KT_FN,
                 kt("val n = cache[id]!!"),
                 level="function", risk={"medium"}, labels={"kt:not_null_assertion_added(]!!)"}),
    EvidenceCase("kotlin !! in a test is no finding", "app/src/test/kotlin/app/RepoTest.kt",
                 KT_FN, kt("val n = cache[id]!!"),
                 level="function", risk={"low", "medium"}, role="test",
                 absent={"kt:not_null_assertion_added"}),
    EvidenceCase("kotlin lateinit added", "app/src/main/kotlin/app/Repo.kt", KT_FN,
                 KT_FN.replace("class Repo {\n", "class Repo {\n    lateinit var db: Db\n"),
                 level="function", risk={"medium"}, labels={"kt:lateinit_added(lateinit var)"}),
    EvidenceCase("kotlin runtime permission request", "app/src/main/kotlin/app/Camera.kt",
                 KT_FN, kt("requestPermissions(arrayOf(Manifest.permission.CAMERA), 1)"),
                 level="file_context", risk={"high"},
                 labels={"kt:android:permissions(requestPermissions()",
                         "pattern:security_sensitive"}),
    EvidenceCase("android manifest permission", "app/src/main/AndroidManifest.xml", MANIFEST,
                 MANIFEST.replace("    <application>", '    <uses-permission android:name='
                                  '"android.permission.CAMERA" />\n    <application>'),
                 level="file_context", risk={"high"},
                 labels={"android:manifest(AndroidManifest.xml)",
                         "android:permissions(<uses-permission)"}),
    EvidenceCase("android manifest exported activity", "app/src/main/AndroidManifest.xml",
                 MANIFEST, MANIFEST.replace('android:name=".Main"',
                                            'android:name=".Main" android:exported="true"'),
                 level="file_context", risk={"high", "critical"},
                 labels={'android:exposure(android:exported="true")'}),
    EvidenceCase("kotlin webview javascript enabled", "app/src/main/kotlin/app/Web.kt", KT_FN,
                 kt("webView.settings.javaScriptEnabled = true"),
                 level="function", risk={"high", "critical"},
                 labels={"kt:android:webview_exposure(javaScriptEnabled = true)"}),
    EvidenceCase("kotlin addJavascriptInterface", "app/src/main/kotlin/app/Web.kt", KT_FN,
                 kt('webView.addJavascriptInterface(Bridge(), "app")'),
                 level="function", risk={"high", "critical"},
                 labels={"kt:android:webview_exposure(addJavascriptInterface()"}),
    EvidenceCase("kotlin spring controller mapping", "src/main/kotlin/app/web/Orders.kt",
                 "@RestController\nclass Orders {\n    fun list() = repo.all()\n}\n",
                 "@RestController\nclass Orders {\n    @GetMapping(\"/orders\")\n"
                 "    fun list() = repo.all()\n}\n",
                 level="function", risk={"high"}, labels={"kt:spring:web"}),
    EvidenceCase("kotlin spring PreAuthorize", "src/main/kotlin/app/svc/Admin.kt",
                 "class Admin {\n    fun wipe() = repo.deleteAll()\n}\n",
                 "class Admin {\n    @PreAuthorize(\"hasRole('ADMIN')\")\n"
                 "    fun wipe() = repo.deleteAll()\n}\n",
                 level="file_context", risk={"high", "critical"},
                 labels={"kt:spring:security(@PreAuthorize)", "kt:permission_check(hasRole()"}),
    EvidenceCase("kotlin jpa entity", "src/main/kotlin/app/data/Customer.kt",
                 "@Entity\nclass Customer(\n    @Id val id: Long,\n)\n",
                 "@Entity\nclass Customer(\n    @Id val id: Long,\n"
                 "    @Column(nullable = false) val email: String,\n)\n",
                 level="file_context", risk={"high"},
                 labels={"kt:persistence", "symbol:data_model(Customer)"},
                 requests={("search_model_usage", "Customer")}),
    EvidenceCase("kotlin Runtime.exec", "src/main/kotlin/app/Shell.kt", KT_FN,
                 kt("Runtime.getRuntime().exec(id)"),
                 level="file_context", risk={"high", "critical"},
                 labels={"kt:process(Runtime.getRuntime().exec)"}),
    EvidenceCase("kotlin sql string template", "src/main/kotlin/app/Dao.kt", KT_FN,
                 kt('db.rawQuery("SELECT * FROM t WHERE id = $id", null)'),
                 level="function", risk={"high", "critical"},
                 labels={"kt:sql_assembly"}),
    EvidenceCase("gradle kotlin build script", "app/build.gradle.kts",
                 'dependencies {\n    implementation("a:b:1.0")\n}\n',
                 'dependencies {\n    implementation("a:b:1.1")\n}\n',
                 level="file_context", risk={"medium"}, role="build",
                 labels={"jvm:gradle(build.gradle.kts)"}),
    EvidenceCase("kotlin comment only", "src/main/kotlin/app/Repo.kt",
                 KT_FN.replace("class Repo", "// loads\nclass Repo"),
                 KT_FN.replace("class Repo", "// loads items\nclass Repo"),
                 level="diff_only", risk={"low"}, labels={"pattern:comment_only"}),
    EvidenceCase("kotlin import only", "src/main/kotlin/app/Repo.kt",
                 KT_FN.replace("package app\n", "package app\n\nimport a.B\n"),
                 KT_FN.replace("package app\n", "package app\n\nimport a.B\nimport a.C\n"),
                 level="diff_only", risk={"low"}, labels={"pattern:import_only"}),
]

ALL = CSHARP + PHP + KOTLIN


@pytest.mark.parametrize("case", ALL, ids=ids(ALL))
def test_csharp_php_kotlin_rules(repo: GitRepoBuilder, case: EvidenceCase) -> None:
    check(repo, case)
