"""Rust, C and C++ rules on real repositories: what a reviewer of each language looks for.

Each case is a change a reviewer would flag (or knowingly not flag), scored through the real
pipeline; the rule must name its evidence in ``rule_notes``. Tests, comments and imports are
calibrated down; an ``unwrap()`` in a Rust unit test is not a finding.
"""

from __future__ import annotations

import pytest

from tests.conftest import GitRepoBuilder
from tests.unit.rules.language_cases import EvidenceCase, check, ids

RS_LIB = '''use std::collections::HashMap;

/// Parses a count.
pub fn parse(s: &str) -> Option<u32> {
    s.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        assert_eq!(parse(" 1"), Some(1));
    }
}
'''
RS_BODY = "    s.trim().parse().ok()\n"


def rs(body: str) -> str:
    return RS_LIB.replace(RS_BODY, body)


RUST = [
    EvidenceCase("rust login code", "src/auth.rs",
                 "pub fn login(user: &str, pw: &str) -> bool {\n    check(user, pw)\n}\n",
                 "pub fn login(user: &str, pw: &str) -> bool {\n"
                 "    check_password(user, pw) && active(user)\n}\n",
                 level="file_context", risk={"high", "critical"},
                 labels={"pattern:security_sensitive"}, min_confidence=0.8),
    EvidenceCase("rust unsafe block", "src/buf.rs", rs(RS_BODY),
                 rs("    let b = s.as_bytes();\n    unsafe { Some(*b.get_unchecked(0) as u32) }\n"),
                 level="function", risk={"high"},
                 labels={"rs:unsafe(unsafe {)", "rs:transmute_unchecked(get_unchecked()"}),
    EvidenceCase("rust unwrap added in library code", "src/count.rs", rs(RS_BODY),
                 rs("    Some(s.trim().parse().unwrap())\n"),
                 level="function", risk={"medium"}, labels={"rs:unwrap_added(.unwrap())"}),
    EvidenceCase("rust expect added in library code", "src/count.rs", rs(RS_BODY),
                 rs('    Some(s.trim().parse().expect("a number"))\n'),
                 level="function", risk={"medium"}, labels={'rs:unwrap_added(.expect(")'}),
    EvidenceCase("rust unwrap removed is no finding", "src/count.rs",
                 rs("    Some(s.trim().parse().unwrap())\n"), rs(RS_BODY),
                 level="function", risk={"low", "medium"}, absent={"rs:unwrap_added"}),
    EvidenceCase("rust unwrap in a #[cfg(test)] module is test code", "src/count.rs", RS_LIB,
                 RS_LIB.replace('assert_eq!(parse(" 1"), Some(1));',
                                'assert_eq!(parse(" 1").unwrap(), 1);'),
                 level="function", risk={"low", "medium"}, role="test",
                 labels={"pattern:test_code(tag:test_code)"}, absent={"rs:unwrap_added"}),
    EvidenceCase("rust unwrap in an integration test", "tests/parse.rs",
                 "#[test]\nfn parses() {\n    assert!(true);\n}\n",
                 "#[test]\nfn parses() {\n    assert_eq!(app::parse(\"1\").unwrap(), 1);\n}\n",
                 level="function", risk={"low", "medium"}, role="test",
                 absent={"rs:unwrap_added"}),
    EvidenceCase("rust unwrap in build.rs", "build.rs",
                 "fn main() {\n    println!(\"cargo:rerun-if-changed=src\");\n}\n",
                 "fn main() {\n    let out = std::env::var(\"OUT_DIR\").unwrap();\n"
                 "    println!(\"cargo:rerun-if-changed={out}\");\n}\n",
                 level="file_context", risk={"low", "medium"}, labels={"rs:build_script"},
                 absent={"rs:unwrap_added"}),
    EvidenceCase("rust unwrap in an example", "examples/demo.rs",
                 "fn main() {\n    run();\n}\n", "fn main() {\n    run().unwrap();\n}\n",
                 level="function", risk={"low", "medium"}, role="tooling",
                 absent={"rs:unwrap_added"}),
    EvidenceCase("rust panic added in library code", "src/count.rs", rs(RS_BODY),
                 rs('    if s.is_empty() {\n        panic!("empty input");\n    }\n' + RS_BODY),
                 level="function", risk={"medium"}, labels={"rs:panic_added(panic!()"}),
    EvidenceCase("rust transmute", "src/cast.rs", rs(RS_BODY),
                 rs("    let n: u32 = unsafe { std::mem::transmute([1u8; 4]) };\n    Some(n)\n"),
                 level="function", risk={"high"},
                 labels={"rs:transmute_unchecked", "rs:unsafe"}),
    EvidenceCase("rust ffi export", "src/ffi.rs", "pub fn add(a: i32) -> i32 {\n    a\n}\n",
                 "#[no_mangle]\npub extern \"C\" fn add(a: i32) -> i32 {\n    a\n}\n",
                 level="file_context", risk={"high", "critical"},  # a signature change too
                 labels={"rs:ffi_attribute(#[no_mangle)", 'rs:ffi(extern "C")'}),
    EvidenceCase("rust raw pointers", "src/ptr.rs", rs(RS_BODY),
                 rs("    let p: *const u8 = s.as_ptr();\n    Some(p as u32)\n"),
                 level="function", risk={"high"}, labels={"rs:raw_pointers"}),
    EvidenceCase("rust atomics ordering", "src/counter.rs", rs(RS_BODY),
                 rs("    COUNT.fetch_add(1, Ordering::Relaxed);\n" + RS_BODY),
                 level="function", risk={"high"}, labels={"rs:atomics(Ordering::Relaxed)"}),
    EvidenceCase("rust mutex lock", "src/cache.rs", rs(RS_BODY),
                 rs("    let _guard = CACHE.lock().unwrap();\n" + RS_BODY),
                 level="function", risk={"medium"},
                 labels={"rs:concurrency", "rs:unwrap_added"}),
    EvidenceCase("rust process spawning", "src/git.rs", rs(RS_BODY),
                 rs('    let out = Command::new("git").arg(s).output().ok()?;\n'
                    "    Some(out.stdout.len() as u32)\n"),
                 level="function", risk={"high"}, labels={"rs:process(Command::new()"}),
    EvidenceCase("rust serde data model", "src/model.rs",
                 "#[derive(Serialize, Deserialize)]\npub struct Order {\n    pub id: u64,\n}\n",
                 "#[derive(Serialize, Deserialize)]\npub struct Order {\n    pub id: u64,\n"
                 "    #[serde(default)]\n    pub note: String,\n}\n",
                 level="file_context", risk={"medium", "high"},
                 labels={"rs:serde_model(#[derive(Serialize", "symbol:data_model(Order)"}),
    EvidenceCase("rust actix route", "src/server.rs",
                 "use actix_web::get;\n",
                 "use actix_web::{get, post};\n\n#[post(\"/admin/reset\")]\n"
                 "async fn reset() -> impl Responder {\n    \"ok\"\n}\n",
                 level="function", risk={"high"}, labels={'rs:web_route(#[post()'},
                 requests={("previous_version", None)}),
    EvidenceCase("rust pyo3 extract() is not an archive", "src/conv.rs", rs(RS_BODY),
                 rs("    let n: u32 = obj.extract().ok()?;\n    Some(n)\n"),
                 level="function", risk={"low", "medium"}, absent={"rs:path_traversal"}),
    EvidenceCase("rust archive extracted to a directory", "src/unpack.rs", rs(RS_BODY),
                 rs("    archive.unpack(dest_dir).ok()?;\n" + RS_BODY),
                 level="function", risk={"high"}, labels={"rs:path_traversal(.unpack(dest_dir))"}),
    EvidenceCase("rust sql from format!", "src/db.rs", rs(RS_BODY),
                 rs('    let q = format!("SELECT id FROM t WHERE name = \'{s}\'");\n' + RS_BODY),
                 level="function", risk={"high"}, labels={"rs:sql_assembly"}),
    EvidenceCase("cargo manifest", "Cargo.toml",
                 '[package]\nname = "app"\n\n[dependencies]\nserde = "1.0.100"\n',
                 '[package]\nname = "app"\n\n[dependencies]\nserde = "1.0.200"\n',
                 level="file_context", risk={"medium"}, role="build",
                 labels={"rs:cargo_manifest(Cargo.toml)"}),
    EvidenceCase("rust doc comment only", "src/count.rs", RS_LIB,
                 RS_LIB.replace("/// Parses a count.", "/// Parses a count of items."),
                 level="diff_only", risk={"low"}, labels={"pattern:comment_only"}),
    EvidenceCase("rust use only", "src/count.rs", RS_LIB,
                 RS_LIB.replace("use std::collections::HashMap;\n",
                                "use std::collections::HashMap;\nuse std::fmt;\n"),
                 level="diff_only", risk={"low"}, labels={"pattern:import_only"}),
]

