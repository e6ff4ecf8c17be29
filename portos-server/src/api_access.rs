//! Settings → API Access (docs/reference.md#route-catalog,
//! docs/reference.md#openapi): the API groups under `/api/public/` that the
//! owner may expose to other devices (phone shortcuts, home automation), each
//! off until switched on, and optionally still behind the instance password.
//! The public OpenAPI document lists exactly the exposed groups.

use crate::cached::Cached;
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::store::sql::Connection;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::settings;
use crate::store::StoreError;

/// The settings key the exposure choices are stored under.
pub(crate) const API_ACCESS: &str = "apiAccess";

/// Where every exposable group lives (the route inventory's
/// externally-exposable class).
const PUBLIC_PREFIX: &str = "/api/public/";

/// An API group that can be exposed outside the authenticated UI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExposableApi {
    pub id: &'static str,
    pub label: &'static str,
    pub description: &'static str,
    /// Every operation of the group lives under this prefix.
    pub prefix: &'static str,
}

/// One group's switches. Only real booleans count: anything else stored
/// reads as the default (`false`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Exposure {
    pub exposed: bool,
    pub require_auth: bool,
}

/// The exposable groups of a server, in settings order: the application
/// declares them ([`crate::ServerBuilder::exposable_api`]); none by default.
pub(crate) type ExposableApis = Arc<[ExposableApi]>;

/// The stored choice of every group.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApiAccess {
    groups: ExposableApis,
    by_id: BTreeMap<&'static str, Exposure>,
}

impl ApiAccess {
    pub fn load(connection: &Connection, groups: ExposableApis) -> Result<ApiAccess, StoreError> {
        let stored = settings::get_json(connection, API_ACCESS)?.unwrap_or(Value::Null);
        Ok(ApiAccess::from_stored(&stored, groups))
    }

    /// Every group switched off.
    pub fn all_off(groups: ExposableApis) -> ApiAccess {
        ApiAccess::from_stored(&Value::Null, groups)
    }

    fn from_stored(stored: &Value, groups: ExposableApis) -> ApiAccess {
        let flag = |api: &str, key: &str| {
            stored
                .get(api)
                .and_then(|entry| entry.get(key))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        let by_id = groups
            .iter()
            .map(|api| {
                (
                    api.id,
                    Exposure {
                        exposed: flag(api.id, "exposed"),
                        require_auth: flag(api.id, "requireAuth"),
                    },
                )
            })
            .collect();
        ApiAccess { groups, by_id }
    }

    pub fn get(&self, id: &str) -> Exposure {
        self.by_id.get(id).copied().unwrap_or_default()
    }

    /// The group an exposable path belongs to, with its switches.
    pub fn for_path(&self, path: &str) -> Option<(ExposableApi, Exposure)> {
        self.groups
            .iter()
            .find(|api| path.starts_with(api.prefix))
            .map(|api| (*api, self.get(api.id)))
    }

    /// The stored form: `{ "<id>": { "exposed": bool, "requireAuth": bool } }`.
    pub fn to_stored(&self) -> Value {
        let map: Map<String, Value> = self
            .by_id
            .iter()
            .map(|(id, exposure)| {
                (
                    (*id).to_owned(),
                    serde_json::to_value(exposure).unwrap_or(Value::Null),
                )
            })
            .collect();
        Value::Object(map)
    }

    /// `externallyExposableApis` of catalog.json, and the settings route's
    /// answer: every group with its resolved switches.
    pub fn describe(&self) -> ApiAccessView {
        ApiAccessView {
            apis: self
                .groups
                .iter()
                .map(|api| {
                    let exposure = self.get(api.id);
                    ApiGroup {
                        id: api.id,
                        label: api.label,
                        description: api.description,
                        prefix: api.prefix,
                        exposed: exposure.exposed,
                        require_auth: exposure.require_auth,
                    }
                })
                .collect(),
        }
    }

    /// Applies a change of some groups; the others keep their switches.
    /// Unknown group ids are refused by name.
    pub fn with_changes(&self, changes: &BTreeMap<String, Exposure>) -> Result<ApiAccess, String> {
        let mut next = self.clone();
        for (id, exposure) in changes {
            let Some(api) = self.groups.iter().find(|api| api.id == id) else {
                let known: Vec<&str> = self.groups.iter().map(|api| api.id).collect();
                return Err(format!(
                    "unknown API group `{id}`; expected one of: {}",
                    known.join(", ")
                ));
            };
            next.by_id.insert(api.id, *exposure);
        }
        Ok(next)
    }
}

/// The stored choices in memory, so the gate never reads the database. Like
/// the grants, refreshed on the connection of the write that changed them.
#[derive(Clone, Debug, Default)]
pub(crate) struct ApiAccessCache {
    current: Arc<Cached<Arc<ApiAccess>>>,
}

impl ApiAccessCache {
    pub(crate) fn load(
        connection: &Connection,
        groups: ExposableApis,
    ) -> Result<ApiAccessCache, StoreError> {
        Ok(ApiAccessCache {
            current: Cached::new(Arc::new(ApiAccess::load(connection, groups)?)),
        })
    }

