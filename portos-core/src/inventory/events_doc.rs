//! The event inventory, `events.json` and AsyncAPI 3.0.0
//! (docs/reference.md#event-inventory).

use std::collections::BTreeMap;
use std::fmt;

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use super::classify::{base36, fnv1a_utf16, title_case};
use crate::descriptor::{Direction, EventSpec};

/// What the application says about itself in its AsyncAPI document.
#[derive(Clone, Debug)]
pub struct AsyncApiOptions<'a> {
    /// `info.title`.
    pub title: &'a str,
    /// `info.version`: the application's version.
    pub version: &'a str,
    /// `info.description`.
    pub description: &'a str,
    /// `servers.local.host`: where the Socket.IO endpoint listens.
    pub host: &'a str,
    /// `servers.local.description`.
    pub server_description: &'a str,
}

/// Every declared event, checked and sorted by name.
#[derive(Debug)]
pub struct EventInventory {
    events: Vec<&'static EventSpec>,
}

/// Duplicate event names, or events under a mount the server did not place.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct EventInventoryError {
    /// One line per problem.
    pub problems: Vec<String>,
}

impl fmt::Display for EventInventoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the event inventory cannot be built:")?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

/// `cos:tools:called` → `cos`: the text before the first `:`.
fn domain(event: &str) -> &str {
    event.split(':').next().unwrap_or(event)
}

impl EventInventory {
    /// Sorts the declarations by name and checks them: every duplicate name and
    /// every event under an unplaced mount is one problem.
    pub fn new(
        events: impl IntoIterator<Item = &'static EventSpec>,
    ) -> Result<EventInventory, EventInventoryError> {
        let mut events: Vec<&'static EventSpec> = events.into_iter().collect();
        events.sort_by_key(|e| e.name);
        let mut problems: Vec<String> = events
            .iter()
            .filter_map(|event| {
                event.mount.map(|mount| {
                    format!(
                        "event `{}` ({}) lives under the mount `{mount}`, which the server does not place",
                        event.name, event.location
                    )
                })
            })
            .collect();
        for pair in events.windows(2) {
            if pair[0].name == pair[1].name {
                problems.push(format!(
                    "event `{}` is declared twice: at {} and at {}",
                    pair[0].name, pair[0].location, pair[1].location
                ));
            }
        }
        if problems.is_empty() {
            Ok(EventInventory { events })
        } else {
            Err(EventInventoryError { problems })
        }
    }

    /// The events, sorted by name.
    pub fn events(&self) -> &[&'static EventSpec] {
        &self.events
    }

    /// `GET /api/api-docs/events.json`.
    pub fn events_json(&self) -> Value {
        // Inlined: each payload schema reads on its own.
        let mut generator = SchemaSettings::draft2020_12()
            .with(|s| {
                s.inline_subschemas = true;
                s.meta_schema = None;
            })
            .into_generator();
        let mut domains: BTreeMap<&str, usize> = BTreeMap::new();
        let mut sources: Vec<&str> = Vec::new();
        let (mut to_server, mut to_client, mut both, mut modeled) = (0, 0, 0, 0);
        let events: Vec<Value> = self
            .events
            .iter()
            .map(|event| {
                *domains.entry(domain(event.name)).or_default() += 1;
                if !sources.contains(&event.location.file) {
                    sources.push(event.location.file);
                }
                let has = |d| event.directions.contains(&d);
                match (has(Direction::ClientToServer), has(Direction::ServerToClient)) {
                    (true, true) => both += 1,
                    (true, false) => to_server += 1,
                    _ => to_client += 1,
                }
                let mut schemas = Map::new();
                if let Some(payload) = event.payload {
                    modeled += 1;
                    let mut schema = payload(&mut generator).to_value();
                    if let Some(place) = event.place {
                        place.write_into(&mut schema);
                    }
                    for direction in event.directions {
                        schemas.insert(direction.as_str().to_owned(), schema.clone());
                    }
                }
                json!({
                    "event": event.name,
                    "directions": event.directions,
                    "domain": domain(event.name),
                    "domainLabel": title_case(domain(event.name)),
                    "summary": event.summary,
                    "contractStatus": if event.payload.is_some() { "modeled" } else { "generated" },
                    "modeledDirections": if event.payload.is_some() { json!(event.directions) } else { json!([]) },
                    "payloadSchemas": schemas,
                })
            })
            .collect();
        let total = events.len();
        json!({
            "schemaVersion": 2,
            "derivedFrom": ["#[portos_event] declarations linked into this binary"],
            "stats": {
                "events": total,
                "clientToServer": to_server,
                "serverToClient": to_client,
                "bidirectional": both,
                "sourceFiles": sources.len(),
                "domains": domains.len(),
                "modeled": modeled,
                "generated": total - modeled,
            },
            "domains": domains
                .iter()
                .map(|(id, count)| json!({ "id": id, "label": title_case(id), "events": count }))
                .collect::<Vec<_>>(),
            "events": events,
        })
    }

