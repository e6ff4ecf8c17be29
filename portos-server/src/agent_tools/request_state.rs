//! The `requestState` of MCP 2026-07-28's multi-round calls: what a call
//! was told so far (the client's earlier answers), handed to the client
//! with the questions of the next round and given back with their answers.
//! The server keeps nothing between rounds, so the state is sealed: an
//! HMAC-SHA256 over the state and what it is for (the method, the tool or
//! prompt, its arguments), under a key kept in the store so that every
//! server on one database reads every other's. A state that was changed,
//! or that belongs to another call, does not open.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};
use serde_json::{Map, Value};

use crate::settings;
use crate::store::{Connection, StoreError};

/// The settings key the sealing key is kept under (never served: no route
/// reads it).
const KEY_SETTING: &str = "mcpRequestStateKey";

/// The key request states are sealed with.
#[derive(Clone, Debug)]
pub(crate) struct RequestStateKey {
    key: hmac::Key,
}

/// Why a state did not open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("requestState integrity check failed")]
pub(crate) struct Tampered;

impl RequestStateKey {
    /// The store's key, made on first use (by whichever server asks first;
    /// the others wait for it and read it).
    pub(crate) fn load(connection: &mut Connection) -> Result<RequestStateKey, StoreError> {
        let transaction = connection.transaction()?;
        settings::lock_for_change(&transaction, KEY_SETTING)?;
        let stored = settings::get_json(&transaction, KEY_SETTING)?
            .and_then(|value| value.as_str().and_then(|text| hex::decode(text).ok()))
            .filter(|bytes| bytes.len() == 32);
        let bytes = match stored {
            Some(bytes) => bytes,
            None => {
                let mut bytes = vec![0u8; 32];
                SystemRandom::new().fill(&mut bytes).map_err(|_| {
                    StoreError::Unavailable("no randomness for the request-state key".to_owned())
                })?;
                settings::set_json(
                    &transaction,
                    KEY_SETTING,
                    &Value::String(hex::encode(&bytes)),
                )?;
                bytes
            }
        };
        transaction.commit()?;
        Ok(RequestStateKey::from_bytes(&bytes))
    }

    pub(crate) fn from_bytes(bytes: &[u8]) -> RequestStateKey {
        RequestStateKey {
            key: hmac::Key::new(hmac::HMAC_SHA256, bytes),
        }
    }

    /// `answers` sealed for the call `binding` names.
    pub(crate) fn seal(&self, binding: &str, answers: &Map<String, Value>) -> String {
        let body = URL_SAFE_NO_PAD.encode(Value::Object(answers.clone()).to_string());
        let tag = hmac::sign(&self.key, &signed(binding, &body));
        format!("{body}.{}", URL_SAFE_NO_PAD.encode(tag.as_ref()))
    }

    /// The answers `state` holds, when it was sealed here for `binding`.
    pub(crate) fn open(&self, binding: &str, state: &str) -> Result<Map<String, Value>, Tampered> {
        let (body, tag) = state.split_once('.').ok_or(Tampered)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| Tampered)?;
        hmac::verify(&self.key, &signed(binding, body), &tag).map_err(|_| Tampered)?;
        let text = URL_SAFE_NO_PAD.decode(body).map_err(|_| Tampered)?;
        match serde_json::from_slice(&text) {
            Ok(Value::Object(answers)) => Ok(answers),
            _ => Err(Tampered),
        }
    }
}

/// What the tag covers: the call, then the state.
fn signed(binding: &str, body: &str) -> Vec<u8> {
    let mut signed = Vec::with_capacity(binding.len() + 1 + body.len());
    signed.extend_from_slice(binding.as_bytes());
    signed.push(0);
    signed.extend_from_slice(body.as_bytes());
    signed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_state_opens_only_unchanged_and_for_its_call() {
        let key = RequestStateKey::from_bytes(&[7; 32]);
        let answers = json!({"user_name": {"action": "accept", "content": {"name": "Alice"}}});
        let answers = answers.as_object().cloned().unwrap_or_default();
        let state = key.seal("tools/call greet {}", &answers);
        assert_eq!(key.open("tools/call greet {}", &state), Ok(answers));
        assert_eq!(key.open("tools/call other {}", &state), Err(Tampered));
        assert_eq!(
            key.open("tools/call greet {}", &format!("{state}-TAMPERED")),
            Err(Tampered)
        );
        assert_eq!(
            key.open("tools/call greet {}", "not a state"),
            Err(Tampered)
        );
        let other = RequestStateKey::from_bytes(&[8; 32]);
        assert_eq!(other.open("tools/call greet {}", &state), Err(Tampered));
    }
}
