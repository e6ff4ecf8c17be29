// PortOS's capabilities and scopes, which this tool uses.
portos_core::use_vocabulary!(portos_words);
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use portos_core::{portos_tool, AdapterError, Registry, Shared, StateMap, ToolCall, ToolContext};
use serde_json::{json, Value};

mod site {
    pub struct Site(pub &'static str);
}

#[derive(Default)]
struct Visits(AtomicU32);

// Any type path: a plain name, a path through a module, generic arguments;
// before, between and after the context, and `Shared` by its full path.
/// Greet the visitor of this site.
#[portos_tool(name = "demo.visit", scopes = ["ui"], side_effect = "read")]
async fn visit(
    site: Shared<site::Site>,
    ctx: &ToolContext,
    visits: portos_core::Shared<Arc<Visits>>,
    guests: Shared<Vec<&'static str>>,
) -> Result<Value, AdapterError> {
    let visit = visits.0.fetch_add(1, Ordering::SeqCst) + 1;
    let guests = guests.join(", ");
    let who = ctx.request_id();
    Ok(json!({ "ok": true, "summary": format!("Visit {visit} of {} ({guests}), {who}.", site.0) }))
}

fn call() -> ToolCall {
    ToolCall::parse(&json!({ "requestId": "v1", "name": "demo.visit", "arguments": {} }))
        .expect("a valid envelope")
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tool = portos_core::linked::tools()
        .find(|tool| tool.name == "demo.visit")
        .expect("linked");
    let names: Vec<_> = tool.state.iter().map(|need| need.type_name()).collect();
    assert_eq!(
        names,
        [
            std::any::type_name::<site::Site>(),
            std::any::type_name::<Arc<Visits>>(),
            std::any::type_name::<Vec<&'static str>>(),
        ]
    );

    // Without the state, the registry does not build.
    let error = Registry::builder()
        .descriptors([tool])
        .build()
        .expect_err("no state given");
    assert_eq!(error.problems.len(), 3, "{error}");

    let mut state = StateMap::new();
    state
        .insert(site::Site("the lab"))
        .insert(Arc::new(Visits::default()))
        .insert(vec!["ada", "grace"]);
    let registry = Registry::builder()
        .descriptors([tool])
        .state(state)
        .build()
        .expect("every state is there");
    let result = registry.call(&portos_words::principal::ui(false), call()).await.expect("allowed");
    assert_eq!(
        result.result.expect("completed")["summary"],
        "Visit 1 of the lab (ada, grace), v1."
    );
}
