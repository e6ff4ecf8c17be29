//! Thinking presets: the owner's list (REST), the Mind's view of it and
//! its requests for the next self-directed wake (tools), and the wake
//! taking the request (the turn loop).

use crate::ledger::{self, ActionType, Actor, NewAction, Source};
use jiff::Timestamp;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::Serialize;

use super::stamp;
use crate::domains::mind::answer::Answer;
use crate::domains::mind::store::{live_settings, thinking as stored};
use crate::domains::mind::thinking::{
    self, Limits, PresetList, RequestState, SETTINGS_KEY, ThinkingPreset, ThinkingRequest,
};

/// The refusal of `mind.request-thinking-preset` once the grant is off.
pub const THINKING_PRESETS_OFF: &str = "Persistent mind thinking preset access is disabled";
/// How many past requests a view lists.
const RECENT: usize = 10;
const EXPLANATION: &str = "A request applies to the next self-directed wake only; the current turn and the default route stay unchanged. One request may wait at a time, at most three are made in a rolling 24 hours, at least 30 minutes apart; a request counts when it is made, whatever becomes of it.";

/// Where the next self-directed wake's route comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RouteSource {
    /// The Mind's configured model and effort.
    Default,
    /// The pending request's preset.
    Requested,
}

/// The route the next self-directed wake takes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CurrentRoute {
    pub source: RouteSource,
    /// The requested preset as it was requested; `null` for the default.
    pub preset: Option<ThinkingPreset>,
}

/// What `mind.thinking-presets` answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    pub ok: bool,
    /// The presets the owner approved.
    pub presets: Vec<ThinkingPreset>,
    pub current: CurrentRoute,
    pub limits: Limits,
    pub pending: Option<ThinkingRequest>,
    /// The newest requests, newest first.
    pub recent: Vec<ThinkingRequest>,
    pub explanation: String,
    pub summary: String,
}

/// A request stored (or found stored under the same requestId).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Requested {
    pub ok: bool,
    /// The same request was stored before under this requestId.
    pub duplicate: bool,
    pub request: ThinkingRequest,
    pub summary: String,
}

/// The owner's presets with the Mind's requests, for REST.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PresetsView {
    pub presets: Vec<ThinkingPreset>,
    pub pending: Option<ThinkingRequest>,
    /// The newest requests, newest first.
    pub recent: Vec<ThinkingRequest>,
}

fn preset_of(request: &ThinkingRequest) -> ThinkingPreset {
    ThinkingPreset {
        id: request.preset_id.clone(),
        label: request.label.clone(),
        model: request.model.clone(),
        effort: request.effort,
    }
}

/// `"Deep" (model qwen3:8b, effort high)`, with the defaults said as such.
fn describe(preset: &ThinkingPreset) -> String {
    let model = if preset.model.is_empty() {
        "the Mind's model"
    } else {
        &preset.model
    };
    let effort = match preset.effort.as_str() {
        "" => "the provider's default effort".to_owned(),
        effort => format!("effort {effort}"),
    };
    format!("\"{}\" ({model}, {effort})", preset.label)
}

/// The Mind's view: presets, the next wake's route and the limits at `now`.
pub async fn catalog(store: &Store, now: Timestamp) -> Result<Catalog, StoreError> {
    store
        .run(move |connection| {
            let presets = stored::presets(connection)?.presets;
            let pending = stored::pending(connection)?;
            let made = stored::made_since(connection, thinking::window_start(now))?;
            let limits = thinking::limits(&made, now);
            let recent = stored::recent(connection, RECENT)?;
            let current = CurrentRoute {
                source: if pending.is_some() {
                    RouteSource::Requested
                } else {
                    RouteSource::Default
                },
                preset: pending.as_ref().map(preset_of),
            };
            let listed: Vec<String> = presets.iter().map(describe).collect();
            let mut summary = if listed.is_empty() {
                "No thinking presets are approved.".to_owned()
            } else {
                format!("Approved presets: {}.", listed.join(", "))
            };
            match (&current.preset, &limits.next_allowed_at) {
                (Some(preset), _) => summary.push_str(&format!(
                    " The next self-directed wake uses {}.",
                    describe(preset)
                )),
                (None, Some(next)) => {
                    summary.push_str(&format!(" The next request is allowed at {next}."));
                }
                (None, None) => summary.push_str(&format!(
                    " {} of {} requests left in the rolling 24 hours.",
                    limits.remaining, limits.max_per_rolling_day
                )),
            }
            Ok(Catalog {
                ok: true,
                presets,
                current,
                limits,
                pending,
                recent,
                explanation: EXPLANATION.to_owned(),
                summary,
            })
        })
        .await
}

