//! What MCP carries besides JSON: text, images, audio, resources embedded
//! whole and links to resources. A tool's result, a prompt's messages and a
//! resource's read are built from these, written in the protocol's own
//! shape (`type` tag, camelCase keys, binary data as standard base64).

use base64::Engine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One content item of a tool result or a prompt message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    // The doc comments added for the API docs stay out of the derived
    // JSON Schema (`description = ""`), which keeps the shape it had.
    /// `text`: plain text.
    #[schemars(description = "")]
    Text {
        /// The text itself.
        #[schemars(description = "")]
        text: String,
    },
    /// `data` is the image's bytes in standard base64.
    Image {
        /// The image's bytes, standard base64.
        #[schemars(description = "")]
        data: String,
        /// `mimeType`, e.g. `image/png`.
        #[schemars(description = "")]
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// `data` is the audio's bytes in standard base64.
    Audio {
        /// The audio's bytes, standard base64.
        #[schemars(description = "")]
        data: String,
        /// `mimeType`, e.g. `audio/wav`.
        #[schemars(description = "")]
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A resource's contents, carried whole.
    Resource {
        /// The embedded contents.
        #[schemars(description = "")]
        resource: ResourceContents,
    },
    /// A pointer to a resource the client may read (or not).
    ResourceLink {
        /// The resource's URI.
        #[schemars(description = "")]
        uri: String,
        /// The resource's name, for the client to show.
        #[schemars(description = "")]
        name: String,
        /// `mimeType`, when known.
        #[schemars(description = "")]
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// What the resource is, when said.
        #[schemars(description = "")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
}

impl Content {
    /// A text item.
    pub fn text(text: impl Into<String>) -> Content {
        Content::Text { text: text.into() }
    }

    /// An image from its bytes (`mime_type` such as `image/png`).
    pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> Content {
        Content::Image {
            data: encode(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// Audio from its bytes (`mime_type` such as `audio/wav`).
    pub fn audio(bytes: &[u8], mime_type: impl Into<String>) -> Content {
        Content::Audio {
            data: encode(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// A resource's contents, embedded.
    pub fn resource(contents: ResourceContents) -> Content {
        Content::Resource { resource: contents }
    }

    /// A link to the resource at `uri`, called `name`.
    pub fn link(uri: impl Into<String>, name: impl Into<String>) -> Content {
        Content::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            mime_type: None,
            description: None,
        }
    }
}

/// A tool output made of content items: MCP answers them as the call's
/// `content` (an image, audio, a resource…); over HTTP they are the
/// result's `content` field.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ToolContent {
    // The doc comments added for the API docs stay out of the derived
    // JSON Schema (`description = ""`), which keeps the shape it had.
    /// The items, in order.
    #[schemars(description = "")]
    pub content: Vec<Content>,
}

impl ToolContent {
    /// An output of `content`.
    pub fn new(content: Vec<Content>) -> ToolContent {
        ToolContent { content }
    }
}

impl From<Vec<Content>> for ToolContent {
    fn from(content: Vec<Content>) -> ToolContent {
        ToolContent { content }
    }
}

/// A resource's contents at one URI: text, or bytes (as base64 `blob`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceContents {
    // The doc comments added for the API docs stay out of the derived
    // JSON Schema (`description = ""`), which keeps the shape it had.
    /// The URI the contents are of.
    #[schemars(description = "")]
    pub uri: String,
    /// `mimeType`, when known.
    #[schemars(description = "")]
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text or the bytes, written as a `text` or a `blob` key beside `uri`.
    #[schemars(description = "")]
    #[serde(flatten)]
    pub body: ResourceBody,
}

impl ResourceContents {
    /// Text contents at `uri`, with no MIME type.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> ResourceContents {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Text(text.into()),
        }
    }

    /// The bytes at `uri` as a base64 `blob`, with no MIME type.
    pub fn blob(uri: impl Into<String>, bytes: &[u8]) -> ResourceContents {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::blob(bytes),
        }
    }

    /// The same contents, declared of type `mime_type`.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> ResourceContents {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// What a resource holds: text, or bytes written as standard base64.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ResourceBody {
    // The doc comments added for the API docs stay out of the derived
    // JSON Schema (`description = ""`), which keeps the shape it had.
    /// `text`: the contents as text.
    #[schemars(description = "")]
    #[serde(rename = "text")]
    Text(String),
    /// Standard base64 of the bytes.
    #[serde(rename = "blob")]
    Blob(String),
}

impl ResourceBody {
    /// A body of `bytes`, as standard base64.
    pub fn blob(bytes: &[u8]) -> ResourceBody {
        ResourceBody::Blob(encode(bytes))
    }
}

/// Standard base64 (with padding), as MCP writes binary data.
fn encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Who speaks a prompt message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    // Not doc comments: on a unit variant they would turn the derived JSON
    // Schema's `enum` into a `oneOf` of described constants.
    // `user`: the person's side of the conversation.
    #[allow(missing_docs)]
    User,
    // `assistant`: the model's side.
    #[allow(missing_docs)]
    Assistant,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn items_are_written_in_the_protocols_shape() {
        assert_eq!(
            serde_json::to_value(Content::image(b"\x89PNG", "image/png")).ok(),
            Some(json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"}))
        );
        let embedded = Content::resource(
            ResourceContents::text("test://x", "hi").with_mime_type("text/plain"),
        );
        assert_eq!(
            serde_json::to_value(&embedded).ok(),
            Some(
                json!({"type": "resource", "resource": {"uri": "test://x", "mimeType": "text/plain", "text": "hi"}})
            )
        );
        assert_eq!(
            serde_json::to_value(Content::link("test://y", "y")).ok(),
            Some(json!({"type": "resource_link", "uri": "test://y", "name": "y"}))
        );
        let blob = ResourceContents::blob("test://b", &[0, 1, 2]);
        assert_eq!(
            serde_json::to_value(&blob).ok(),
            Some(json!({"uri": "test://b", "blob": "AAEC"}))
        );
        // And read back as written.
        for item in [embedded, Content::audio(b"RIFF", "audio/wav")] {
            let text = serde_json::to_string(&item).unwrap_or_default();
            assert_eq!(serde_json::from_str::<Content>(&text).ok(), Some(item));
        }
    }
}
