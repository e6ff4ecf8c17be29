//! Catalog text, rendered once per tool and format and owned by the catalog
//! layer (the registry knows nothing of it). Every entry is static once the
//! registry is built, except `granted` in the native format, so each entry is rendered
//! once, twice over: as served (contract key order) and in canonical form
//! (sorted keys, for the ETag), split around the `granted` value. A catalog
//! read is then string concatenation and one streaming SHA-256.

use std::sync::OnceLock;

use serde_json::Value;

use super::{CatalogFormat, format};
use crate::canonical_json;
use crate::registry::RegisteredTool;

/// The text of one tool's entries, each format rendered on first use.
#[derive(Debug, Default)]
pub(super) struct EntryText {
    shared: OnceLock<SharedText>,
    portos: OnceLock<NativeText>,
    openai: OnceLock<Text>,
    anthropic: OnceLock<Text>,
    mcp: OnceLock<Text>,
    /// `openai-strict`, `anthropic-strict`, `gemini`, in `Dialect::ALL` order.
    strict: [OnceLock<StrictText>; 3],
}

/// A strict-format entry and its projection report line (none when the
/// projection changed nothing).
#[derive(Debug)]
pub(super) struct StrictText {
    pub entry: Text,
    pub report: Option<Text>,
}

impl StrictText {
    pub(super) fn of(parts: &format::StrictEntry) -> StrictText {
        StrictText {
            entry: Text::of(&parts.entry),
            report: parts.report.as_ref().map(Text::of),
        }
    }
}

/// The native entry: as served up to and including `"granted":` (the entry
/// ends with the granted value and `}`), and in canonical form split around
/// the granted value.
#[derive(Debug)]
pub(super) struct NativeText {
    pub served: String,
    pub canonical: (String, String),
}

/// A JSON value rendered both ways: as served and in canonical form.
#[derive(Clone, Debug, Default)]
pub(super) struct Text {
    pub served: String,
    pub canonical: String,
}

impl Text {
    pub(super) fn of(value: &Value) -> Text {
        Text {
            served: value.to_string(),
            canonical: canonical_json::to_string(value),
        }
    }

    /// An object from rendered fields: served in the given order, canonical
    /// with keys sorted as JavaScript sorts them.
    pub(super) fn object(fields: &[(&str, &Text)]) -> Text {
        let mut served = String::with_capacity(256);
        let mut canonical = String::with_capacity(256);
        let mut sorted: Vec<&(&str, &Text)> = fields.iter().collect();
        sorted.sort_unstable_by(|a, b| canonical_json::key_order(a.0, b.0));
        for (out, fields, pick) in [
            (&mut served, fields.iter().collect::<Vec<_>>(), true),
            (&mut canonical, sorted, false),
        ] {
            out.push('{');
            for (index, (key, text)) in fields.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                canonical_json::write_to(out, &Value::from(*key));
                out.push(':');
                out.push_str(if pick { &text.served } else { &text.canonical });
            }
            out.push('}');
        }
        Text { served, canonical }
    }
}

/// Parts shared by every format, rendered once per tool.
#[derive(Debug)]
pub(super) struct SharedText {
    provider_name: Text,
    description: Text,
    input_schema: Text,
    output_schema: Text,
}

/// Every method takes the tool the text belongs to: the catalog layer keeps
/// one `EntryText` per registered tool, in the registry's order.
impl EntryText {
    fn shared_text(&self, tool: &RegisteredTool) -> &SharedText {
        self.shared.get_or_init(|| SharedText {
            provider_name: Text::of(&Value::from(tool.descriptor.provider_name)),
            description: Text::of(&Value::from(tool.descriptor.description)),
            input_schema: Text::of(&tool.input_schema),
            output_schema: Text::of(&tool.output_schema),
        })
    }

