//! The `portos` binary answers `--version` and `--help`.
//!
//! Being an integration test of this package also makes `cargo test
//! --workspace` build `target/<profile>/portos`, which the black-box tests in
//! `tests/` start as a real process.

use std::process::Command;

#[test]
fn version_and_help() {
    let binary = env!("CARGO_BIN_EXE_portos");
    let version = Command::new(binary)
        .arg("--version")
        .output()
        .expect("portos runs");
    assert!(version.status.success());
    let text = String::from_utf8_lossy(&version.stdout);
    assert!(text.contains(env!("CARGO_PKG_VERSION")), "{text}");

    let help = Command::new(binary)
        .arg("--help")
        .output()
        .expect("portos runs");
    let text = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--bind",
        "--data-dir",
        "--dump-catalog",
        "--dump-openapi",
        "--dump-asyncapi",
        "--set-password",
    ] {
        assert!(text.contains(flag), "--help lists {flag}");
    }
}
