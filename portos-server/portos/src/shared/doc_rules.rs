//! Patterns the documents state for text fields the routes check by hand.
//! `Body<T>` enforces a body's documented schema before its handler runs,
//! so each of these is both what the OpenAPI document says and the first
//! gate; the handler's own check (after trimming) then never refuses what
//! the pattern let through. Patterns are kept to the syntax ECMA-262,
//! Python's `re` and Rust's `regex` read the same way.

/// Holds at least one character that is not whitespace: "trimmed, must not
/// be empty" (a refusal says exactly that).
pub use portos_core::schema::NOT_BLANK;

/// The scheme, host and optional port (0–65535) of an `http://` or
/// `https://` URL. The host is a dotted-quad IPv4 address, a bracketed IPv6
/// address, or a name whose last label starts with a letter (so that it is
/// never read as a number: `http://1.2.3.999` is not a URL).
macro_rules! http_origin {
    () => {
        concat!(
            r"^\s*[Hh][Tt][Tt][Pp][Ss]?://(",
            // IPv4
            r"((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])",
            // IPv6: eight groups, or fewer around one `::`
            r"|\[(",
            r"([0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}",
            r"|([0-9A-Fa-f]{1,4}:){1,7}:",
            r"|([0-9A-Fa-f]{1,4}:){1,6}:[0-9A-Fa-f]{1,4}",
            r"|([0-9A-Fa-f]{1,4}:){1,5}(:[0-9A-Fa-f]{1,4}){1,2}",
            r"|([0-9A-Fa-f]{1,4}:){1,4}(:[0-9A-Fa-f]{1,4}){1,3}",
            r"|([0-9A-Fa-f]{1,4}:){1,3}(:[0-9A-Fa-f]{1,4}){1,4}",
            r"|([0-9A-Fa-f]{1,4}:){1,2}(:[0-9A-Fa-f]{1,4}){1,5}",
            r"|[0-9A-Fa-f]{1,4}:(:[0-9A-Fa-f]{1,4}){1,6}",
            r"|:((:[0-9A-Fa-f]{1,4}){1,7}|:)",
            r")\]",
            // a name
            r"|([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)*[A-Za-z]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?",
            r")",
            r"(:([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?",
        )
    };
}

/// An `http://` or `https://` URL: the origin then an optional path,
/// query or fragment without whitespace; surrounding whitespace is trimmed.
pub const HTTP_URL: &str = concat!(http_origin!(), r"([/?#]\S*)?\s*$");

/// An `http://` or `https://` base address: like [`HTTP_URL`] without a
/// query or fragment.
pub const HTTP_BASE_URL: &str = concat!(http_origin!(), r"(/[^\s?#]*)?\s*$");

/// Text of one line: at least one visible character and no control
/// characters once surrounding whitespace is trimmed.
pub const ONE_LINE_TEXT: &str =
    r"^\s*[^\x00-\x1F\x7F-\x9F]*[^\s\x00-\x1F\x7F-\x9F][^\x00-\x1F\x7F-\x9F]*\s*$";

/// An absolute file path on the server's machine (no `:`, so it can never
/// be mistaken for a URL); surrounding whitespace is trimmed.
pub const ABSOLUTE_PATH: &str = r"^\s*/[^:]*$";

/// `schema` (an object schema) with more rules on some of its properties:
/// each `(name, rules)` merges the keywords of `rules` into that property.
/// For a request type shared with a tool whose own schema leaves these rules
/// to the adapter (a broken one is a failed result there,
/// docs/reference.md#semantic-adapters), while over HTTP they are the body's
/// documented, enforced rules.
pub fn with_rules(
    mut schema: schemars::Schema,
    rules: &[(&str, serde_json::Value)],
) -> schemars::Schema {
    let properties = schema
        .ensure_object()
        .entry("properties")
        .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
    for (name, extra) in rules {
        if let (Some(property), Some(extra)) = (
            properties
                .get_mut(*name)
                .and_then(serde_json::Value::as_object_mut),
            extra.as_object(),
        ) {
            property.extend(extra.clone());
        }
    }
    schema
}

