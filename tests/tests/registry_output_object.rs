//! An adapter whose output type can never be a JSON object is refused when
//! the registry is built (the contract would turn every result into a
//! failure), naming the tool and where it is declared.

use portos_core::{AdapterError, Registry, portos_tool};
use portos_tests as _;
portos_core::use_vocabulary!(portos_words);

/// Returns a bare string, which the contract cannot carry as a result.
#[portos_tool(name = "bad.bare-string", scopes = ["ui"], side_effect = "read")]
async fn bare_string() -> Result<String, AdapterError> {
    Ok("hello".to_owned())
}

#[test]
fn non_object_outputs_are_refused_at_build() {
    let error = Registry::builder()
        .build()
        .expect_err("a string output is refused");
    assert_eq!(error.problems.len(), 1, "{error}");
    let problem = &error.problems[0];
    assert!(problem.contains("bad.bare-string"), "{problem}");
    assert!(problem.contains("registry_output_object.rs"), "{problem}");
    assert!(problem.contains("must return a JSON object"), "{problem}");
}