/// Requests `preset_id` for the next self-directed wake; `request_id` is
/// the call's, so the same call stored before answers as a duplicate.
pub async fn request(
    store: &Store,
    request_id: String,
    preset_id: String,
    reason: String,
    now: Timestamp,
) -> Result<Answer<Requested>, StoreError> {
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            if !live_settings(&transaction)?.choose_thinking_preset {
                return Ok(Answer::refused(THINKING_PRESETS_OFF));
            }
            if let Some(prior) = stored::get(&transaction, &request_id)? {
                return Ok(if prior.preset_id == preset_id && prior.reason == reason {
                    Answer::Done(Requested {
                        ok: true,
                        duplicate: true,
                        summary: format!(
                            "Already requested {} for the next self-directed wake.",
                            describe(&preset_of(&prior))
                        ),
                        request: prior,
                    })
                } else {
                    Answer::refused(format!(
                        "Request id \"{request_id}\" was already used for another thinking preset request"
                    ))
                });
            }
            let presets = stored::presets(&transaction)?;
            let Some(preset) = presets.find(&preset_id).cloned() else {
                return Ok(Answer::refused(unknown_preset(&preset_id, &presets)));
            };
            if let Some(pending) = stored::pending(&transaction)? {
                return Ok(Answer::refused(format!(
                    "A thinking preset request is already pending for the next self-directed wake ({})",
                    describe(&preset_of(&pending))
                )));
            }
            let made = stored::made_since(&transaction, thinking::window_start(now))?;
            if let Some(refusal) = thinking::refusal(&made, now) {
                return Ok(Answer::refused(refusal));
            }
            let request = ThinkingRequest {
                request_id,
                preset_id: preset.id.clone(),
                label: preset.label.clone(),
                model: preset.model.clone(),
                effort: preset.effort,
                reason,
                requested_at: stamp(now),
                state: RequestState::Pending,
            };
            stored::insert(&transaction, &request, now)?;
            transaction.commit()?;
            Ok(Answer::Done(Requested {
                ok: true,
                duplicate: false,
                summary: format!(
                    "Requested {} for the next self-directed wake.",
                    describe(&preset)
                ),
                request,
            }))
        })
        .await
}

fn unknown_preset(preset_id: &str, presets: &PresetList) -> String {
    if presets.presets.is_empty() {
        return format!("Unknown thinking preset \"{preset_id}\": no presets are approved");
    }
    let ids: Vec<&str> = presets.presets.iter().map(|p| p.id.as_str()).collect();
    format!(
        "Unknown thinking preset \"{preset_id}\"; approved presets: {}",
        ids.join(", ")
    )
}

/// Takes the pending request for a self-directed wake starting at `now`:
/// its route when the owner still approves that preset as it was when
/// requested; otherwise the request is cancelled (not refunded) and the
/// wake keeps the default route.
pub async fn take_request(
    store: &Store,
    now: Timestamp,
) -> Result<Option<ThinkingRequest>, StoreError> {
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            let Some(pending) = stored::pending(&transaction)? else {
                return Ok(None);
            };
            let still_approved = stored::presets(&transaction)?
                .find(&pending.preset_id)
                .is_some_and(|preset| {
                    preset.model == pending.model && preset.effort == pending.effort
                });
            let state = if still_approved {
                RequestState::Used
            } else {
                RequestState::Cancelled
            };
            stored::settle(&transaction, &pending.request_id, state, &stamp(now))?;
            transaction.commit()?;
            Ok(still_approved.then_some(ThinkingRequest { state, ..pending }))
        })
        .await
}

/// The owner's presets with the Mind's requests.
pub async fn view(store: &Store) -> Result<PresetsView, StoreError> {
    store
        .run(|connection| {
            Ok(PresetsView {
                presets: stored::presets(connection)?.presets,
                pending: stored::pending(connection)?,
                recent: stored::recent(connection, RECENT)?,
            })
        })
        .await
}

/// Replaces the owner's presets (already checked); the setting and its
/// ledger row (`settings.update`, by the user over `route`) commit together.
pub async fn set_presets(
    store: &Store,
    list: PresetList,
    route: Source,
) -> Result<PresetsView, StoreError> {
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            stored::save_presets(&transaction, &list)?;
            let ids: Vec<&str> = list.presets.iter().map(|p| p.id.as_str()).collect();
            let summary = if ids.is_empty() {
                "Persistent Mind thinking presets: none approved".to_owned()
            } else {
                format!("Persistent Mind thinking presets: {}", ids.join(", "))
            };
            let action = NewAction::new(ActionType::SettingsUpdate, Actor::User, summary)
                .target(
                    SETTINGS_KEY,
                    Some("Persistent Mind thinking presets".to_owned()),
                )
                .source(route);
            ledger::record(&transaction, &action)?;
            transaction.commit()?;
            Ok(PresetsView {
                presets: list.presets,
                pending: stored::pending(connection)?,
                recent: stored::recent(connection, RECENT)?,
            })
        })
        .await
}
