//! A saved read recipe's definition (docs/reference.md#recipe-definition): a
//! name, a purpose, the parameters it takes (a closed, small schema language),
//! one to five steps that each call a read tool with bound arguments, and the
//! outputs it answers. This module is the definition's own rules; whether its
//! steps fit the live catalog is `validate`'s job.
//!
//! ```json
//! {
//!   "schemaVersion": 1,
//!   "name": "recipe.morning-brief",
//!   "purpose": "Today's calendar and the latest brain captures.",
//!   "parameters": {
//!     "type": "object",
//!     "properties": { "limit": { "type": "integer", "description": "How many captures" } },
//!     "required": ["limit"],
//!     "additionalProperties": false
//!   },
//!   "steps": [
//!     { "id": "today", "tool": "calendar.today", "arguments": {} },
//!     { "id": "recent", "tool": "brain.recent", "arguments": { "limit": { "input": "limit" } } }
//!   ],
//!   "outputs": {
//!     "events": { "step": "today", "path": ["events"] },
//!     "captures": { "step": "recent", "path": ["items"] }
//!   }
//! }
//! ```

mod binding;
pub mod keys;
mod parameter;
mod parse;
pub mod size;

use serde_json::{Map, Value, json};

pub use keys::{is_key, is_recipe_name};
pub use parse::parse;

use crate::domains::recipes::error::RecipeValidationError;

/// The only definition version there is.
pub const SCHEMA_VERSION: u64 = 1;
pub const MAX_PURPOSE_CHARS: usize = 1000;
pub const MAX_DESCRIPTION_CHARS: usize = 500;
pub const MAX_PROPERTIES: usize = 30;
pub const MAX_ENUM_VALUES: usize = 30;
pub const MAX_STEPS: usize = 5;
pub const MAX_TOOL_NAME_CHARS: usize = 100;
pub const MAX_ARGUMENTS: usize = 30;
pub const MAX_OUTPUTS: usize = 30;
pub const MAX_PATH_SEGMENTS: usize = 8;
pub const MAX_PATH_INDEX: u64 = 999_999;

/// Why a definition could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DefinitionError {
    /// A `schemaVersion` other than 1 (`RECIPE_VERSION_UNSUPPORTED`): the
    /// rest is not read, it may follow rules this server does not know.
    Unsupported(Value),
    /// A rule broken (`RECIPE_VALIDATION_ERROR`).
    Invalid(RecipeValidationError),
}

impl From<RecipeValidationError> for DefinitionError {
    fn from(error: RecipeValidationError) -> DefinitionError {
        DefinitionError::Invalid(error)
    }
}

/// A definition that passed its own rules.
#[derive(Clone, Debug, PartialEq)]
pub struct RecipeDefinition {
    /// `recipe.<slug>`.
    pub name: String,
    /// Trimmed, 1..1000 characters.
    pub purpose: String,
    /// Always of type `object`.
    pub parameters: Parameter,
    pub steps: Vec<Step>,
    /// In the order written.
    pub outputs: Vec<(String, Binding)>,
}

/// The JSON types a parameter can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParameterType {
    String,
    Number,
    Integer,
    Boolean,
    Object,
    Array,
    Null,
}

impl ParameterType {
    pub const ALL: [ParameterType; 7] = [
        ParameterType::String,
        ParameterType::Number,
        ParameterType::Integer,
        ParameterType::Boolean,
        ParameterType::Object,
        ParameterType::Array,
        ParameterType::Null,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ParameterType::String => "string",
            ParameterType::Number => "number",
            ParameterType::Integer => "integer",
            ParameterType::Boolean => "boolean",
            ParameterType::Object => "object",
            ParameterType::Array => "array",
            ParameterType::Null => "null",
        }
    }

    pub fn parse(text: &str) -> Option<ParameterType> {
        ParameterType::ALL.into_iter().find(|t| t.as_str() == text)
    }
}