C_FN = "int copy(char *dst, const char *src, size_t n) {\n    return 0;\n}\n"


def c_body(line: str) -> str:
    return C_FN.replace("    return 0;\n", f"    {line}\n    return 0;\n")


C = [
    EvidenceCase("c login code", "src/auth.c",
                 "int login(const char *user, const char *pw) {\n    return check(user, pw);\n}\n",
                 "int login(const char *user, const char *pw) {\n"
                 "    return check_password(user, pw) && active(user);\n}\n",
                 level="file_context", risk={"high", "critical"},
                 labels={"pattern:security_sensitive"}),
    EvidenceCase("c strcpy", "src/str.c", C_FN, c_body("strcpy(dst, src);"),
                 level="function", risk={"high"}, labels={"c:unbounded_copy(strcpy()"}),
    EvidenceCase("c sprintf", "src/str.c", C_FN, c_body('sprintf(dst, "%s/%s", src, src);'),
                 level="function", risk={"high"}, labels={"c:unbounded_copy(sprintf()"}),
    EvidenceCase("c gets", "src/io.c", C_FN, c_body("gets(dst);"),
                 level="function", risk={"high", "critical"},
                 labels={"c:unbounded_input(gets()"}),
    EvidenceCase("c scanf %s", "src/io.c", C_FN, c_body('scanf("%s", dst);'),
                 level="function", risk={"high", "critical"}, labels={"c:unbounded_input"}),
    EvidenceCase("c memcpy", "src/buf.c", C_FN, c_body("memcpy(dst, src, n);"),
                 level="function", risk={"high"}, labels={"c:memory_copy(memcpy()"}),
    EvidenceCase("c strncpy", "src/buf.c", C_FN, c_body("strncpy(dst, src, n);"),
                 level="function", risk={"high"}, labels={"c:memory_copy(strncpy()"}),
    EvidenceCase("c malloc with size arithmetic", "src/buf.c", C_FN,
                 c_body("char *p = malloc(n * sizeof(int) + 1);"),
                 level="function", risk={"high"},
                 labels={"c:size_arithmetic", "c:allocation(malloc()"}),
    EvidenceCase("c free", "src/buf.c", C_FN, c_body("free(dst);"),
                 level="function", risk={"medium"}, labels={"c:allocation(free()"}),
    EvidenceCase("c format string from a variable", "src/log.c", C_FN, c_body("printf(src);"),
                 level="function", risk={"high", "critical"},
                 labels={"c:format_string(printf(src))"}),
    EvidenceCase("c constant format string is fine", "src/log.c", C_FN,
                 c_body('printf("%s\\n", src);'),
                 level="function", risk={"low", "medium"}, absent={"c:format_string"}),
    EvidenceCase("c system()", "src/run.c", C_FN, c_body("system(src);"),
                 level="function", risk={"high"}, labels={"c:process(system()"}),
    EvidenceCase("c pthread lock", "src/pool.c", C_FN,
                 c_body("pthread_mutex_lock(&lock);"),
                 level="function", risk={"high"}, labels={"c:threads(pthread_mutex_lock()"}),
    EvidenceCase("c public header", "include/lib/api.h",
                 "int lib_copy(char *dst, const char *src);\n",
                 "int lib_copy(char *dst, const char *src, size_t n);\n",
                 level="file_context", risk={"medium", "high"}, labels={"c:header"},
                 requests={("search_callers", "lib_copy")}),
    EvidenceCase("c test file", "tests/test_copy.c", C_FN, c_body("strcpy(dst, src);"),
                 level="function", risk={"low", "medium"}, role="test",
                 labels={"pattern:test_code"}),
    EvidenceCase("c comment only", "src/str.c", "/* copies */\n" + C_FN,
                 "/* copies bytes */\n" + C_FN,
                 level="diff_only", risk={"low"}, labels={"pattern:comment_only"}),
    EvidenceCase("c include only", "src/str.c", "#include <stdio.h>\n\n" + C_FN,
                 "#include <stdio.h>\n#include <string.h>\n\n" + C_FN,
                 level="diff_only", risk={"low"}, labels={"pattern:import_only"}),
    EvidenceCase("c build config", "CMakeLists.txt", "add_library(lib src/str.c)\n",
                 "add_library(lib src/str.c src/buf.c)\n",
                 level="file_context", risk={"medium", "high"},
                 labels={"pattern:config_change"}),
]

