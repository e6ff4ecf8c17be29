//! Calls to a peer world's guest routes over real HTTP, under the server's
//! outbound policy, with a 10 s limit, no redirects and a cap on what is
//! read back. Every way a peer can fail
//! (unreachable, refused, a bad answer) becomes a [`PeerError`] whose
//! message says what happened in words a person can act on.

use std::sync::Arc;
use std::time::Duration;

use portos_server::outbound::{self, OutboundClient, OutboundError, OutboundPolicy};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::peers::Peer;
use super::protocol::{
    Arrival, Door, Farewell, GUEST_PREFIX, GuestChat, GuestLine, Posted, Welcome, is_visit_id,
};

/// How long a peer has to answer.
pub const PEER_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest answer read from a peer.
const ANSWER_MAX_BYTES: usize = 512 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum PeerError {
    #[error("could not reach {peer} at {url}: {reason}")]
    Unreachable {
        peer: String,
        url: String,
        reason: String,
    },
    #[error("{peer} refused ({status}): {message}")]
    Refused {
        peer: String,
        status: u16,
        message: String,
    },
    #[error("{peer} gave an answer this server cannot use: {reason}")]
    BadAnswer { peer: String, reason: String },
    /// The server's outbound policy refuses the peer's address: nothing was
    /// sent.
    #[error("{peer} cannot be reached from this server: {reason}")]
    NotAllowed { peer: String, reason: String },
}

impl PeerError {
    pub fn status(&self) -> Option<u16> {
        match self {
            PeerError::Refused { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// The client (and connection pool) of every peer call: the server's
/// outbound policy, no redirects. Server state, built once by `install`.
#[derive(Clone, Debug)]
pub struct PeerClient(OutboundClient);

impl PeerClient {
    pub fn new(policy: OutboundPolicy) -> Result<PeerClient, String> {
        let builder = crate::shared::outbound::client_builder()
            .timeout(PEER_TIMEOUT)
            .connect_timeout(PEER_TIMEOUT);
        OutboundClient::never_redirecting(builder, Arc::new(policy))
            .map(PeerClient)
            .map_err(|error| error.to_string())
    }

    /// The peer at `url`, named `name` in messages.
    pub fn link(&self, name: impl Into<String>, url: impl Into<String>) -> PeerLink {
        PeerLink {
            name: name.into(),
            url: url.into(),
            client: self.0.clone(),
        }
    }

    pub fn to(&self, peer: &Peer) -> PeerLink {
        self.link(peer.name.clone(), peer.url.clone())
    }
}

/// A peer to talk to: its name (for messages) and base URL.
#[derive(Clone, Debug)]
pub struct PeerLink {
    pub name: String,
    pub url: String,
    client: OutboundClient,
}

impl PeerLink {
    fn endpoint(&self, path: &str) -> String {
        format!("{}{GUEST_PREFIX}{path}", self.url)
    }

    fn unreachable(&self, reason: impl Into<String>) -> PeerError {
        PeerError::Unreachable {
            peer: self.name.clone(),
            url: self.url.clone(),
            reason: reason.into(),
        }
    }

    fn not_allowed(&self, reason: String) -> PeerError {
        PeerError::NotAllowed {
            peer: self.name.clone(),
            reason,
        }
    }

    fn bad_answer(&self, reason: impl Into<String>) -> PeerError {
        PeerError::BadAnswer {
            peer: self.name.clone(),
            reason: reason.into(),
        }
    }

    /// Sends and reads a JSON answer of type `T`.
    async fn exchange<T: DeserializeOwned>(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&(impl Serialize + Sync)>,
    ) -> Result<T, PeerError> {
        let mut request = self
            .client
            .request(method, &self.endpoint(path))
            .map_err(|error| match error {
                OutboundError::Refused(refused) => self.not_allowed(refused.to_string()),
                OutboundError::NotHttp(_) => self.unreachable(error.to_string()),
            })?
            .header(reqwest::header::ACCEPT, "application/json");
        if let Some(body) = body {
            request = request.json(body);
        }
        let mut response = self.client.send(request).await.map_err(|error| {
            if let Some(refused) = outbound::refusal(&error) {
                return self.not_allowed(refused.to_string());
            }
            self.unreachable(if error.is_timeout() {
                format!("no answer within {} s", PEER_TIMEOUT.as_secs())
            } else if error.is_connect() {
                "connection refused or host not found".to_owned()
            } else {
                error.to_string()
            })
        })?;
        let status = response.status();
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|error| self.unreachable(format!("the answer broke off: {error}")))?
        {
            if bytes.len() + chunk.len() > ANSWER_MAX_BYTES {
                return Err(self.bad_answer(format!(
                    "the answer is larger than {ANSWER_MAX_BYTES} bytes"
                )));
            }
            bytes.extend_from_slice(&chunk);
        }
        if !status.is_success() {
            let message = serde_json::from_slice::<serde_json::Value>(&bytes)
                .ok()
                .and_then(|body| {
                    body.get("error")
                        .and_then(|e| e.as_str())
                        .map(str::to_owned)
                })
                .unwrap_or_else(|| {
                    status
                        .canonical_reason()
                        .unwrap_or("no reason given")
                        .to_owned()
                });
            return Err(PeerError::Refused {
                peer: self.name.clone(),
                status: status.as_u16(),
                message,
            });
        }
        serde_json::from_slice(&bytes).map_err(|error| self.bad_answer(error.to_string()))
    }

    /// Asks whether the peer takes guests.
    pub async fn door(&self) -> Result<Door, PeerError> {
        self.exchange(reqwest::Method::GET, "/world", None::<&()>)
            .await
    }

    pub async fn arrive(&self, arrival: &Arrival) -> Result<Welcome, PeerError> {
        let welcome: Welcome = self
            .exchange(reqwest::Method::POST, "/visits", Some(arrival))
            .await?;
        if !is_visit_id(&welcome.visit_id) {
            return Err(self.bad_answer("its visit id is not 48 lowercase hex characters"));
        }
        Ok(welcome)
    }

    pub async fn say(&self, visit_id: &str, line: &GuestLine) -> Result<Posted, PeerError> {
        self.exchange(
            reqwest::Method::POST,
            &format!("/visits/{visit_id}/chat"),
            Some(line),
        )
        .await
    }

    pub async fn read(&self, visit_id: &str, after: i64) -> Result<GuestChat, PeerError> {
        self.exchange(
            reqwest::Method::GET,
            &format!("/visits/{visit_id}/chat?after={after}"),
            None::<&()>,
        )
        .await
    }

    pub async fn leave(&self, visit_id: &str) -> Result<Farewell, PeerError> {
        self.exchange(
            reqwest::Method::DELETE,
            &format!("/visits/{visit_id}"),
            None::<&()>,
        )
        .await
    }
}
