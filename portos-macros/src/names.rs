//! The contract's words and naming rules come from `portos-vocabulary`, the
//! one list portos-core's enums are generated from; this module adds only
//! what the expansion needs on top.

pub use portos_vocabulary::{
    CAPABILITIES, CONFIRMATIONS, PROVIDER_NAME_MAX_CHARS, RESERVED_NAME_PREFIX, SCOPES,
    SIDE_EFFECTS, Term, callable_name_problem, find, intent_group_problem, is_callable_name,
    is_provider_name, provider_name_for, provider_name_problem,
};

/// `supervised-write` → `SupervisedWrite`: the variant name portos-core
/// gives a route attribute's value (methods, access, effects, privacy).
pub fn variant_name(value: &str) -> String {
    value
        .split(['-', '_'])
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}