CPP_FN = "void fill(char *dst, const char *src, std::size_t n) {\n    use(dst);\n}\n"


def cpp_body(line: str) -> str:
    return CPP_FN.replace("    use(dst);\n", f"    use(dst);\n    {line}\n")


CPP = [
    EvidenceCase("cpp reinterpret_cast", "src/buf.cpp", CPP_FN,
                 cpp_body("auto *words = reinterpret_cast<std::uint32_t *>(dst);"),
                 level="function", risk={"high"}, labels={"cpp:unsafe_cast(reinterpret_cast<)"}),
    EvidenceCase("cpp const_cast", "src/buf.cpp", CPP_FN,
                 cpp_body("char *p = const_cast<char *>(src);"),
                 level="function", risk={"high"}, labels={"cpp:unsafe_cast(const_cast<)"}),
    EvidenceCase("cpp applies the C memory rules", "src/buf.cc", CPP_FN,
                 cpp_body("std::memcpy(dst, src, n);"),
                 level="function", risk={"high"}, labels={"c:memory_copy(memcpy()"}),
    EvidenceCase("cpp raw new and delete", "src/owner.cpp", CPP_FN,
                 cpp_body("auto *w = new Widget(n);\n    delete w;"),
                 level="function", risk={"medium"}, labels={"cpp:raw_ownership(new Widget()"}),
    EvidenceCase("cpp std::mutex and std::thread", "src/pool.cpp", CPP_FN,
                 cpp_body("std::lock_guard<std::mutex> guard(mutex_);"),
                 level="function", risk={"high"}, labels={"cpp:concurrency(std::lock_guard)"}),
    EvidenceCase("cpp pure virtual method added", "include/lib/store.hpp",
                 "class Store {\npublic:\n    virtual ~Store() = default;\n"
                 "    virtual int get(int key) = 0;\n};\n",
                 "class Store {\npublic:\n    virtual ~Store() = default;\n"
                 "    virtual int get(int key) = 0;\n"
                 "    virtual void put(int key, int v) = 0;\n};\n",
                 level="file_context", risk={"high"},
                 labels={"cpp:pure_virtual", "c:header", "symbol:interface(Store)"},
                 requests={("search_implementations", "Store")}),
    EvidenceCase("cpp python refcounting", "src/module.cpp", CPP_FN,
                 cpp_body("Py_DECREF(obj);"),
                 level="function", risk={"medium"}, labels={"c:refcounting(Py_DECREF()"}),
    EvidenceCase("cpp googletest file", "src/store_test.cc", CPP_FN,
                 cpp_body("auto *w = reinterpret_cast<int *>(dst);"),
                 level="function", risk={"low", "medium"}, role="test"),
    EvidenceCase("cpp comment only", "src/buf.cpp", "// fills\n" + CPP_FN,
                 "// fills the buffer\n" + CPP_FN,
                 level="diff_only", risk={"low"}, labels={"pattern:comment_only"}),
]

ALL = RUST + C + CPP


@pytest.mark.parametrize("case", ALL, ids=ids(ALL))
def test_rust_c_cpp_rules(repo: GitRepoBuilder, case: EvidenceCase) -> None:
    check(repo, case)