    pub(crate) fn current(&self) -> Arc<ApiAccess> {
        self.current.current()
    }

    /// The group `path` belongs to, with its switches. Paths outside
    /// `/api/public/` (nearly every request) take no lock.
    pub(crate) fn for_path(&self, path: &str) -> Option<(ExposableApi, Exposure)> {
        if !path.starts_with(PUBLIC_PREFIX) {
            return None;
        }
        self.current().for_path(path)
    }

    /// Reads the stored switches again (after a change here, or another
    /// server's).
    pub(crate) fn reload(
        &self,
        connection: &Connection,
        groups: ExposableApis,
    ) -> Result<(), StoreError> {
        self.current
            .load(|| ApiAccess::load(connection, groups).map(Arc::new))
            .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn groups() -> ExposableApis {
        Arc::from([
            ExposableApi {
                id: "brain",
                label: "Brain inbox",
                description: "Capture from other devices.",
                prefix: "/api/public/brain/",
            },
            ExposableApi {
                id: "clock",
                label: "Clock",
                description: "The time.",
                prefix: "/api/public/clock/",
            },
        ])
    }

    #[test]
    fn only_real_booleans_count() {
        let access = ApiAccess::from_stored(
            &json!({
                "brain": { "exposed": "true", "requireAuth": 1 },
                "clock": { "exposed": true },
                "other": { "exposed": true },
            }),
            groups(),
        );
        assert_eq!(access.get("brain"), Exposure::default());
        assert!(access.get("clock").exposed);
        assert!(!access.get("clock").require_auth);
        assert_eq!(access.to_stored().as_object().map(Map::len), Some(2));
    }

    #[test]
    fn paths_belong_to_their_group() {
        let access = ApiAccess::all_off(groups());
        assert_eq!(
            access
                .for_path("/api/public/brain/captures")
                .map(|(api, _)| api.id),
            Some("brain")
        );
        assert_eq!(
            access
                .for_path("/api/public/clock/now")
                .map(|(api, _)| api.id),
            Some("clock")
        );
        assert!(access.for_path("/api/public/other").is_none());
        assert!(access.for_path("/api/public/clockwork").is_none());
        assert!(access.for_path("/api/brain").is_none());
    }

    #[test]
    fn unknown_groups_are_refused_by_name() {
        let mut changes = BTreeMap::new();
        changes.insert("sdapi".to_owned(), Exposure::default());
        let error = ApiAccess::all_off(groups())
            .with_changes(&changes)
            .expect_err("unknown id");
        assert!(
            error.contains("`sdapi`") && error.contains("brain"),
            "{error}"
        );
    }
}

/// One exposable API group and its switches.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiGroup {
    pub id: &'static str,
    pub label: &'static str,
    pub description: &'static str,
    /// Every operation of the group is under this path.
    pub prefix: &'static str,
    pub exposed: bool,
    pub require_auth: bool,
}

/// Every exposable API group, as Settings → API Access shows them.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ApiAccessView {
    pub apis: Vec<ApiGroup>,
}
