//! The contract's naming rules (docs/reference.md#call-envelope,
//! docs/reference.md#name-resolution, DESIGN "Schemas"): checked by the macros
//! at compile time and by the registry again at start-up, since a descriptor
//! can also be written by hand.

/// A callable name (canonical or alias) is at most this long.
pub const NAME_MAX_CHARS: usize = 100;
/// OpenAI, Anthropic and MCP accept tool names up to this long.
pub const PROVIDER_NAME_MAX_CHARS: usize = 64;
/// An intent group's name is at most this long.
pub const INTENT_GROUP_MAX_CHARS: usize = 64;
/// A capability's name is at most this long.
pub const CAPABILITY_NAME_MAX_CHARS: usize = 64;
/// A scope's name is at most this long.
pub const SCOPE_NAME_MAX_CHARS: usize = 32;
/// The catalog's `scope=all`: no scope may take this name.
pub const ALL_SCOPES_WORD: &str = "all";

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
    name_problem(
        name,
        NAME_MAX_CHARS,
        |c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'),
        "letters, digits, `.`, `_` and `-`",
    )
}

/// What breaks the provider-name rule, said so the user can fix it.
pub fn provider_name_problem(name: &str) -> Option<String> {
    name_problem(
        name,
        PROVIDER_NAME_MAX_CHARS,
        |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'),
        "letters, digits, `_` and `-`",
    )
}

/// What breaks the intent-group rule: 1..=64 of `[a-z0-9_-]`. Which groups
/// exist is the application's choice; only the spelling is the contract's.
pub fn intent_group_problem(name: &str) -> Option<String> {
    name_problem(
        name,
        INTENT_GROUP_MAX_CHARS,
        |c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '-'),
        "lowercase letters, digits, `_` and `-`",
    )
}

/// What breaks the capability-name rule: a camelCase word, 1..=64 of
/// `[A-Za-z0-9]` starting with a lowercase letter (`readBooks`), since
/// capabilities are the keys of a JSON grants object. Which capabilities
/// exist is the application's vocabulary.
pub fn capability_name_problem(name: &str) -> Option<String> {
    name_problem(
        name,
        CAPABILITY_NAME_MAX_CHARS,
        |c| c.is_ascii_alphanumeric(),
        "letters and digits, camelCase",
    )
    .or_else(|| lowercase_start(name))
}

/// What breaks the scope-name rule: 1..=32 of `[a-z0-9-]` starting with a
/// lowercase letter, and not `all` (the catalog's every-scope query).
/// Which scopes exist is the application's vocabulary.
pub fn scope_name_problem(name: &str) -> Option<String> {
    name_problem(
        name,
        SCOPE_NAME_MAX_CHARS,
        |c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-',
        "lowercase letters, digits and `-`",
    )
    .or_else(|| lowercase_start(name))
    .or_else(|| {
        (name == ALL_SCOPES_WORD).then(|| "`all` is the catalog's word for every scope".to_owned())
    })
}

fn lowercase_start(name: &str) -> Option<String> {
    match name.chars().next() {
        Some(first) if !first.is_ascii_lowercase() => Some(format!(
            "it starts with {first:?} (start with a lowercase letter)"
        )),
        _ => None,
    }
}

fn name_problem(name: &str, max: usize, fits: fn(char) -> bool, allowed: &str) -> Option<String> {
    if name.is_empty() {
        Some("it is empty".to_owned())
    } else if let Some(c) = name.chars().find(|&c| !fits(c)) {
        Some(format!("{c:?} is not allowed (only {allowed})"))
    } else if name.len() > max {
        Some(format!(
            "it is {} characters long (at most {max})",
            name.len()
        ))
    } else {
        None
    }
}

/// `providerToolName`: every `.` and `-` becomes `_`.
pub fn provider_name_for(canonical: &str) -> String {
    canonical.replace(['.', '-'], "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vocabulary_words() {
        assert_eq!(capability_name_problem("readBooks"), None);
        assert!(capability_name_problem("read_books").is_some());
        assert!(capability_name_problem("ReadBooks").is_some());
        assert!(capability_name_problem("").is_some());
        assert_eq!(scope_name_problem("librarian"), None);
        assert_eq!(scope_name_problem("home-lab2"), None);
        assert!(scope_name_problem("all").is_some());
        assert!(scope_name_problem("Ui").is_some());
        assert!(scope_name_problem("2fa").is_some());
    }

    #[test]
    fn rules() {
        assert!(is_callable_name("time.now"));
        assert!(!is_callable_name(""));
        assert!(!is_callable_name(&"x".repeat(101)));
        assert!(is_provider_name("time_now"));
        assert!(!is_provider_name("time.now"));
        assert_eq!(provider_name_for("a.b-c"), "a_b_c");
        assert_eq!(intent_group_problem("dailylog"), None);
        assert!(intent_group_problem("Daily Log").is_some());
    }
}
