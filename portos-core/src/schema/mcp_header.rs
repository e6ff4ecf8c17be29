//! SEP-2243's `x-mcp-header`: a top-level input property an MCP client
//! also sends as the `Mcp-Param-{name}` header of a 2026-07-28 request, so
//! that what sits between client and server (a gateway, a load balancer)
//! can route on it without reading the body. Declared on the input type's
//! field (`#[schemars(extend("x-mcp-header" = "Region"))]`); the server
//! checks that the header says what the body says.

use serde_json::Value;

/// One property mirrored in a header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderParam {
    /// The input property.
    pub property: String,
    /// The header's name after `Mcp-Param-`, as declared.
    pub header: String,
}

/// The mirrored properties of a (projected) input schema, or why its
/// declarations break the rules: a name that is a header token (no space,
/// no `:`), on a string, number, integer or boolean property, each name
/// once whatever its case.
pub fn header_params(schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(Vec::new());
    };
    let mut params: Vec<HeaderParam> = Vec::new();
    for (property, subschema) in properties {
        let Some(declared) = subschema.get("x-mcp-header") else {
            continue;
        };
        let header = declared
            .as_str()
            .filter(|header| is_token(header))
            .ok_or_else(|| {
                format!(
                    "the `x-mcp-header` of `{property}` is {declared}: it must be a header name (letters, digits and !#$%&'*+-.^_`|~, no space or `:`)"
                )
            })?;
        if !is_primitive(subschema) {
            return Err(format!(
                "`{property}` declares `x-mcp-header` but is not a string, number, integer or boolean"
            ));
        }
        if let Some(other) = params
            .iter()
            .find(|param| param.header.eq_ignore_ascii_case(header))
        {
            return Err(format!(
                "`{property}` and `{}` both declare the `x-mcp-header` {header}",
                other.property
            ));
        }
        params.push(HeaderParam {
            property: property.clone(),
            header: header.to_owned(),
        });
    }
    Ok(params)
}

/// An HTTP header name's characters (RFC 9110 `token`).
fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// A string, number, integer or boolean (optionally nullable).
fn is_primitive(schema: &Value) -> bool {
    let primitive = |name: &str| matches!(name, "string" | "number" | "integer" | "boolean");
    match schema.get("type") {
        Some(Value::String(name)) => primitive(name),
        Some(Value::Array(names)) => {
            let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
            names.iter().filter(|name| **name != "null").count() == 1
                && names.iter().all(|name| *name == "null" || primitive(name))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn declarations_follow_the_rules() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": ["integer", "null"], "x-mcp-header": "Count"},
            "plain": {"type": "string"},
        }});
        assert_eq!(
            header_params(&schema),
            Ok(vec![
                HeaderParam {
                    property: "region".to_owned(),
                    header: "Region".to_owned()
                },
                HeaderParam {
                    property: "count".to_owned(),
                    header: "Count".to_owned()
                },
            ])
        );
        for bad in [
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "Has Space"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "a:b"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": 3}}}),
            json!({"properties": {"a": {"type": "object", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "Same"},
                                  "b": {"type": "string", "x-mcp-header": "same"}}}),
        ] {
            assert!(header_params(&bad).is_err(), "{bad}");
        }
    }
}
