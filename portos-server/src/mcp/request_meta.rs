//! A request's `_meta` as the 2026-07-28 revision fills it: its protocol
//! version and the client's capabilities. The quick path of
//! [`super::jsonrpc`] reads those two keys into their places, as it reads a
//! `tools/call`'s params: a map of two keys, hashed and allocated on every
//! call, cost more than the checks that read it.

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::{Map, Value};

/// `_meta` keys of the revision.
pub(crate) const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
pub(crate) const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// A request's `_meta` object.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RequestMeta {
    /// Exactly the revision's two keys, each once: a version that is a
    /// string and capabilities that are an object.
    Revision {
        protocol_version: String,
        client_capabilities: Map<String, Value>,
    },
    /// Any other object.
    Other(Map<String, Value>),
}

impl RequestMeta {
    /// Whether it names a protocol version (of any type): the 2026 way.
    pub(crate) fn names_a_version(&self) -> bool {
        match self {
            RequestMeta::Revision { .. } => true,
            RequestMeta::Other(map) => map.contains_key(PROTOCOL_VERSION_KEY),
        }
    }

    /// The protocol version, when it is a string.
    pub(crate) fn protocol_version(&self) -> Option<&str> {
        match self {
            RequestMeta::Revision {
                protocol_version, ..
            } => Some(protocol_version),
            RequestMeta::Other(map) => map.get(PROTOCOL_VERSION_KEY).and_then(Value::as_str),
        }
    }

    /// The client's capabilities, when they are an object.
    pub(crate) fn client_capabilities(&self) -> Option<&Map<String, Value>> {
        match self {
            RequestMeta::Revision {
                client_capabilities,
                ..
            } => Some(client_capabilities),
            RequestMeta::Other(map) => map.get(CLIENT_CAPABILITIES_KEY).and_then(Value::as_object),
        }
    }

    pub(crate) fn into_map(self) -> Map<String, Value> {
        match self {
            RequestMeta::Other(map) => map,
            RequestMeta::Revision {
                protocol_version,
                client_capabilities,
            } => slots_into_map(
                Some(Value::String(protocol_version)),
                Some(Value::Object(client_capabilities)),
            ),
        }
    }
}

fn slots_into_map(version: Option<Value>, capabilities: Option<Value>) -> Map<String, Value> {
    let mut map = Map::new();
    for (key, value) in [
        (PROTOCOL_VERSION_KEY, version),
        (CLIENT_CAPABILITIES_KEY, capabilities),
    ] {
        if let Some(value) = value {
            map.insert(key.to_owned(), value);
        }
    }
    map
}

/// Reads an object only (anything else fails, for the caller's general
/// path to judge).
impl<'de> Deserialize<'de> for RequestMeta {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<RequestMeta, D::Error> {
        deserializer.deserialize_map(MetaVisitor)
    }
}

struct MetaVisitor;

impl<'de> Visitor<'de> for MetaVisitor {
    type Value = RequestMeta;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<RequestMeta, A::Error> {
        let (mut version, mut capabilities) = (None, None);
        while let Some(key) = access.next_key::<MetaKey>()? {
            let slot = match key {
                MetaKey::Version if version.is_none() => &mut version,
                MetaKey::Capabilities if capabilities.is_none() => &mut capabilities,
                key => {
                    // Another key, or one repeated: the rest is read as any
                    // object is (a repeated key's last value wins).
                    let mut map = slots_into_map(version, capabilities);
                    map.insert(key.into_string(), access.next_value()?);
                    while let Some((key, value)) = access.next_entry()? {
                        map.insert(key, value);
                    }
                    return Ok(RequestMeta::Other(map));
                }
            };
            *slot = Some(access.next_value::<Value>()?);
        }
        Ok(match (version, capabilities) {
            (Some(Value::String(protocol_version)), Some(Value::Object(client_capabilities))) => {
                RequestMeta::Revision {
                    protocol_version,
                    client_capabilities,
                }
            }
            (version, capabilities) => RequestMeta::Other(slots_into_map(version, capabilities)),
        })
    }
}

/// A key of `_meta`, the revision's two known without copying.
enum MetaKey {
    Version,
    Capabilities,
    Other(String),
}

impl MetaKey {
    fn into_string(self) -> String {
        match self {
            MetaKey::Version => PROTOCOL_VERSION_KEY.to_owned(),
            MetaKey::Capabilities => CLIENT_CAPABILITIES_KEY.to_owned(),
            MetaKey::Other(key) => key,
        }
    }
}

impl<'de> Deserialize<'de> for MetaKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<MetaKey, D::Error> {
        deserializer.deserialize_str(MetaKeyVisitor)
    }
}

struct MetaKeyVisitor;

impl Visitor<'_> for MetaKeyVisitor {
    type Value = MetaKey;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a key")
    }

    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<MetaKey, E> {
        Ok(match key {
            PROTOCOL_VERSION_KEY => MetaKey::Version,
            CLIENT_CAPABILITIES_KEY => MetaKey::Capabilities,
            other => MetaKey::Other(other.to_owned()),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Whatever the object, its map is the object, and the accessors read
    /// it as the map would be read.
    #[test]
    fn a_meta_is_read_as_its_map() {
        for meta in [
            json!({PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: {"a": {}}}),
            json!({CLIENT_CAPABILITIES_KEY: {}, PROTOCOL_VERSION_KEY: "v"}),
            json!({PROTOCOL_VERSION_KEY: 1, CLIENT_CAPABILITIES_KEY: {}}),
            json!({PROTOCOL_VERSION_KEY: "v", CLIENT_CAPABILITIES_KEY: []}),
            json!({PROTOCOL_VERSION_KEY: "v"}),
            json!({PROTOCOL_VERSION_KEY: "v", CLIENT_CAPABILITIES_KEY: {}, "progressToken": 3}),
            json!({"progressToken": 3, PROTOCOL_VERSION_KEY: "v"}),
            json!({}),
        ] {
            let read: RequestMeta = serde_json::from_value(meta.clone()).expect("an object");
            let map = meta.as_object().expect("an object");
            assert_eq!(
                read.names_a_version(),
                map.contains_key(PROTOCOL_VERSION_KEY)
            );
            assert_eq!(
                read.protocol_version(),
                map.get(PROTOCOL_VERSION_KEY).and_then(Value::as_str)
            );
            assert_eq!(
                read.client_capabilities(),
                map.get(CLIENT_CAPABILITIES_KEY).and_then(Value::as_object)
            );
            assert_eq!(&read.into_map(), map, "{meta}");
        }
        let repeated = format!(r#"{{"{PROTOCOL_VERSION_KEY}":"a","{PROTOCOL_VERSION_KEY}":"b"}}"#);
        let read: RequestMeta = serde_json::from_str(&repeated).expect("an object");
        assert_eq!(read.protocol_version(), Some("b"));
        assert!(serde_json::from_str::<RequestMeta>("null").is_err());
        assert!(serde_json::from_str::<RequestMeta>("[]").is_err());
    }
}