/// The rules of an optional day field: a calendar date (`YYYY-MM-DD`), or
/// blank or `null` for today.
pub fn date_or_blank() -> serde_json::Value {
    serde_json::json!({ "anyOf": [
        { "type": "string", "format": "date" },
        { "type": "string", "pattern": r"^\s*$" },
        { "type": "null" },
    ] })
}

/// A calendar date, `YYYY-MM-DD` (a path parameter; fields say
/// `format = "date"` themselves). Its checks stay the handler's: the
/// format is documented, not asserted by the schema gate.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct DateText(#[schemars(extend("format" = "date"))] pub String);

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        regex::Regex::new(pattern).expect("pattern").is_match(text)
    }

    #[test]
    fn urls() {
        for url in [
            "http://127.0.0.1:8080/feed.xml",
            "https://example.com",
            " HTTPS://a-b.example.org/x?y=1#z ",
            "http://a:65535",
        ] {
            assert!(matches(HTTP_URL, url), "{url}");
            assert!(reqwest::Url::parse(url.trim()).is_ok(), "{url}");
        }
        for url in [
            "ftp://a",
            "http://",
            "http://a:65536",
            "http://a b",
            "http://-a",
        ] {
            assert!(!matches(HTTP_URL, url), "{url}");
        }
    }

    #[test]
    fn base_urls() {
        assert!(matches(HTTP_BASE_URL, "http://[::1]:8080/portos/"));
        assert!(!matches(HTTP_BASE_URL, "http://a/?q"));
        assert!(!matches(HTTP_BASE_URL, "http://a/#f"));
        assert!(!matches(HTTP_BASE_URL, "http://[0]"));
        assert!(!matches(
            HTTP_BASE_URL,
            "http://[:018A:9:bF08:1B48:6:02B8:3615]"
        ));
        assert!(!matches(HTTP_BASE_URL, "http://1.2.3.999"));
        for url in [
            "http://[::]",
            "http://[fe80::1:2]:80/x",
            "http://10.0.0.1",
            "http://a.b-c",
        ] {
            assert!(matches(HTTP_BASE_URL, url), "{url}");
            assert!(reqwest::Url::parse(url).is_ok(), "{url}");
        }
    }

    #[test]
    fn one_line_text() {
        assert!(matches(ONE_LINE_TEXT, " Ada Lovelace\n"));
        assert!(!matches(ONE_LINE_TEXT, "Ada\u{1}"));
        assert!(!matches(ONE_LINE_TEXT, "a\nb"));
        assert!(!matches(ONE_LINE_TEXT, "  "));
    }

    #[test]
    fn paths_and_text() {
        assert!(matches(ABSOLUTE_PATH, "/srv/feeds/a.xml"));
        assert!(!matches(ABSOLUTE_PATH, "relative"));
        assert!(!matches(ABSOLUTE_PATH, "/a://b"));
        assert!(matches(NOT_BLANK, " x "));
        assert!(!matches(NOT_BLANK, " \t\n"));
    }

    /// `Body<T>` and `Query<T>` compile each request type's schema on first
    /// use and answer 500 if it does not compile: prove here, for every
    /// route PortOS links, that none is left to find out in production.
    #[test]
    fn every_request_schema_compiles() {
        let mut checked = 0;
        for entry in portos_core::linked::routes() {
            let io = entry.spec.io();
            for schema_of in [io.path, io.query, io.request].into_iter().flatten() {
                let mut generator =
                    schemars::generate::SchemaSettings::draft2020_12().into_generator();
                let mut schema = schema_of(&mut generator).to_value();
                if let Some(object) = schema.as_object_mut() {
                    let definitions = generator.definitions().clone();
                    object.insert("$defs".to_owned(), serde_json::Value::Object(definitions));
                }
                if let Err(error) = jsonschema::validator_for(&schema) {
                    panic!(
                        "{} {}: {error}",
                        entry.spec.method.lowercase(),
                        entry.spec.path
                    );
                }
                checked += 1;
            }
        }
        assert!(checked > 50, "only {checked} request schemas were found");
    }
}
