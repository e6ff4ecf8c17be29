//! Resources, resource templates, prompts and completions declared with
//! `#[portos_resource]` / `#[portos_prompt]` and governed like tools
//! (portos_core::primitives): who sees what, what a read or a prompt
//! answers, how bad input is refused, and what the registry build refuses.

use portos_core::primitives::{
    CompletionRef, CompletionRequest, PrimitiveError, PromptDescriptor, ResourceDescriptor,
};
use portos_core::{
    AdapterError, Authority, Capabilities, Capability, Content, PromptMessage, Registry,
    ResourceBody, ResourceContents, Role, Scope, ToolContext, portos_prompt, portos_resource,
};
use portos_tests as _;
portos_core::use_vocabulary!(portos_words);
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// Today's note.
#[portos_resource(
    uri = "notes://today",
    name = "today",
    title = "Today's note",
    mime_type = "text/markdown",
    scopes = ["agent", "ui"],
    capabilities = ["readPortos"],
)]
async fn today(ctx: &ToolContext) -> Result<String, AdapterError> {
    Ok(format!("# Today\nread by {}", ctx.authority().scope))
}

/// A small picture, for everyone in the agent scope.
#[portos_resource(uri = "notes://logo", mime_type = "image/png", scopes = ["agent"])]
async fn logo() -> Result<ResourceBody, AdapterError> {
    Ok(ResourceBody::blob(&[0x89, b'P', b'N', b'G']))
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DayVars {
    /// The day, as YYYY-MM-DD.
    #[schemars(regex(pattern = r"^\d{4}-\d{2}-\d{2}$"))]
    day: String,
}

/// The note of one day.
#[portos_resource(
    uri_template = "notes://day/{day}",
    name = "day",
    mime_type = "text/markdown",
    scopes = ["agent"],
    capabilities = ["readPortos"],
    complete(day = recent_days),
)]
async fn day(vars: DayVars) -> Result<String, AdapterError> {
    if vars.day == "1999-12-31" {
        return Err(AdapterError::new("that notebook was lost"));
    }
    Ok(format!("# {}", vars.day))
}

async fn recent_days(_ctx: &ToolContext, request: CompletionRequest) -> Vec<String> {
    (1..=150)
        .map(|n| format!("2026-01-{n:03}"))
        .filter(|day| day.starts_with(&request.value))
        .collect()
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SummaryArgs {
    /// What to summarize.
    #[schemars(length(min = 1, max = 200))]
    topic: String,
    /// How: `short` or `long`.
    #[serde(default)]
    style: Option<String>,
}

/// Summarize a topic.
#[portos_prompt(
    name = "summarize",
    title = "Summarize",
    scopes = ["agent"],
    capabilities = ["readPortos"],
    complete(style = styles),
)]
async fn summarize(args: SummaryArgs) -> Result<Vec<PromptMessage>, AdapterError> {
    let style = args.style.unwrap_or_else(|| "short".to_owned());
    Ok(vec![
        PromptMessage::user(Content::text(format!(
            "Summarize {} ({style}).",
            args.topic
        ))),
        PromptMessage::assistant(Content::link("notes://today", "today")),
    ])
}

async fn styles(_ctx: &ToolContext, request: CompletionRequest) -> Vec<String> {
    // The other argument is there to narrow the suggestions.
    let mut styles = vec!["short".to_owned(), "long".to_owned()];
    if request
        .context
        .get("topic")
        .is_some_and(|topic| topic == "poems")
    {
        styles.push("haiku".to_owned());
    }
    styles.retain(|style| style.starts_with(&request.value));
    styles
}

/// Needs the Mind's own grant: never shown to the agent.
#[portos_prompt(scopes = ["mind"], capabilities = ["manageMind"])]
async fn reflect() -> Result<Vec<PromptMessage>, AdapterError> {
    Ok(vec![PromptMessage::user(Content::text("Reflect."))])
}

fn registry() -> std::sync::Arc<Registry> {
    Registry::builder()
        .build()
        .expect("the declarations are valid")
}

fn agent(granted: &[&str]) -> Authority {
    let mut grants = Capabilities::NONE;
    for name in granted {
        grants = grants.with(Capability::from_name(name).expect("a PortOS capability"));
    }
    Authority::of(Scope::from_name("agent").expect("agent")).granted(grants)
}

fn uris(registry: &Registry, authority: &Authority) -> Vec<&'static str> {
    let primitives = registry.primitives();
    primitives
        .resources(authority)
        .chain(primitives.templates(authority))
        .map(|r| r.descriptor.uri)
        .collect()
}

