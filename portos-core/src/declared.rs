//! The checks every declaration shares (a tool, a resource, a prompt):
//! its words looked up in the linked vocabulary, its state provided by
//! the server. Each problem names the declaration and where it was made.

use crate::context::{StateMap, StateNeed};
use crate::contract::words::{self, vocabulary};
use crate::contract::{Capability, Scope, SourceLocation};

/// Scopes and capabilities by name, looked up in the linked vocabulary,
/// for any declaration (`what` names its kind in the problems).
pub(crate) fn resolve_words(
    what: &str,
    name: &str,
    at: SourceLocation,
    scope_names: &[&str],
    capability_names: &[&str],
    problems: &mut Vec<String>,
) -> (Vec<Scope>, Vec<Capability>) {
    let declared = |kind: &str, known: Vec<&'static str>| {
        if words::linked_vocabularies().is_empty() {
            "no vocabulary is linked".to_owned()
        } else if known.is_empty() {
            format!(
                "the application's vocabulary ({}) declares no {kind}",
                vocabulary().location
            )
        } else {
            format!(
                "the application's vocabulary ({}) declares {}",
                vocabulary().location,
                known.join(", ")
            )
        }
    };
    let mut scopes = Vec::with_capacity(scope_names.len());
    for word in scope_names {
        match Scope::from_name(word) {
            Some(scope) => scopes.push(scope),
            None => problems.push(format!(
                "{what} `{name}` ({at}) names unknown scope `{word}`: {}",
                declared("scopes", Scope::all().map(Scope::as_str).collect())
            )),
        }
    }
    let mut capabilities = Vec::with_capacity(capability_names.len());
    for word in capability_names {
        match Capability::from_name(word) {
            Some(capability) => capabilities.push(capability),
            None => problems.push(format!(
                "{what} `{name}` ({at}) requires unknown capability `{word}`: {}",
                declared(
                    "capabilities",
                    Capability::all().map(Capability::as_str).collect()
                )
            )),
        }
    }
    (scopes, capabilities)
}

/// The state a declaration needs must be there before anything is
/// served: a missing value is a start-up problem naming it.
pub(crate) fn check_state(
    what: &str,
    name: &str,
    at: SourceLocation,
    needs: &[StateNeed],
    state: &StateMap,
    problems: &mut Vec<String>,
) {
    for need in needs.iter().filter(|need| !state.provides(need)) {
        problems.push(format!(
            "{what} `{name}` ({at}) needs state `{}`, which the server does not provide",
            need.type_name()
        ));
    }
}
