//! Every compile error of `#[portos_tool]`, one file per message, and the
//! signatures it accepts (DESIGN "How it is tested").
//!
//! Regenerate the expected output with `TRYBUILD=overwrite` and review each
//! `.stderr` as a change to the macro's user interface.

#[test]
fn macro_ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}
