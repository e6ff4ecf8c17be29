//! The suite's fixture prompts.

use portos_core::primitives::CompletionRequest;
use portos_core::{
    AdapterError, Content, PromptMessage, ResourceContents, ToolContext, portos_prompt,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::media::RED_PIXEL_PNG;

/// A prompt without arguments.
#[portos_prompt(title = "Simple prompt", scopes = ["client"], capabilities = ["readFixtures"])]
pub async fn test_simple_prompt() -> Result<Vec<PromptMessage>, AdapterError> {
    Ok(vec![PromptMessage::user(Content::text(
        "This is a simple prompt for testing.",
    ))])
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TwoArgs {
    /// First test argument
    #[schemars(length(max = 1000))]
    pub arg1: String,
    /// Second test argument
    #[schemars(length(max = 1000))]
    pub arg2: String,
}

/// A prompt with two required arguments.
#[portos_prompt(scopes = ["client"], capabilities = ["readFixtures"], complete(arg1 = suggest_words))]
pub async fn test_prompt_with_arguments(args: TwoArgs) -> Result<Vec<PromptMessage>, AdapterError> {
    Ok(vec![PromptMessage::user(Content::text(format!(
        "Prompt with arguments: arg1='{}', arg2='{}'",
        args.arg1, args.arg2
    )))])
}

/// Words that start with what was typed.
async fn suggest_words(_ctx: &ToolContext, request: CompletionRequest) -> Vec<String> {
    ["paris", "park", "test", "testing"]
        .into_iter()
        .filter(|word| word.starts_with(&request.value))
        .map(str::to_owned)
        .collect()
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EmbedArgs {
    /// URI of the resource to embed
    #[schemars(length(min = 1, max = 2000))]
    pub resource_uri: String,
}

/// A prompt that embeds a resource.
#[portos_prompt(scopes = ["client"], capabilities = ["readFixtures"])]
pub async fn test_prompt_with_embedded_resource(
    args: EmbedArgs,
) -> Result<Vec<PromptMessage>, AdapterError> {
    Ok(vec![
        PromptMessage::user(Content::resource(
            ResourceContents::text(args.resource_uri, "Embedded resource content for testing.")
                .with_mime_type("text/plain"),
        )),
        PromptMessage::user(Content::text("Please process the embedded resource above.")),
    ])
}

/// A prompt that shows an image.
#[portos_prompt(scopes = ["client"], capabilities = ["readFixtures"])]
pub async fn test_prompt_with_image() -> Result<Vec<PromptMessage>, AdapterError> {
    Ok(vec![
        PromptMessage::user(Content::image(RED_PIXEL_PNG, "image/png")),
        PromptMessage::user(Content::text("Please analyze the image above.")),
    ])
}
