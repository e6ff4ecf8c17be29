//! The contract's naming rules (BEHAVIOUR §1.1, §1.2, DESIGN "Schemas").
//!
//! `portos_core::contract::names` holds the same rules for descriptors that are
//! built at run time; the two are kept equal by the registry's tests.

pub const NAME_MAX_CHARS: usize = 100;
pub const PROVIDER_NAME_MAX_CHARS: usize = 64;

/// A callable name: 1..=100 of `[A-Za-z0-9._-]`.
pub fn is_callable_name(name: &str) -> bool {
    callable_name_problem(name).is_none()
}

/// A provider name valid for OpenAI, Anthropic and MCP: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_provider_name(name: &str) -> bool {
    provider_name_problem(name).is_none()
}

/// What breaks the callable-name rule, said so the user can fix it.
pub fn callable_name_problem(name: &str) -> Option<String> {
    name_problem(name, NAME_MAX_CHARS, b"._-", "`.`, `_` and `-`")
}

/// What breaks the provider-name rule, said so the user can fix it.
pub fn provider_name_problem(name: &str) -> Option<String> {
    name_problem(name, PROVIDER_NAME_MAX_CHARS, b"_-", "`_` and `-`")
}

fn name_problem(name: &str, max: usize, punctuation: &[u8], allowed: &str) -> Option<String> {
    let fits =
        |c: char| c.is_ascii_alphanumeric() || (c.is_ascii() && punctuation.contains(&(c as u8)));
    if name.is_empty() {
        Some("it is empty".to_owned())
    } else if let Some(c) = name.chars().find(|&c| !fits(c)) {
        Some(format!(
            "{c:?} is not allowed (only letters, digits, {allowed})"
        ))
    } else if name.len() > max {
        Some(format!(
            "it is {} characters long (at most {max})",
            name.len()
        ))
    } else {
        None
    }
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
    "brain",
    "meatspace",
    "goals",
    "system",
    "feeds",
    "dailylog",
    "calendar",
    "weather",
    "code",
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
