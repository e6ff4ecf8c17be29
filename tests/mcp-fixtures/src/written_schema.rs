//! The suite's JSON Schema 2020-12 fixture (SEP-1613, SEP-2106): a tool
//! whose input schema is written by hand as a 2020-12 document — `$defs`
//! with an anchor, a `$ref`, `allOf`/`anyOf`, `if`/`then`/`else` — and is
//! listed, and enforced, exactly as written.

use std::borrow::Cow;

use portos_core::schema::DRAFT_2020_12;
use portos_core::{AdapterError, Content, ToolContent, portos_tool};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, Serialize)]
pub struct Address {
    pub street: Option<String>,
    pub city: Option<String>,
}

/// A contact: a phone or an e-mail address, the one `contactMethod` names.
#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Contact {
    pub name: Option<String>,
    pub address: Option<Address>,
    pub contact_method: Option<String>,
    pub phone: Option<String>,
    pub email: Option<String>,
}

impl JsonSchema for Contact {
    fn schema_name() -> Cow<'static, str> {
        "Contact".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "$schema": DRAFT_2020_12,
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        })
    }
}

/// Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613): says how it would reach the contact.
#[portos_tool(
    name = "json_schema_2020_12_tool",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
    not_strict = "its conditionals (if/then/else) and its `$ref` are the point of the fixture",
)]
pub async fn json_schema_2020_12_tool(args: Contact) -> Result<ToolContent, AdapterError> {
    // The schema has already required the phone or the e-mail address
    // `contactMethod` names, so the first one present is the one to use.
    let by_phone = args.contact_method.as_deref() == Some("phone");
    let how = match (args.phone, args.email) {
        (Some(phone), _) if by_phone => format!("phone {phone}"),
        (_, Some(email)) => format!("e-mail {email}"),
        (Some(phone), None) => format!("phone {phone}"),
        (None, None) => "no contact given".to_owned(),
    };
    Ok(ToolContent::new(vec![Content::text(format!(
        "Reaching {} by {how}",
        args.name.as_deref().unwrap_or("them")
    ))]))
}
