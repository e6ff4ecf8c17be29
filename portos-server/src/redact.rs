//! Keeping secrets out of what the server shows and stores: error bodies drop
//! secret-looking keys, and an audit trail (PortOS's user-actions ledger)
//! masks secret-looking values. One list of markers serves both, so they
//! agree on what a secret is.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

/// What a masked value reads as.
pub const REDACTED: &str = "[REDACTED]";

/// Whether a key (`apiKey`, `access_token`, `DB_PASSWORD`…) names a secret.
/// Case and separators are ignored.
pub fn is_secret_key(key: &str) -> bool {
    const MARKERS: [&str; 8] = [
        "apikey",
        "token",
        "secret",
        "password",
        "credential",
        "authorization",
        "bearer",
        "envvars",
    ];
    let folded: String = key
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    MARKERS.iter().any(|marker| folded.contains(marker))
}

/// Drops keys that look like they hold secrets, at any depth (error bodies:
/// the key itself tells nothing the caller needs).
pub fn drop_secret_keys(context: Map<String, Value>) -> Map<String, Value> {
    context
        .into_iter()
        .filter(|(key, _)| !is_secret_key(key))
        .map(|(key, value)| (key, drop_secret_keys_in(value)))
        .collect()
}

fn drop_secret_keys_in(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(drop_secret_keys(map)),
        Value::Array(items) => Value::Array(items.into_iter().map(drop_secret_keys_in).collect()),
        other => other,
    }
}

/// Masks secrets in a JSON value, at any depth: the value of a secret-looking
/// key becomes `[REDACTED]` (the key stays, so the record still says what
/// changed), and every string has its secret-looking tokens masked.
pub fn mask_value(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| {
                    let masked = if is_secret_key(&key) && !value.is_null() && !is_flag(&value) {
                        Value::String(REDACTED.to_owned())
                    } else {
                        mask_value(value)
                    };
                    (key, masked)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(mask_value).collect()),
        Value::String(text) => Value::String(mask_text(&text)),
        other => other,
    }
}

/// A boolean under a secret-looking key (`requireToken: true`) tells no secret.
fn is_flag(value: &Value) -> bool {
    value.is_boolean()
}

/// Masks the secret-looking tokens of free text: credentials after a
/// secret-looking name (`password=…`, `api_key: …`, `Bearer …`), tokens with
/// a well-known vendor prefix, JSON Web Tokens, and long random-looking runs
/// of letters and digits (UUIDs excepted: they are the ledger's own ids).
pub fn mask_text(text: &str) -> String {
    let text = ASSIGNMENT.replace_all(text, |caps: &regex::Captures<'_>| {
        format!("{}{REDACTED}", &caps["name"])
    });
    let text = BEARER.replace_all(&text, |caps: &regex::Captures<'_>| {
        format!("{}{REDACTED}", &caps["scheme"])
    });
    let text = VENDOR_TOKEN.replace_all(&text, REDACTED);
    let text = JWT.replace_all(&text, REDACTED);
    LONG_RUN
        .replace_all(&text, |caps: &regex::Captures<'_>| {
            let run = &caps[0];
            if looks_random(run) {
                REDACTED.to_owned()
            } else {
                run.to_owned()
            }
        })
        .into_owned()
}

/// `password=hunter2`, `api_key: "abc"`, `client-secret = xyz`…: the name is
/// kept, the value masked.
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(?P<name>\b[\w.-]*(?:api[_-]?key|token|secret|password|passwd|pwd|credential)s?["']?\s*[:=]\s*["']?)[^\s"',;&]+"#,
    )
    .expect("a valid pattern")
});

static BEARER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?P<scheme>\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}").expect("a valid pattern")
});

/// Prefixes vendors give their keys: OpenAI/Anthropic `sk-`, Stripe
/// `sk_live_`/`rk_…`, GitHub `ghp_`…/`github_pat_`, GitLab `glpat-`, Slack
/// `xox?-`, AWS access key ids, Google API keys.
static VENDOR_TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:sk-[A-Za-z0-9_-]{16,}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,})",
    )
    .expect("a valid pattern")
});

static JWT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*")
        .expect("a valid pattern")
});

/// A run long enough to be a key: checked by [`looks_random`].
static LONG_RUN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9_+/=-]{32,}").expect("a valid pattern"));

static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
        .expect("a valid pattern")
});

/// Letters and digits mixed, not a UUID and not a word-like run
/// (`internationalization-and-localization` stays).
fn looks_random(run: &str) -> bool {
    if UUID.is_match(run) {
        return false;
    }
    let digits = run.chars().filter(char::is_ascii_digit).count();
    let letters = run.chars().filter(char::is_ascii_alphabetic).count();
    digits >= 4 && letters >= 4
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn strips_secret_keys_at_any_depth() {
        let context = json!({"details": [{"path": "x"}], "apiKey": "k", "nested": {"access_token": "t", "ok": 1}, "db_password": "p"});
        let Value::Object(map) = context else {
            unreachable!()
        };
        assert_eq!(
            Value::Object(drop_secret_keys(map)),
            json!({"details": [{"path": "x"}], "nested": {"ok": 1}})
        );
    }

    #[test]
    fn masks_secret_looking_tokens_in_text() {
        for (input, expected) in [
            (
                "key sk-abcdefghijklmnopqrstuvwx here",
                "key [REDACTED] here",
            ),
            ("password=hunter2 ok", "password=[REDACTED] ok"),
            ("api_key: \"abc123\"", "api_key: \"[REDACTED]\""),
            (
                "Authorization: Bearer abcdefgh12345",
                "Authorization: Bearer [REDACTED]",
            ),
            ("ghp_0123456789abcdefghijABCDEFGHIJ", "[REDACTED]"),
            ("AKIAABCDEFGHIJKLMNOP", "[REDACTED]"),
            ("jwt eyJhbGciOiJI.eyJzdWIiOiIx.sig_value", "jwt [REDACTED]"),
            (
                "random Zx81Kq0Lm29Wv7Rt56Yu34Io12Pa90Sd",
                "random [REDACTED]",
            ),
        ] {
            assert_eq!(mask_text(input), expected, "{input}");
        }
    }

    #[test]
    fn leaves_ordinary_text_and_ids() {
        for text in [
            "Buy milk and eggs tomorrow",
            "task 3f2b7c1e-8a4d-4e6f-9b0a-1c2d3e4f5a6b done",
            "internationalization-and-localization-guidelines",
            "token limits are fine to talk about",
        ] {
            assert_eq!(mask_text(text), text);
        }
    }

    #[test]
    fn masks_values_under_secret_keys_but_keeps_flags() {
        let masked = mask_value(json!({
            "apiKey": "abc",
            "requireToken": true,
            "note": "my password=swordfish",
            "list": [{"clientSecret": 42}],
        }));
        assert_eq!(
            masked,
            json!({
                "apiKey": "[REDACTED]",
                "requireToken": true,
                "note": "my password=[REDACTED]",
                "list": [{"clientSecret": "[REDACTED]"}],
            })
        );
    }
}
