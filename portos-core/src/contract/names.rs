//! The contract's naming rules; `portos-macros` checks the same at compile time.

/// A callable name (canonical or alias): 1..=100 of `[A-Za-z0-9._-]`.
pub fn is_callable_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Valid for OpenAI, Anthropic and MCP alike: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_provider_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
}

/// `providerToolName`: every `.` and `-` becomes `_`.
pub fn provider_name_for(canonical: &str) -> String {
    canonical.replace(['.', '-'], "_")
}
