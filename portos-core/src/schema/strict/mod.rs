//! Provider projections of a tool's closed input schema into the subsets the
//! strict provider modes accept: OpenAI strict function calling
//! (`openai.rs`), Anthropic strict tool use (`anthropic.rs`) and Gemini
//! function declarations (`gemini.rs`).
//!
//! Every keyword a provider does not document is dropped or rewritten, and
//! each such change is recorded (a [`Change`]), so a catalog can say per tool
//! which rules the model is no longer told about. The registry still
//! validates every call against the full schema, so a dropped bound (a
//! `maxLength`, a `pattern`) is still enforced server-side.
//!
//! Some losses matter more than a bound: the projection is then refused (a
//! [`Refusal`]) and the registry build names the tool. A loss matters when
//! the model could no longer know the *shape* or the *vocabulary* of a valid
//! call:
//!
//! * an open object (`additionalProperties` other than `false`,
//!   `patternProperties`, `propertyNames`): its keys carry meaning the
//!   strict subsets cannot list;
//! * a value set that cannot be said (`enum`/`const` values the provider
//!   does not take), or a value of any type (no `type` at all);
//! * composition that cannot be said (`not`, `if`/`then`/`else`,
//!   `dependentRequired`/`dependentSchemas`, tuples, `contains`,
//!   `unevaluated*`, and `allOf` where the provider lacks it).
//!
//! Bounds (lengths, ranges, counts, uniqueness, patterns, formats, defaults)
//! are refinements the server enforces and the description usually states:
//! dropping one means the model may occasionally send a refused value and
//! gets `TOOL_VALIDATION_ERROR` naming the path to fix.

mod anthropic;
mod gemini;
mod openai;
mod pattern;
mod walk;

use std::fmt;

use serde::Serialize;
use serde_json::Value;

/// The strict provider dialects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// OpenAI function calling with `strict: true` (Structured Outputs).
    OpenaiStrict,
    /// Anthropic tool use with `strict: true`.
    AnthropicStrict,
    /// Gemini function declarations (`parameters`, the OpenAPI 3.0 subset).
    Gemini,
}

impl Dialect {
    /// Every dialect, in the order the catalogs list them.
    pub const ALL: [Dialect; 3] = [
        Dialect::OpenaiStrict,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
    ];

    /// The catalog format's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::OpenaiStrict => "openai-strict",
            Dialect::AnthropicStrict => "anthropic-strict",
            Dialect::Gemini => "gemini",
        }
    }

    /// Projects a closed input schema (as [`super::project_input`] makes it)
    /// into this dialect, or says why that would lose a rule that matters.
    pub fn project(self, input_schema: &Value) -> Result<Projected, Vec<Refusal>> {
        let mut cx = walk::Cx::default();
        let schema = match self {
            Dialect::OpenaiStrict => openai::project(input_schema, &mut cx),
            Dialect::AnthropicStrict => anthropic::project(input_schema, &mut cx),
            Dialect::Gemini => gemini::project(input_schema, &mut cx),
        };
        if cx.refusals.is_empty() {
            Ok(Projected {
                schema,
                changes: cx.changes,
            })
        } else {
            Err(cx.refusals)
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An input schema in a provider's subset, and what changed to get there.
/// `schema` is `None` when the dialect declares the tool without parameters
/// (Gemini, for a tool that takes no arguments).
#[derive(Clone, Debug, PartialEq)]
pub struct Projected {
    /// The projected schema; `None` when the tool is declared without
    /// parameters.
    pub schema: Option<Value>,
    /// Every keyword dropped or rewritten.
    pub changes: Vec<Change>,
}

/// One keyword a projection dropped or rewrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// JSON Pointer of the subschema in the tool's full input schema (`""`
    /// is the root).
    pub path: String,
    /// The keyword, e.g. `maxLength`.
    pub keyword: String,
    /// Whether it was dropped or rewritten.
    pub action: Action,
    /// What the model is no longer told, or what it is told instead.
    pub detail: String,
}

/// What a projection did to a keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Not sent: the provider's subset lacks it. The server still enforces it.
    Dropped,
    /// Said another way with the same meaning for the model (e.g. `const` as
    /// a one-value `enum`), or a weaker bound the provider takes.
    Rewritten,
    /// An optional property made required with a `null` branch (OpenAI
    /// strict): the model sends `null` for "absent", and the client drops
    /// such a key before calling (the server refuses `null` there).
    NullableAdded,
}

/// Why a subschema cannot be projected without losing a rule that matters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// JSON Pointer of the subschema in the tool's full input schema (`""` is
    /// the root).
    pub path: String,
    /// The keyword whose rule would be lost, e.g. `additionalProperties`.
    pub keyword: String,
    /// Why losing it matters.
    pub reason: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{at} `{}`: {}", self.keyword, self.reason)
    }
}

/// Every strict dialect's projection of one tool's input schema, computed
/// once when the registry is built.
#[derive(Clone, Debug)]
pub struct StrictProjections {
    openai: Result<Projected, Vec<Refusal>>,
    anthropic: Result<Projected, Vec<Refusal>>,
    gemini: Result<Projected, Vec<Refusal>>,
}

impl StrictProjections {
    /// Projects `input_schema` (closed, as [`project_input`](super::project_input)
    /// makes it) into every strict dialect.
    pub fn of(input_schema: &Value) -> StrictProjections {
        StrictProjections {
            openai: Dialect::OpenaiStrict.project(input_schema),
            anthropic: Dialect::AnthropicStrict.project(input_schema),
            gemini: Dialect::Gemini.project(input_schema),
        }
    }

    /// The projection for `dialect`, or why there is none.
    pub fn get(&self, dialect: Dialect) -> Result<&Projected, &[Refusal]> {
        let slot = match dialect {
            Dialect::OpenaiStrict => &self.openai,
            Dialect::AnthropicStrict => &self.anthropic,
            Dialect::Gemini => &self.gemini,
        };
        slot.as_ref().map_err(Vec::as_slice)
    }

    /// Every dialect that refused, with its refusals.
    pub fn refused(&self) -> impl Iterator<Item = (Dialect, &[Refusal])> {
        Dialect::ALL
            .into_iter()
            .filter_map(|dialect| self.get(dialect).err().map(|refusals| (dialect, refusals)))
    }
}

#[cfg(test)]
mod tests;