#[test]
fn a_principal_sees_only_what_its_grants_allow() {
    let registry = registry();
    assert_eq!(
        uris(&registry, &agent(&["readPortos"])),
        ["notes://logo", "notes://today", "notes://day/{day}"]
    );
    assert_eq!(uris(&registry, &agent(&[])), ["notes://logo"]);
    let prompts: Vec<_> = registry
        .primitives()
        .prompts(&agent(&["readPortos", "writePortos"]))
        .map(|p| p.descriptor.name)
        .collect();
    assert_eq!(prompts, ["summarize"]);
    // A remote client's token narrows the grants, never widens them.
    let narrowed = agent(&["readPortos"]).limited_to(Capabilities::NONE);
    assert_eq!(uris(&registry, &narrowed), ["notes://logo"]);
}

#[test]
fn listings_carry_the_protocols_fields() {
    let registry = registry();
    let authority = agent(&["readPortos"]);
    let primitives = registry.primitives();
    let today = primitives
        .resources(&authority)
        .find(|r| r.descriptor.uri == "notes://today")
        .expect("listed");
    assert_eq!(
        today.listing(),
        json!({"uri": "notes://today", "name": "today", "title": "Today's note",
               "description": "Today's note.", "mimeType": "text/markdown"})
    );
    let template = primitives.templates(&authority).next().expect("listed");
    assert_eq!(template.listing()["uriTemplate"], "notes://day/{day}");
    let prompt = primitives.prompts(&authority).next().expect("listed");
    assert_eq!(
        prompt.listing(),
        json!({"name": "summarize", "title": "Summarize", "description": "Summarize a topic.",
        "arguments": [
            {"name": "topic", "description": "What to summarize.", "required": true},
            {"name": "style", "description": "How: `short` or `long`.", "required": false},
        ]})
    );
}

#[tokio::test]
async fn reads_answer_their_uri_and_mime_type() {
    let registry = registry();
    let authority = agent(&["readPortos"]);
    let primitives = registry.primitives();
    let read = primitives
        .read(&authority, "notes://today", "r1")
        .await
        .expect("readable");
    assert_eq!(
        read,
        [
            ResourceContents::text("notes://today", "# Today\nread by agent")
                .with_mime_type("text/markdown")
        ]
    );
    let blob = primitives
        .read(&authority, "notes://logo", "r2")
        .await
        .expect("readable");
    assert_eq!(
        serde_json::to_value(&blob).ok(),
        Some(json!([{"uri": "notes://logo", "mimeType": "image/png", "blob": "iVBORw=="}]))
    );
    let day = primitives
        .read(&authority, "notes://day/2026-01-02", "r3")
        .await
        .expect("a template matches");
    assert_eq!(
        day,
        [
            ResourceContents::text("notes://day/2026-01-02", "# 2026-01-02")
                .with_mime_type("text/markdown")
        ]
    );
}

#[tokio::test]
async fn what_cannot_be_read_is_refused_with_its_reason() {
    let registry = registry();
    let primitives = registry.primitives();
    let read = |authority: Authority, uri: &'static str| {
        let primitives = registry.primitives();
        async move { primitives.read(&authority, uri, "r").await }
    };
    // Unknown, and ungranted, look the same.
    assert!(matches!(
        read(agent(&["readPortos"]), "notes://nothing").await,
        Err(PrimitiveError::NotFound(_))
    ));
    assert!(matches!(
        read(agent(&[]), "notes://today").await,
        Err(PrimitiveError::NotFound(_))
    ));
    assert!(matches!(
        read(agent(&[]), "notes://day/2026-01-02").await,
        Err(PrimitiveError::NotFound(_))
    ));
    // A variable that breaks its schema, and an adapter that fails.
    assert!(matches!(
        read(agent(&["readPortos"]), "notes://day/tomorrow").await,
        Err(PrimitiveError::InvalidArguments(_))
    ));
    assert_eq!(
        primitives
            .read(&agent(&["readPortos"]), "notes://day/1999-12-31", "r")
            .await,
        Err(PrimitiveError::Failed("that notebook was lost".to_owned()))
    );
}

#[tokio::test]
async fn a_prompt_renders_its_arguments_and_refuses_bad_ones() {
    let registry = registry();
    let authority = agent(&["readPortos"]);
    let primitives = registry.primitives();
    let mut arguments = Map::new();
    arguments.insert("topic".to_owned(), json!("rust"));
    let rendered = primitives
        .get_prompt(&authority, "summarize", arguments, "p1")
        .await
        .expect("rendered");
    assert_eq!(rendered.messages.len(), 2);
    assert_eq!(rendered.messages[0].role, Role::User);
    assert_eq!(
        rendered.messages[0].content,
        Content::text("Summarize rust (short).")
    );
    assert_eq!(
        serde_json::to_value(&rendered.messages[1]).ok(),
        Some(
            json!({"role": "assistant", "content": {"type": "resource_link", "uri": "notes://today", "name": "today"}})
        )
    );
    for bad in [
        json!({}),
        json!({"topic": ""}),
        json!({"topic": "x", "tone": "dry"}),
        json!({"topic": 3}),
    ] {
        let arguments = bad.as_object().cloned().unwrap_or_default();
        assert!(
            matches!(
                primitives
                    .get_prompt(&authority, "summarize", arguments, "p")
                    .await,
                Err(PrimitiveError::InvalidArguments(_))
            ),
            "{bad}"
        );
    }
    assert!(matches!(
        primitives
            .get_prompt(&authority, "reflect", Map::new(), "p")
            .await,
        Err(PrimitiveError::NotFound(_))
    ));
}

