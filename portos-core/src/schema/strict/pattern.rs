//! Whether a regular expression stays inside the features Anthropic's strict
//! subset documents: anchors `^…$`, the quantifiers `*`, `+`, `?` and small
//! `{n,m}`, character classes `[…]`, `.`, `\d`, `\w`, `\s`, and groups
//! `(…)`. Anything else (negated shorthands such as `\S`, Unicode classes
//! `\p{…}`, word boundaries, lookaround, backreferences, alternation) makes
//! the pattern "not simple", and it is dropped rather than risk a request
//! the provider refuses.

/// The largest count in a `{n,m}` quantifier taken as "simple".
const MAX_COUNT: u32 = 100;

pub(super) fn is_simple(pattern: &str) -> bool {
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        let ok = match c {
            '\\' => chars.next().is_some_and(simple_escape),
            '[' => class(&mut chars),
            '(' => chars.peek() != Some(&'?'),
            '{' => quantifier(&mut chars),
            '|' | '}' | ']' => false,
            _ => true,
        };
        if !ok {
            return false;
        }
    }
    true
}

/// `\d`, `\w`, `\s`, or an escaped ASCII punctuation character (a literal).
fn simple_escape(c: char) -> bool {
    matches!(c, 'd' | 'w' | 's') || c.is_ascii_punctuation()
}

/// The rest of a `[…]` class, after its `[`.
fn class(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> bool {
    while let Some(c) = chars.next() {
        match c {
            ']' => return true,
            '\\' if !chars.next().is_some_and(simple_escape) => return false,
            '[' => return false,
            _ => {}
        }
    }
    false
}

/// The rest of a `{n}`, `{n,}` or `{n,m}` quantifier, after its `{`.
fn quantifier(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> bool {
    let mut body = String::new();
    for c in chars.by_ref() {
        if c == '}' {
            let mut bounds = body.splitn(2, ',');
            let low = bounds.next().unwrap_or("");
            let high = bounds.next();
            let small = |text: &str| text.parse::<u32>().is_ok_and(|n| n <= MAX_COUNT);
            return small(low) && high.is_none_or(|high| high.is_empty() || small(high));
        }
        body.push(c);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::is_simple;

    #[test]
    fn documented_features_are_simple() {
        for pattern in [
            "^[a-zA-Z0-9_-]+$",
            r"^\s*[A-Za-z0-9][A-Za-z0-9_-]*\s*$",
            "^[a-f0-9]{48}$",
            r"^(\d{3})-\d{2,4}\.x?$",
            "abc",
        ] {
            assert!(is_simple(pattern), "{pattern}");
        }
    }

    #[test]
    fn other_features_are_not() {
        for pattern in [
            r"\S",
            r"^\s*[\p{L}\p{N}]+$",
            r"\bword\b",
            "(?=x)y",
            "(?:a)",
            r"(a)\1",
            "a|b",
            "a{1,1000}",
            "[a-z",
            "a{2",
        ] {
            assert!(!is_simple(pattern), "{pattern}");
        }
    }
}
