//! High-confidence redaction for the `summary` profile
//! (docs/reference.md#context-items): whitespace normalized, then secrets,
//! e-mail addresses, tailnet hosts, IP and MAC addresses, home directories,
//! phone numbers and coordinates are replaced by bracketed tokens, and the
//! result is capped at 320 characters. It removes what it recognizes; it is not
//! an anonymization guarantee.

use std::sync::LazyLock;

use regex::Regex;

use super::MAX_SUMMARY_CHARS;

/// (pattern, replacement), applied in order: secrets before the broader
/// patterns, so a token is never half-replaced as something else.
static RULES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
            "[REDACTED PRIVATE KEY]",
        ),
        (r"\bsk-(?:ant-)?[A-Za-z0-9_-]{20,}", "[REDACTED]"),
        (r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})", "[REDACTED]"),
        (r"\bAKIA[0-9A-Z]{16}\b", "[REDACTED]"),
        (r"\bxox[abposr]-[A-Za-z0-9-]{10,}", "[REDACTED]"),
        (r"(?i)\bBearer\s+[A-Za-z0-9._~+/=-]{20,}", "[REDACTED]"),
        (
            r#"(?i)\b(password|passwd|secret|api[_-]?key|token)\s*[:=]\s*(?:"[^"]*"|'[^']*')"#,
            "[REDACTED]",
        ),
        (r"(?i)\b[A-Z0-9._%+-]+@[A-Z0-9.-]+\.[A-Z]{2,}\b", "[REDACTED EMAIL]"),
        (r"(?i)\b(?:[a-z0-9-]+\.)+ts\.net\b", "[REDACTED HOST]"),
        (r"(?i)\b(?:[0-9a-f]{2}[:-]){5}[0-9a-f]{2}\b", "[REDACTED MAC]"),
        (
            r"\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b",
            "[REDACTED IP]",
        ),
        (
            r"(?i)(?:\b[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}\b|\b(?:[0-9a-f]{1,4}:){1,7}:(?:[0-9a-f]{1,4}\b)?|::(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4}\b",
            "[REDACTED IP]",
        ),
        (r"/(?:Users|home)/[^/\s]+", "~"),
        (
            r"(?:\+\d{1,3}[\s.-]?)?(?:\(\d{3}\)|\b\d{3})[\s.-]\d{3}[\s.-]\d{4}\b",
            "[REDACTED PHONE]",
        ),
        (r"(?i)\blat(?:itude)?\s*=\s*-?\d+(?:\.\d+)?", "latitude=[REDACTED]"),
        (r"(?i)\b(?:lon|lng|longitude)\s*=\s*-?\d+(?:\.\d+)?", "longitude=[REDACTED]"),
    ]
    .into_iter()
    .filter_map(|(pattern, replacement)| Regex::new(pattern).ok().map(|re| (re, replacement)))
    .collect()
});

/// Normalizes whitespace, redacts, and caps the result.
pub fn redact(text: &str) -> String {
    let mut out = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for (pattern, replacement) in RULES.iter() {
        if pattern.is_match(&out) {
            out = pattern.replace_all(&out, *replacement).into_owned();
        }
    }
    cap(&out, MAX_SUMMARY_CHARS)
}

/// At most `max` characters (not bytes).
pub fn cap(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => text[..end].to_owned(),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_applies() {
        assert_eq!(RULES.len(), 16, "every pattern compiles");
        let text = "mail ada@example.com key sk-ant-abcdefghijklmnopqrstuvwxyz01 \
            gh ghp_abcdefghijklmnopqrstuvwxyz aws AKIAABCDEFGHIJKLMNOP \
            host box.tail1234.ts.net ip 10.1.2.3 v6 fe80::1 mac 00:1a:2b:3c:4d:5e \
            dir /home/ada/src phone 415-555-0134 lat=37.77 lng=-122.41 \
            auth Bearer abcdefghijklmnopqrstuvwxyz password=\"hunter2\"";
        let out = redact(text);
        for leaked in [
            "ada@",
            "sk-ant",
            "ghp_",
            "AKIA",
            "tail1234",
            "10.1.2.3",
            "fe80",
            "00:1a",
            "/home/ada",
            "555-0134",
            "37.77",
            "122.41",
            "hunter2",
            "abcdefghijklmnopqrstuvwxyz",
        ] {
            assert!(!out.contains(leaked), "{leaked} leaked in {out}");
        }
        for token in [
            "[REDACTED EMAIL]",
            "[REDACTED HOST]",
            "[REDACTED IP]",
            "[REDACTED MAC]",
            "[REDACTED PHONE]",
            "~/src",
            "latitude=[REDACTED]",
            "longitude=[REDACTED]",
        ] {
            assert!(out.contains(token), "{token} missing in {out}");
        }
        let pem = "x -----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY----- y";
        assert_eq!(redact(pem), "x [REDACTED PRIVATE KEY] y");
    }

    #[test]
    fn normalizes_and_caps() {
        assert_eq!(redact("  a \n\t b  "), "a b");
        assert_eq!(redact(&"é".repeat(400)).chars().count(), 320);
    }
}
