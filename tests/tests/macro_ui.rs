//! Every compile error of `#[portos_tool]`, `#[portos_resource]`,
//! `#[portos_prompt]` and `#[portos_route]`, one file
//! per message, and the signatures they accept (DESIGN "How it is tested").
//!
//! Regenerate the expected output with `TRYBUILD=overwrite` and review each
//! `.stderr` as a change to the macro's user interface.

#[test]
fn macro_ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
    t.pass("ui/route_pass/*.rs");
    t.compile_fail("ui/route_fail/*.rs");
}
