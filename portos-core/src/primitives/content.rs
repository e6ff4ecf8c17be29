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
    Text {
        text: String,
    },
    /// `data` is the image's bytes in standard base64.
    Image {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// `data` is the audio's bytes in standard base64.
    Audio {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A resource's contents, carried whole.
    Resource {
        resource: ResourceContents,
    },
    /// A pointer to a resource the client may read (or not).
    ResourceLink {
        uri: String,
        name: String,
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
}

impl Content {
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
    pub content: Vec<Content>,
}

impl ToolContent {
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
    pub uri: String,
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(flatten)]
    pub body: ResourceBody,
}

impl ResourceContents {
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> ResourceContents {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Text(text.into()),
        }
    }

    pub fn blob(uri: impl Into<String>, bytes: &[u8]) -> ResourceContents {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::blob(bytes),
        }
    }

    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> ResourceContents {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// What a resource holds: text, or bytes written as standard base64.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ResourceBody {
    #[serde(rename = "text")]
    Text(String),
    /// Standard base64 of the bytes.
    #[serde(rename = "blob")]
    Blob(String),
}

impl ResourceBody {
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
    User,
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
