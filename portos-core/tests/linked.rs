//! The link-time lists under whichever back end this build uses (CI runs it
//! with and without `--features inventory-collector`; `linked::COLLECTOR`
//! says which): what the attributes and `__private::v1::register!` add is
//! what `linked` reads back, once.

use portos_core::inventory::{EventInventory, HttpMethod, Inventory, RouteEntry, RouteSpec};
use portos_core::{AdapterError, Registry, SourceLocation, linked, portos_event, portos_tool};
use serde::Serialize;

portos_core::vocabulary! {
    capabilities {}
    scopes {
        /// People over HTTP.
        #[signed_in]
        UI = "ui",
        /// A voice pipeline.
        #[trusted]
        VOICE = "voice",
    }
}

/// Answer pong.
#[portos_tool(name = "linked.ping", scopes = ["ui"], side_effect = "read")]
async fn ping() -> Result<serde_json::Value, AdapterError> {
    Ok(serde_json::json!({ "ok": true, "summary": "pong" }))
}

/// A second tool, so order and count are checked.
#[portos_tool(name = "linked.alpha", scopes = ["voice"], side_effect = "read", intent_group = "demo")]
async fn alpha() -> Result<serde_json::Value, AdapterError> {
    Ok(serde_json::json!({ "ok": true, "summary": "a" }))
}

/// Something happened.
#[derive(Serialize, schemars::JsonSchema)]
#[portos_event(name = "linked:happened", direction = "both")]
struct Happened {
    what: String,
}

// `#[portos_route]` needs portos-server; a route entry is registered the way
// its expansion does it.
portos_core::__private::v1::register!(ROUTES, LINKED_ROUTE: RouteEntry = RouteEntry {
    spec: RouteSpec {
        method: HttpMethod::Get,
        path: "/api/linked/{id}",
        mount: None,
        summary: None,
        description: "A linked route.",
        access: None,
        side_effect: None,
        io: RouteSpec::undescribed,
        replaceable: false,
        tool: None,
        location: SourceLocation {
            file: file!(),
            line: line!(),
            column: column!(),
        },
    },
    handler: || Box::new(()),
});

#[test]
fn tools_are_collected_once_and_ordered_by_the_registry() {
    let mut names: Vec<&str> = linked::tools().map(|tool| tool.name).collect();
    names.sort_unstable();
    assert_eq!(names, ["linked.alpha", "linked.ping"]);
    let registry = Registry::builder().build().expect("valid");
    let ordered: Vec<&str> = registry.tools().iter().map(|tool| tool.name()).collect();
    assert_eq!(ordered, ["linked.alpha", "linked.ping"]);
    let alpha = registry.resolve("linked_alpha").expect("by provider name");
    assert_eq!(alpha.descriptor.intent.group, Some("demo"));
    assert!(alpha.descriptor.location.file.ends_with("linked.rs"));
}

#[test]
fn routes_and_events_are_collected_once() {
    let inventory =
        Inventory::new(linked::routes().map(|route| &route.spec)).expect("no duplicates");
    assert_eq!(inventory.routes().len(), 1);
    assert_eq!(inventory.routes()[0].path, "/api/linked/{id}");
    assert!(
        linked::routes()
            .next()
            .is_some_and(|route| (route.handler)().is::<()>())
    );
    let events = EventInventory::new(linked::events()).expect("no duplicates");
    assert_eq!(events.events().len(), 1);
    assert_eq!(events.events()[0].name, "linked:happened");
    assert!(events.events()[0].payload.is_some());
    let _ = Happened {
        what: String::new(),
    };
}
