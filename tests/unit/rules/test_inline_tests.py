"""Rust test code inside a library file: the items a test attribute applies to, whatever braces
hide in strings, chars, lifetimes and comments around them."""

from __future__ import annotations

import pytest

from reviewtui.rules.inline_tests import inline_test_regions

TRICKY = '''pub fn parse<'a>(s: &'a str) -> u32 {
    let open = '{';
    let close = "}";
    let raw = r#"{ "}": 1 }"#;
    // } a brace in a comment
    /* { /* nested } */ } */
    s.len() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braces() {
        assert_eq!(parse("}"), 1);
    }
}

#[cfg(not(test))]
fn production() {}

#[cfg(test)]
mod more_tests;

#[cfg(all(test, feature = "slow"))]
fn helper() -> u8 {
    b'}'
}
'''


def test_test_items_are_found_past_braces_in_literals_and_comments() -> None:
    assert inline_test_regions(TRICKY) == [(10, 18), (26, 29)]


@pytest.mark.parametrize(("text", "regions"), [
    ("#![cfg(test)]\n\nfn a() {}\nfn b() {}\n", [(1, 5)]),  # the whole file is a test
    ("#[tokio::test]\nasync fn runs() {\n    go().await;\n}\n", [(1, 4)]),
    ("#[test]\n#[should_panic]\nfn fails() {\n    panic!();\n}\n", [(1, 5)]),
    ("fn no_tests() {\n    let test = 1;\n}\n", []),
])
def test_attribute_forms(text: str, regions: list[tuple[int, int]]) -> None:
    assert inline_test_regions(text) == regions