#[tokio::test]
async fn completions_are_capped_and_see_the_other_arguments() {
    let registry = registry();
    let authority = agent(&["readPortos"]);
    let primitives = registry.primitives();
    let request = |argument: &str, value: &str| CompletionRequest {
        argument: argument.to_owned(),
        value: value.to_owned(),
        ..CompletionRequest::default()
    };
    let days = primitives
        .complete(
            &authority,
            &CompletionRef::Resource("notes://day/{day}".to_owned()),
            request("day", "2026-01-"),
            "c1",
        )
        .await
        .expect("completed");
    assert_eq!(
        (days.values.len(), days.total, days.has_more),
        (100, 150, true)
    );
    let mut poems = request("style", "");
    poems.context.insert("topic".to_owned(), "poems".to_owned());
    let styles = primitives
        .complete(
            &authority,
            &CompletionRef::Prompt("summarize".to_owned()),
            poems,
            "c2",
        )
        .await
        .expect("completed");
    assert_eq!(styles.values, ["short", "long", "haiku"]);
    // An argument without a completer has nothing to suggest; an unknown
    // one is refused; a prompt the caller cannot see is not found.
    let topic = primitives
        .complete(
            &authority,
            &CompletionRef::Prompt("summarize".to_owned()),
            request("topic", "r"),
            "c3",
        )
        .await
        .expect("completed");
    assert!(topic.values.is_empty());
    assert!(matches!(
        primitives
            .complete(
                &authority,
                &CompletionRef::Prompt("summarize".to_owned()),
                request("tone", ""),
                "c4"
            )
            .await,
        Err(PrimitiveError::InvalidArguments(_))
    ));
    assert!(matches!(
        primitives
            .complete(
                &agent(&[]),
                &CompletionRef::Prompt("summarize".to_owned()),
                request("style", ""),
                "c5"
            )
            .await,
        Err(PrimitiveError::NotFound(_))
    ));
}

// ---- what the build refuses --------------------------------------------------

fn no_input() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

fn id_input() -> Value {
    json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"], "additionalProperties": false})
}

fn never_bound<T>(
    _: Value,
) -> Result<portos_core::primitives::Bound<T>, portos_core::ArgumentError> {
    Err(portos_core::ArgumentError("not run".to_owned()))
}

const HERE: portos_core::SourceLocation = portos_core::SourceLocation {
    file: "registry_primitives.rs",
    line: 1,
    column: 1,
};

const fn resource(
    uri: &'static str,
    template: bool,
    input_schema: fn() -> Value,
) -> ResourceDescriptor {
    ResourceDescriptor {
        uri,
        template,
        name: "r",
        title: None,
        description: "A resource.",
        mime_type: None,
        scopes: &["agent"],
        capabilities: &[],
        input_schema,
        bind: never_bound,
        completions: &[],
        state: &[],
        location: HERE,
    }
}

static DUPLICATE_A: ResourceDescriptor = resource("x://same", false, no_input);
static DUPLICATE_B: ResourceDescriptor = resource("x://same", false, no_input);
static BAD_TEMPLATE: ResourceDescriptor = resource("x://{a}{b}", true, no_input);
static WRONG_VARIABLES: ResourceDescriptor = resource("x://item/{name}", true, id_input);
static FOREIGN_WORDS: ResourceDescriptor = ResourceDescriptor {
    scopes: &["librarian"],
    capabilities: &["shelveBooks"],
    ..resource("x://foreign", false, no_input)
};
static NO_SCOPE: PromptDescriptor = PromptDescriptor {
    name: "lonely",
    title: None,
    description: "A prompt nobody may get.",
    scopes: &[],
    capabilities: &[],
    input_schema: no_input,
    bind: never_bound,
    completions: &[],
    state: &[],
    location: HERE,
};

#[test]
fn every_problem_of_the_declarations_is_reported_in_one_build() {
    let error = Registry::builder()
        .descriptors([])
        .resources([
            &DUPLICATE_A,
            &DUPLICATE_B,
            &BAD_TEMPLATE,
            &WRONG_VARIABLES,
            &FOREIGN_WORDS,
        ])
        .prompts([&NO_SCOPE])
        .build()
        .expect_err("refused");
    let text = error.problems.join("\n");
    for expected in [
        "resource `x://same` (registry_primitives.rs:1:1) is already declared",
        "two variables need a literal between them",
        "names the variables [name] but its input has the fields [id]",
        "resource `x://foreign` (registry_primitives.rs:1:1) names unknown scope `librarian`",
        "requires unknown capability `shelveBooks`",
        "prompt `lonely` (registry_primitives.rs:1:1) has no scope",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert_eq!(error.problems.len(), 6, "{text}");
}
