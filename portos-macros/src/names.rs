//! The contract's naming rules (BEHAVIOUR §1.1, §1.2, DESIGN "Schemas").
//!
//! `portos_core::contract::names` holds the same rules for descriptors that are
//! built at run time; the two are kept equal by the registry's tests.

pub const NAME_MAX_CHARS: usize = 100;
pub const PROVIDER_NAME_MAX_CHARS: usize = 64;

/// A callable name: 1..=100 of `[A-Za-z0-9._-]`.
pub fn is_callable_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= NAME_MAX_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// A provider name valid for OpenAI, Anthropic and MCP: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_provider_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= PROVIDER_NAME_MAX_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
}

/// The contract's derivation: every `.` and `-` becomes `_`.
pub fn provider_name_for(canonical: &str) -> String {
    canonical.replace(['.', '-'], "_")
}

pub const SCOPES: &[&str] = &["agent", "mind", "ui", "voice"];

pub const CAPABILITIES: &[&str] = &[
    "readPortos",
    "writePortos",
    "manageEidoverse",
    "visitEidoversePeers",
    "createTasks",
    "fileIssues",
    "manageToolRecipes",
    "manageMind",
    "chooseThinkingPreset",
    "adjustLocalContext",
    "callToolRecipes",
];

pub const SIDE_EFFECTS: &[&str] = &["read", "write", "supervised-write", "destructive"];

pub const CONFIRMATIONS: &[&str] = &["none", "capability-grant"];

pub const INTENT_GROUPS: &[&str] = &[
    "brain", "meatspace", "goals", "system", "feeds", "dailylog", "calendar", "weather", "code",
    "catalog",
];

/// `supervised-write` → `SupervisedWrite`, the variant name in portos_core.
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