    pub(crate) fn native_text(&self, tool: &RegisteredTool) -> &NativeText {
        self.portos.get_or_init(|| {
            let d = tool.descriptor;
            let shared = self.shared_text(tool);
            let policy = serde_json::to_value(&tool.policy).unwrap_or(Value::Null);
            let entry = Text::object(&[
                ("type", &Text::of(&Value::from("portos_tool"))),
                ("name", &Text::of(&Value::from(d.name))),
                ("version", &Text::of(&Value::from(d.version))),
                ("providerName", &shared.provider_name),
                ("aliases", &Text::of(&Value::from(d.aliases.to_vec()))),
                ("description", &shared.description),
                ("input_schema", &shared.input_schema),
                ("output_schema", &shared.output_schema),
                ("policy", &Text::of(&policy)),
                // Always true after filtering: `all` lists everything, and a
                // named scope keeps only the tools that carry it.
                ("availableInScope", &Text::of(&Value::Bool(true))),
                // A placeholder, cut out below: `granted` depends on the read.
                ("granted", &Text::of(&Value::Null)),
            ]);
            NativeText {
                served: strip_granted_tail(&entry.served),
                canonical: split_at_granted(&entry.canonical),
            }
        })
    }

    /// A strict-format entry and its report line, rendered once per tool.
    pub(crate) fn strict_text(&self, tool: &RegisteredTool, format: CatalogFormat) -> &StrictText {
        let index = match format {
            CatalogFormat::AnthropicStrict => 1,
            CatalogFormat::Gemini => 2,
            _ => 0,
        };
        self.strict[index].get_or_init(|| {
            let d = tool.descriptor;
            let outcome = format::strict_outcome(format, tool);
            StrictText::of(&format::strict_entry(
                format,
                d.provider_name,
                d.description,
                &outcome,
                &tool.input_schema,
            ))
        })
    }

    /// A provider entry (docs/reference.md#provider-formats), as served and in
    /// canonical form.
    pub(crate) fn provider_text(&self, tool: &RegisteredTool, format: CatalogFormat) -> &Text {
        let slot = match format {
            CatalogFormat::Openai => &self.openai,
            CatalogFormat::Anthropic => &self.anthropic,
            CatalogFormat::OpenaiStrict
            | CatalogFormat::AnthropicStrict
            | CatalogFormat::Gemini => return &self.strict_text(tool, format).entry,
            // `Portos` never asks; `Mcp` is the remaining provider.
            CatalogFormat::Mcp | CatalogFormat::Portos => &self.mcp,
        };
        slot.get_or_init(|| {
            let shared = self.shared_text(tool);
            match format {
                CatalogFormat::Openai | CatalogFormat::OpenaiStrict => Text::object(&[
                    ("type", &Text::of(&Value::from("function"))),
                    (
                        "function",
                        &Text::object(&[
                            ("name", &shared.provider_name),
                            ("description", &shared.description),
                            ("parameters", &shared.input_schema),
                        ]),
                    ),
                ]),
                CatalogFormat::Anthropic | CatalogFormat::AnthropicStrict => Text::object(&[
                    ("name", &shared.provider_name),
                    ("description", &shared.description),
                    ("input_schema", &shared.input_schema),
                ]),
                CatalogFormat::Mcp | CatalogFormat::Portos | CatalogFormat::Gemini => {
                    let annotations = Text::of(&format::mcp_annotations(tool));
                    let execution = format::mcp_execution(tool).map(|value| Text::of(&value));
                    let mut fields = vec![
                        ("name", &shared.provider_name),
                        ("description", &shared.description),
                        ("inputSchema", &shared.input_schema),
                        ("outputSchema", &shared.output_schema),
                        ("annotations", &annotations),
                    ];
                    if let Some(execution) = &execution {
                        fields.push(("execution", execution));
                    }
                    Text::object(&fields)
                }
            }
        })
    }
}

/// `…,"granted":null}` → `…,"granted":` (granted is the last served key).
fn strip_granted_tail(served: &str) -> String {
    served.strip_suffix("null}").unwrap_or(served).to_owned()
}

/// Splits the canonical text right after the top-level `"granted":` and
/// drops its `null`. The first occurrence is the top-level key: the keys
/// sorted before it (`aliases`, `availableInScope`, `description`) hold only
/// strings and booleans, and a quote inside a JSON string is escaped.
fn split_at_granted(canonical: &str) -> (String, String) {
    const KEY: &str = "\"granted\":null";
    match canonical.find(KEY) {
        Some(at) => {
            let head_end = at + KEY.len() - "null".len();
            (
                canonical[..head_end].to_owned(),
                canonical[at + KEY.len()..].to_owned(),
            )
        }
        None => (canonical.to_owned(), String::new()),
    }
}
