//! The suite's fixture tools that answer content items: text, an image,
//! audio, an embedded resource, all of them, and a tool that fails.

use portos_core::{AdapterError, Content, ResourceContents, ToolContent, portos_tool};

use crate::media::{RED_PIXEL_PNG, silent_wav};

/// Answers one text item.
#[portos_tool(
    name = "test_simple_text",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn simple_text() -> Result<ToolContent, AdapterError> {
    Ok(ToolContent::new(vec![Content::text(
        "This is a simple text response for testing.",
    )]))
}

/// Answers a 1×1 red PNG.
#[portos_tool(
    name = "test_image_content",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn image_content() -> Result<ToolContent, AdapterError> {
    Ok(ToolContent::new(vec![Content::image(
        RED_PIXEL_PNG,
        "image/png",
    )]))
}

/// Answers a short silent WAV.
#[portos_tool(
    name = "test_audio_content",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn audio_content() -> Result<ToolContent, AdapterError> {
    Ok(ToolContent::new(vec![Content::audio(
        &silent_wav(8),
        "audio/wav",
    )]))
}

/// Answers a text resource, embedded.
#[portos_tool(
    name = "test_embedded_resource",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn embedded_resource() -> Result<ToolContent, AdapterError> {
    Ok(ToolContent::new(vec![Content::resource(
        ResourceContents::text(
            "test://embedded-resource",
            "This is an embedded resource content.",
        )
        .with_mime_type("text/plain"),
    )]))
}

/// Answers a text, an image and an embedded JSON resource.
#[portos_tool(
    name = "test_multiple_content_types",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn multiple_content_types() -> Result<ToolContent, AdapterError> {
    Ok(ToolContent::new(vec![
        Content::text("Multiple content types test:"),
        Content::image(RED_PIXEL_PNG, "image/png"),
        Content::resource(
            ResourceContents::text(
                "test://mixed-content-resource",
                r#"{"test":"data","value":123}"#,
            )
            .with_mime_type("application/json"),
        ),
    ]))
}

/// Always fails, as a tool (not the protocol) fails.
#[portos_tool(
    name = "test_error_handling",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn error_handling() -> Result<ToolContent, AdapterError> {
    Err(AdapterError::new(
        "This tool intentionally returns an error for testing",
    ))
}