    /// `GET /api/api-docs/asyncapi.json`: AsyncAPI 3.0.0 for the Socket.IO
    /// transport; one channel per event, one message and one operation per
    /// direction (the server sends server-to-client, receives the rest).
    pub fn asyncapi(&self, options: &AsyncApiOptions<'_>) -> Value {
        let mut generator = SchemaSettings::draft2020_12()
            .with(|s| s.definitions_path = "/components/schemas".into())
            .into_generator();
        let mut channels = Map::new();
        let mut operations = Map::new();
        let mut messages = Map::new();
        for event in &self.events {
            let channel_id = id_for(event.name);
            let mut channel_messages = Map::new();
            let known: Vec<String> = generator.definitions().keys().cloned().collect();
            let mut payload = event
                .payload
                .map(|schema| schema(&mut generator).to_value())
                .unwrap_or_else(|| json!({ "type": "null" }));
            // A mounted event's place goes into its payload and the
            // definitions its payload brought (a type shared with another
            // event keeps the place of the first).
            if let Some(place) = event.place {
                place.write_into(&mut payload);
                for (name, definition) in generator.definitions_mut().iter_mut() {
                    if !known.contains(name) {
                        place.write_into(definition);
                    }
                }
            }
            for direction in event.directions {
                let message_id = id_for(&format!("{}:{}", event.name, direction.as_str()));
                messages.insert(
                    message_id.clone(),
                    json!({
                        "name": event.name,
                        "title": event.name,
                        "summary": event.summary,
                        "payload": payload,
                    }),
                );
                channel_messages.insert(
                    message_id.clone(),
                    json!({ "$ref": format!("#/components/messages/{message_id}") }),
                );
                let action = match direction {
                    Direction::ServerToClient => "send",
                    Direction::ClientToServer => "receive",
                };
                operations.insert(
                    id_for(&format!("{action}:{}", event.name)),
                    json!({
                        "action": action,
                        "channel": { "$ref": format!("#/channels/{channel_id}") },
                        "summary": event.summary,
                        "messages": [{ "$ref": format!("#/channels/{channel_id}/messages/{message_id}") }],
                    }),
                );
            }
            let mut channel = json!({
                "address": event.name,
                "messages": channel_messages,
                "x-portos-directions": event.directions,
            });
            let parameters: Map<String, Value> = event
                .name
                .split(':')
                .filter_map(|part| part.strip_prefix('{')?.strip_suffix('}'))
                .map(|name| {
                    (
                        name.to_owned(),
                        json!({ "description": format!("The `{name}` part of the event name.") }),
                    )
                })
                .collect();
            if !parameters.is_empty() {
                channel["parameters"] = Value::Object(parameters);
            }
            channels.insert(channel_id, channel);
        }
        json!({
            "asyncapi": "3.0.0",
            "info": {
                "title": options.title,
                "version": options.version,
                "description": options.description,
            },
            "defaultContentType": "application/json",
            "servers": {
                "local": {
                    "host": options.host,
                    "protocol": "socket.io",
                    "pathname": "/socket.io",
                    "description": options.server_description,
                },
            },
            "channels": channels,
            "operations": operations,
            "components": {
                "messages": messages,
                "schemas": generator.take_definitions(true),
            },
        })
    }
}

/// An AsyncAPI id: the name with non-alphanumerics as `_`, plus a short
/// FNV-1a hash so two names that sanitize alike stay distinct.
fn id_for(name: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("{}_{}", stem.trim_matches('_'), base36(fnv1a_utf16(name)))
}
