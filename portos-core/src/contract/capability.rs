use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::words::{CapabilityTerm, MAX_CAPABILITIES, vocabulary, words};

super::words::vocabulary_word! {
    /// A capability of the application's vocabulary (`portos_core::vocabulary!`
    /// declares one constant per capability): its position is its bit in a
    /// grant set, its name the camelCase key of a grants object.
    Capability, CapabilityTerm, list: capabilities, names: capability_names,
    undeclared: "<undeclared capability>"
}

impl Capability {
    /// The capability a grants key names, if any.
    pub fn from_key(key: &str) -> Option<Capability> {
        Capability::from_name(key)
    }

    fn bit(self) -> u64 {
        1u64.checked_shl(u32::from(self.0)).unwrap_or(0)
    }
}

// A grant set is one bit per capability of the vocabulary.
const _: () = assert!(MAX_CAPABILITIES <= u64::BITS as usize);

/// The normalized set of granted capabilities: a key is granted only when it
/// was strictly `true`; everything else (absent, `"true"`, `1`) is not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Capabilities(u64);

impl Capabilities {
    /// The empty set: nothing granted.
    pub const NONE: Capabilities = Capabilities(0);

    /// Every capability of the linked vocabulary.
    pub fn all() -> Capabilities {
        Capability::all().collect()
    }

    /// Whether `capability` is granted.
    pub fn has(self, capability: Capability) -> bool {
        self.0 & capability.bit() != 0
    }

    /// Whether every one of `capabilities` is granted.
    pub fn has_all(self, capabilities: &[Capability]) -> bool {
        capabilities.iter().all(|c| self.has(*c))
    }

    /// The set with `capability` granted too.
    pub fn with(self, capability: Capability) -> Capabilities {
        Capabilities(self.0 | capability.bit())
    }

    /// The set with `capability` no longer granted.
    pub fn without(self, capability: Capability) -> Capabilities {
        Capabilities(self.0 & !capability.bit())
    }

    /// Each key granted only when granted in both (recipe authority refresh).
    pub fn intersect(self, other: Capabilities) -> Capabilities {
        Capabilities(self.0 & other.0)
    }

    /// Every capability either set holds.
    pub fn union(self, other: Capabilities) -> Capabilities {
        Capabilities(self.0 | other.0)
    }

    /// Normalizes any JSON value: non-objects grant nothing, and only keys
    /// whose value is exactly `true` are granted. Unknown keys are ignored.
    pub fn from_json(value: &serde_json::Value) -> Capabilities {
        let Some(object) = value.as_object() else {
            return Capabilities::NONE;
        };
        object
            .iter()
            .filter(|(_, v)| **v == serde_json::Value::Bool(true))
            .filter_map(|(k, _)| Capability::from_key(k))
            .collect()
    }

    /// The granted capabilities, in the vocabulary's order.
    pub fn iter(self) -> impl Iterator<Item = Capability> {
        Capability::all().filter(move |c| self.has(*c))
    }
}

impl FromIterator<Capability> for Capabilities {
    fn from_iter<I: IntoIterator<Item = Capability>>(iter: I) -> Self {
        Capabilities(iter.into_iter().fold(0, |bits, c| bits | c.bit()))
    }
}

/// Serialized as the contract's object of booleans, every capability of the
/// vocabulary present, in its order.
impl Serialize for Capabilities {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(vocabulary().capabilities.len()))?;
        for capability in Capability::all() {
            map.serialize_entry(capability.as_str(), &self.has(capability))?;
        }
        map.end()
    }
}

/// The wire form described from the same vocabulary the (de)serializer
/// uses: an object of booleans, one optional key per capability, nothing
/// else.
impl schemars::JsonSchema for Capabilities {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Capabilities".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let properties: serde_json::Map<String, serde_json::Value> = Capability::all()
            .map(|capability| {
                (
                    capability.as_str().to_owned(),
                    serde_json::json!({ "type": "boolean" }),
                )
            })
            .collect();
        schemars::json_schema!({
            "description": "Every grant, each `true` or `false` (all `false` by default); keys left out are off.",
            "type": "object",
            "properties": properties,
            "additionalProperties": false,
        })
    }
}

impl<'de> Deserialize<'de> for Capabilities {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CapabilitiesVisitor;
        impl<'de> Visitor<'de> for CapabilitiesVisitor {
            type Value = Capabilities;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of capability grants")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Capabilities, A::Error> {
                let mut granted = Capabilities::NONE;
                while let Some(key) = map.next_key::<String>()? {
                    let capability = Capability::from_key(&key).ok_or_else(|| {
                        de::Error::unknown_field(&key, words().capability_names.as_slice())
                    })?;
                    if map.next_value::<bool>()? {
                        granted = granted.with(capability);
                    }
                }
                Ok(granted)
            }
        }
        deserializer.deserialize_map(CapabilitiesVisitor)
    }
}
