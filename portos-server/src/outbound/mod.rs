//! Outbound requests under one policy: everything a server fetches (an
//! application's feeds, calendars, peers, model endpoints, forges) goes
//! through an [`OutboundClient`], which sends only to public unicast
//! addresses unless the owner allowed more, judging every resolved address
//! and every redirect hop. A caller's URL cannot make the server reach its
//! own machine, its network or a cloud metadata service.

mod client;
mod policy;
mod ranges;
pub(crate) mod stats;

pub use client::{OutboundClient, OutboundError, client_builder, refusal};
pub use policy::{BadAllowEntry, OUTSIDE_ALLOW_LIST, OutboundPolicy, Refused};