/// One node of the parameter schema language.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    pub kind: ParameterType,
    pub description: Option<String>,
    /// Objects only, in the order written.
    pub properties: Vec<(String, Parameter)>,
    /// Objects only; each names a property.
    pub required: Vec<String>,
    /// Arrays only (and always there for them).
    pub items: Option<Box<Parameter>>,
    /// Primitive types only: 1..30 values of the node's type.
    pub enum_values: Option<Vec<Value>>,
}

impl Parameter {
    pub fn property(&self, name: &str) -> Option<&Parameter> {
        self.properties
            .iter()
            .find_map(|(key, node)| (key == name).then_some(node))
    }

    pub fn is_required(&self, name: &str) -> bool {
        self.required.iter().any(|r| r == name)
    }

    /// The node as the JSON Schema it is (and as it is stored): objects
    /// always closed.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("type".to_owned(), json!(self.kind.as_str()));
        if let Some(description) = &self.description {
            map.insert("description".to_owned(), json!(description));
        }
        if self.kind == ParameterType::Object {
            let properties: Map<String, Value> = self
                .properties
                .iter()
                .map(|(key, node)| (key.clone(), node.to_json()))
                .collect();
            map.insert("properties".to_owned(), Value::Object(properties));
            if !self.required.is_empty() {
                map.insert("required".to_owned(), json!(self.required));
            }
            map.insert("additionalProperties".to_owned(), Value::Bool(false));
        }
        if let Some(items) = &self.items {
            map.insert("items".to_owned(), items.to_json());
        }
        if let Some(values) = &self.enum_values {
            map.insert("enum".to_owned(), Value::Array(values.clone()));
        }
        Value::Object(map)
    }
}

/// One step: a read tool called with bound arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub id: String,
    /// The tool's canonical name (checked against the catalog later).
    pub tool: String,
    /// In the order written.
    pub arguments: Vec<(String, Binding)>,
}

/// Where a value comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Binding {
    /// This JSON value.
    Literal(Value),
    /// The recipe's argument of this name (a top-level parameter).
    Input(String),
    /// A value inside the `result` of an earlier step.
    Step { step: String, path: Vec<Segment> },
}

impl Binding {
    pub fn to_json(&self) -> Value {
        match self {
            Binding::Literal(value) => json!({ "literal": value }),
            Binding::Input(name) => json!({ "input": name }),
            Binding::Step { step, path } => {
                let path: Vec<Value> = path.iter().map(Segment::to_json).collect();
                json!({ "step": step, "path": path })
            }
        }
    }
}

/// One segment of a step binding's path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    Index(u32),
}

impl Segment {
    pub fn to_json(&self) -> Value {
        match self {
            Segment::Key(key) => json!(key),
            Segment::Index(index) => json!(index),
        }
    }
}

impl std::fmt::Display for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Segment::Key(key) => write!(f, "{key:?}"),
            Segment::Index(index) => write!(f, "{index}"),
        }
    }
}

impl RecipeDefinition {
    /// The definition as stored and shown: the same rules, normalized
    /// (purpose trimmed, objects spelled closed).
    pub fn to_json(&self) -> Value {
        let bindings = |list: &[(String, Binding)]| -> Value {
            Value::Object(
                list.iter()
                    .map(|(key, binding)| (key.clone(), binding.to_json()))
                    .collect(),
            )
        };
        let steps: Vec<Value> = self
            .steps
            .iter()
            .map(|step| {
                json!({
                    "id": step.id,
                    "tool": step.tool,
                    "arguments": bindings(&step.arguments),
                })
            })
            .collect();
        json!({
            "schemaVersion": SCHEMA_VERSION,
            "name": self.name,
            "purpose": self.purpose,
            "parameters": self.parameters.to_json(),
            "steps": steps,
            "outputs": bindings(&self.outputs),
        })
    }

    pub fn step(&self, id: &str) -> Option<&Step> {
        self.steps.iter().find(|step| step.id == id)
    }

    /// The canonical names of the tools the steps call, each once, in order.
    pub fn underlying_tools(&self) -> Vec<String> {
        let mut tools: Vec<String> = Vec::new();
        for step in &self.steps {
            if !tools.contains(&step.tool) {
                tools.push(step.tool.clone());
            }
        }
        tools
    }
}
