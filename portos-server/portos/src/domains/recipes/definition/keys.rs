//! The names a definition uses: the recipe's own name, and keys (parameter
//! names, step ids, argument and output names, path keys).

/// `^recipe\.[a-z][a-z0-9-]{0,63}$`.
pub fn is_recipe_name(name: &str) -> bool {
    let Some(slug) = name.strip_prefix("recipe.") else {
        return false;
    };
    let mut bytes = slug.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_lowercase())
        && slug.len() <= 64
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Names that mean something to a JavaScript object; refused as keys so a
/// definition can never reach an object's prototype wherever it is read.
const RESERVED_KEYS: [&str; 3] = ["constructor", "prototype", "__proto__"];

/// `^[A-Za-z][A-Za-z0-9_-]{0,63}$`, and not a reserved name.
pub fn is_key(key: &str) -> bool {
    let mut bytes = key.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && key.len() <= 64
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !RESERVED_KEYS.contains(&key)
}

/// Why `key` is not a key, for messages.
pub fn key_problem(key: &str) -> String {
    if RESERVED_KEYS.contains(&key) {
        format!("\"{key}\" is a reserved name")
    } else {
        format!(
            "{key:?} is not a key: a letter, then up to 63 letters, digits, `_` or `-`",
            key = shorten(key)
        )
    }
}

/// At most 80 characters of `text`, for messages about hostile input.
pub fn shorten(text: &str) -> String {
    const SHOWN: usize = 80;
    if text.chars().count() <= SHOWN {
        text.to_owned()
    } else {
        let mut short: String = text.chars().take(SHOWN).collect();
        short.push('…');
        short
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipe_names() {
        assert!(is_recipe_name("recipe.a"));
        assert!(is_recipe_name(&format!("recipe.a{}", "b".repeat(63))));
        assert!(!is_recipe_name(&format!("recipe.a{}", "b".repeat(64))));
        for bad in [
            "recipe.",
            "recipe.1a",
            "recipe.A",
            "recipe.a_b",
            "recipe.a.b",
            "brain.search",
            "recipe-a",
            " recipe.a",
        ] {
            assert!(!is_recipe_name(bad), "{bad}");
        }
    }

    #[test]
    fn keys() {
        assert!(is_key("a"));
        assert!(is_key("Ab_c-1"));
        assert!(is_key(&format!("a{}", "b".repeat(63))));
        assert!(!is_key(&format!("a{}", "b".repeat(64))));
        for bad in [
            "",
            "1a",
            "_a",
            "a b",
            "a.b",
            "é",
            "constructor",
            "prototype",
            "__proto__",
        ] {
            assert!(!is_key(bad), "{bad}");
        }
        assert!(key_problem("prototype").contains("reserved"));
    }
}
