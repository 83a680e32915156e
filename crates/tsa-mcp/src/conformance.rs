//! The fixtures the official MCP conformance suite (`@modelcontextprotocol/conformance`)
//! calls by name: tools `test_*`, resources `test://...`, prompts `test_*_prompt*`.
//! They are served only by `tsa mcp --http ADDR --conformance-fixtures` (a hidden
//! flag `scripts/mcp-conformance.sh` passes), beside tsa's own tools, resources and
//! prompts and through the very same handler, session and transport, so the suite
//! exercises every protocol path this server has: each content type, progress and
//! log notifications during a call, a sampling request back to the client, resource
//! templates and subscriptions, prompts with arguments and embedded content,
//! completion. A normal server never lists them: an agent sees tsa's tools only.

use std::time::Duration;

use rmcp::ErrorData as McpError;
use rmcp::RoleServer;
use rmcp::model::{
    CallToolResult, CompleteRequestParams, CompleteResult, CompletionInfo, ContentBlock,
    GetPromptResult, JsonObject, ProgressNotificationParam, ProgressToken, Prompt, PromptArgument,
    PromptMessage, ReadResourceResult, Reference, Resource, ResourceContents, ResourceTemplate,
    Role, Tool,
};
use rmcp::service::{Peer, RequestContext};
use serde_json::{Value, json};

use crate::TsaServer;

/// A 1x1 red PNG (8-bit RGB; CRCs and zlib stream valid).
const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
/// One millisecond of silence: a RIFF/WAVE file, 8 kHz mono 16-bit PCM, 8 frames.
const WAV: &str =
    "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";
/// The resource a client may subscribe to.
pub const WATCHED: &str = "test://watched-resource";
const TEMPLATE_PREFIX: &str = "test://template/";
const TEMPLATE_SUFFIX: &str = "/data";
/// What `test_prompt_with_arguments`'s `arg1` completes from.
const ARG1_VALUES: [&str; 5] = ["paris", "park", "party", "test", "testing"];

fn schema(value: Value) -> std::sync::Arc<JsonObject> {
    match value {
        Value::Object(map) => std::sync::Arc::new(map),
        _ => std::sync::Arc::new(JsonObject::new()),
    }
}

fn no_arguments() -> std::sync::Arc<JsonObject> {
    schema(json!({"type": "object", "properties": {}}))
}

/// The fixture tools, listed after tsa's own.
pub fn tools() -> Vec<Tool> {
    let plain = |name: &'static str, description: &'static str| {
        Tool::new(name, description, no_arguments())
    };
    vec![
        plain("test_simple_text", "Conformance fixture: one text block."),
        plain(
            "test_image_content",
            "Conformance fixture: one PNG image block.",
        ),
        plain(
            "test_audio_content",
            "Conformance fixture: one WAV audio block.",
        ),
        plain(
            "test_embedded_resource",
            "Conformance fixture: one embedded text resource.",
        ),
        plain(
            "test_multiple_content_types",
            "Conformance fixture: text, image and embedded resource blocks.",
        ),
        plain(
            "test_tool_with_logging",
            "Conformance fixture: three info log notifications 50 ms apart during the call.",
        ),
        plain(
            "test_tool_with_progress",
            "Conformance fixture: progress 0, 50, 100 of 100, 50 ms apart, when the call has a progress token.",
        ),
        plain(
            "test_error_handling",
            "Conformance fixture: always a tool error (isError true).",
        ),
        Tool::new(
            "test_sampling",
            "Conformance fixture: asks the client's LLM (sampling/createMessage) and returns its answer.",
            schema(json!({
                "type": "object",
                "properties": {"prompt": {"type": "string", "description": "The prompt to send to the LLM"}},
                "required": ["prompt"],
            })),
        ),
        Tool::new(
            "test_elicitation",
            "Conformance fixture: asks the user (elicitation/create) for a username and an email.",
            schema(json!({
                "type": "object",
                "properties": {"message": {"type": "string", "description": "The message to show the user"}},
                "required": ["message"],
            })),
        ),
        plain(
            "test_elicitation_sep1034_defaults",
            "Conformance fixture: an elicitation whose fields all have defaults (SEP-1034).",
        ),
        plain(
            "test_elicitation_sep1330_enums",
            "Conformance fixture: an elicitation with the five enum forms (SEP-1330).",
        ),
        Tool::new(
            "json_schema_2020_12_tool",
            "Conformance fixture: an input schema with JSON Schema 2020-12 keywords.",
            schema(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {
                    "address": {
                        "type": "object",
                        "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
                    },
                },
                "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
                "additionalProperties": false,
            })),
        ),
    ]
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s)])
}

fn embedded(uri: &str, mime: &str, body: &str) -> ContentBlock {
    ContentBlock::resource(ResourceContents::text(body, uri).with_mime_type(mime))
}

/// Answers a fixture tool call; `None` when `name` is not a fixture (tsa answers it).
pub async fn call(
    server: &TsaServer,
    name: &str,
    arguments: &Value,
    context: &RequestContext<RoleServer>,
    token: Option<ProgressToken>,
) -> Option<Result<CallToolResult, McpError>> {
    let peer = &context.peer;
    let pause = || tokio::time::sleep(Duration::from_millis(50));
    Some(Ok(match name {
        "test_simple_text" => text("This is a simple text response for testing."),
        "test_image_content" => {
            CallToolResult::success(vec![ContentBlock::image(PNG, "image/png")])
        }
        "test_audio_content" => {
            CallToolResult::success(vec![ContentBlock::audio(WAV, "audio/wav")])
        }
        "test_embedded_resource" => CallToolResult::success(vec![embedded(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.",
        )]),
        "test_multiple_content_types" => CallToolResult::success(vec![
            ContentBlock::text("Multiple content types test:"),
            ContentBlock::image(PNG, "image/png"),
            embedded(
                "test://mixed-content-resource",
                "application/json",
                r#"{"test":"data","value":123}"#,
            ),
        ]),
        "test_tool_with_logging" => {
            for (i, message) in [
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            ]
            .into_iter()
            .enumerate()
            {
                if i > 0 {
                    pause().await;
                }
                server.log(peer, "info", json!(message)).await;
            }
            text("Tool with logging executed successfully")
        }
        "test_tool_with_progress" => {
            for (i, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                if i > 0 {
                    pause().await;
                }
                if let Some(token) = &token {
                    let mut note = ProgressNotificationParam::new(token.clone(), done);
                    note.total = Some(100.0);
                    if let Err(e) = peer.notify_progress(note).await {
                        return Some(Err(McpError::internal_error(
                            format!("progress notification failed: {e}"),
                            None,
                        )));
                    }
                }
            }
            text("Tool with progress executed successfully")
        }
        "test_error_handling" => {
            let mut r = text("This tool intentionally returns an error for testing");
            r.is_error = Some(true);
            r
        }
        "test_sampling" => return Some(sample(peer, arguments).await),
        "test_elicitation" => {
            let Some(message) = arguments.get("message").and_then(Value::as_str) else {
                return Some(Err(McpError::invalid_params(
                    "test_elicitation needs a string argument 'message'",
                    None,
                )));
            };
            let asked = json!({
                "type": "object",
                "properties": {
                    "username": {"type": "string", "description": "User's response"},
                    "email": {"type": "string", "description": "User's email address"},
                },
                "required": ["username", "email"],
            });
            return Some(elicit(peer, message, asked, "User response").await);
        }
        "test_elicitation_sep1034_defaults" => {
            let asked = json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "default": "John Doe"},
                    "age": {"type": "integer", "default": 30},
                    "score": {"type": "number", "default": 95.5},
                    "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                    "verified": {"type": "boolean", "default": true},
                },
            });
            let message = "Please review your profile (every field has a default)";
            return Some(elicit(peer, message, asked, "Elicitation completed").await);
        }
        "test_elicitation_sep1330_enums" => {
            let titled = |pairs: &[(&str, &str)]| {
                pairs
                    .iter()
                    .map(|(value, title)| json!({"const": value, "title": title}))
                    .collect::<Vec<_>>()
            };
            let asked = json!({
                "type": "object",
                "properties": {
                    "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                    "titledSingle": {"type": "string", "oneOf": titled(&[
                        ("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option"),
                    ])},
                    "legacyEnum": {
                        "type": "string",
                        "enum": ["opt1", "opt2", "opt3"],
                        "enumNames": ["Option One", "Option Two", "Option Three"],
                    },
                    "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                    "titledMulti": {"type": "array", "items": {"anyOf": titled(&[
                        ("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice"),
                    ])}},
                },
            });
            let message = "Please pick from each list";
            return Some(elicit(peer, message, asked, "Elicitation completed").await);
        }
        "json_schema_2020_12_tool" => text(format!("Received: {arguments}")),
        _ => return None,
    }))
}

/// `test_sampling`: one `sampling/createMessage` to the client with the prompt.
#[allow(
    deprecated,
    reason = "sampling is part of the protocol versions this server speaks"
)]
async fn sample(peer: &Peer<RoleServer>, arguments: &Value) -> Result<CallToolResult, McpError> {
    let Some(prompt) = arguments.get("prompt").and_then(Value::as_str) else {
        return Err(McpError::invalid_params(
            "test_sampling needs a string argument 'prompt'",
            None,
        ));
    };
    declared(peer, "sampling", |c| c.sampling.is_some())?;
    let request = rmcp::model::CreateMessageRequestParams::new(
        vec![rmcp::model::SamplingMessage::user_text(prompt)],
        100,
    );
    let answer = peer
        .create_message(request)
        .await
        .map_err(|e| McpError::internal_error(format!("sampling failed: {e}"), None))?;
    let said: Vec<String> = answer
        .message
        .content
        .into_vec()
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect();
    Ok(text(format!("LLM response: {}", said.join(" "))))
}

/// One `elicitation/create` (form mode) with `schema`; the answer as text after `label`.
async fn elicit(
    peer: &Peer<RoleServer>,
    message: &str,
    schema: Value,
    label: &str,
) -> Result<CallToolResult, McpError> {
    declared(peer, "elicitation", |c| c.elicitation.is_some())?;
    let params: rmcp::model::ElicitRequestParams = serde_json::from_value(json!({
        "mode": "form",
        "message": message,
        "requestedSchema": schema,
    }))
    .map_err(|e| McpError::internal_error(format!("elicitation schema: {e}"), None))?;
    let answer = peer
        .create_elicitation(params)
        .await
        .map_err(|e| McpError::internal_error(format!("elicitation failed: {e}"), None))?;
    let action = serde_json::to_value(&answer.action).unwrap_or(Value::Null);
    let content = answer.content.unwrap_or(Value::Null);
    Ok(text(format!(
        "{label}: action={}, content={content}",
        action.as_str().unwrap_or("unknown")
    )))
}

/// An error unless the client declared the capability `name` (`has` reads it).
fn declared(
    peer: &Peer<RoleServer>,
    name: &str,
    has: impl Fn(&rmcp::model::ClientCapabilities) -> bool,
) -> Result<(), McpError> {
    if peer.peer_info().is_some_and(|info| has(&info.capabilities)) {
        return Ok(());
    }
    Err(McpError::invalid_request(
        format!("the client did not declare the {name} capability"),
        None,
    ))
}

/// The fixture resources, listed after tsa's subscriptions.
pub fn resources() -> Vec<Resource> {
    vec![
        Resource::new("test://static-text", "static-text")
            .with_description("Conformance fixture: a static text resource")
            .with_mime_type("text/plain"),
        Resource::new("test://static-binary", "static-binary")
            .with_description("Conformance fixture: a static PNG")
            .with_mime_type("image/png"),
        Resource::new(WATCHED, "watched-resource")
            .with_description("Conformance fixture: a resource clients may subscribe to")
            .with_mime_type("text/plain"),
    ]
}

/// The fixture resource templates.
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new("test://template/{id}/data", "template-data")
            .with_description("Conformance fixture: JSON data for an id")
            .with_mime_type("application/json"),
    ]
}

/// Whether `uri` is a fixture resource (read, subscribe and unsubscribe answer it).
pub fn is_resource(uri: &str) -> bool {
    read(uri).is_some()
}

/// Reads a fixture resource; `None` when `uri` is not one.
pub fn read(uri: &str) -> Option<ReadResourceResult> {
    let contents = match uri {
        "test://static-text" => {
            ResourceContents::text("This is the content of the static text resource.", uri)
                .with_mime_type("text/plain")
        }
        "test://static-binary" => ResourceContents::blob(PNG, uri).with_mime_type("image/png"),
        WATCHED => {
            ResourceContents::text("The watched resource.", uri).with_mime_type("text/plain")
        }
        _ => {
            let id = uri
                .strip_prefix(TEMPLATE_PREFIX)?
                .strip_suffix(TEMPLATE_SUFFIX)
                .filter(|id| !id.is_empty() && !id.contains('/'))?;
            let body =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
            ResourceContents::text(body.to_string(), uri).with_mime_type("application/json")
        }
    };
    Some(ReadResourceResult::new(vec![contents]))
}

/// The fixture prompts, listed after tsa's skills.
pub fn prompts() -> Vec<Prompt> {
    let arg = |name: &str, description: &str| {
        PromptArgument::new(name)
            .with_description(description)
            .with_required(true)
    };
    vec![
        Prompt::new(
            "test_simple_prompt",
            Some("Conformance fixture: one text message"),
            None,
        ),
        Prompt::new(
            "test_prompt_with_arguments",
            Some("Conformance fixture: both arguments in one text message"),
            Some(vec![
                arg("arg1", "First test argument"),
                arg("arg2", "Second test argument"),
            ]),
        ),
        Prompt::new(
            "test_prompt_with_embedded_resource",
            Some("Conformance fixture: an embedded resource, then a text message"),
            Some(vec![arg("resourceUri", "URI of the resource to embed")]),
        ),
        Prompt::new(
            "test_prompt_with_image",
            Some("Conformance fixture: an image, then a text message"),
            None,
        ),
    ]
}

fn argument<'a>(args: Option<&'a JsonObject>, name: &str) -> Result<&'a str, McpError> {
    args.and_then(|a| a.get(name))
        .and_then(Value::as_str)
        .ok_or_else(|| McpError::invalid_params(format!("missing string argument '{name}'"), None))
}

/// Answers a fixture prompt; `None` when `name` is not one.
pub fn get_prompt(
    name: &str,
    args: Option<&JsonObject>,
) -> Option<Result<GetPromptResult, McpError>> {
    let messages = match name {
        "test_simple_prompt" => Ok(vec![PromptMessage::new_text(
            Role::User,
            "This is a simple prompt for testing.",
        )]),
        "test_prompt_with_arguments" => argument(args, "arg1").and_then(|a1| {
            argument(args, "arg2").map(|a2| {
                vec![PromptMessage::new_text(
                    Role::User,
                    format!("Prompt with arguments: arg1='{a1}', arg2='{a2}'"),
                )]
            })
        }),
        "test_prompt_with_embedded_resource" => argument(args, "resourceUri").map(|uri| {
            vec![
                PromptMessage::new(
                    Role::User,
                    embedded(uri, "text/plain", "Embedded resource content for testing."),
                ),
                PromptMessage::new_text(Role::User, "Please process the embedded resource above."),
            ]
        }),
        "test_prompt_with_image" => Ok(vec![
            PromptMessage::new(Role::User, ContentBlock::image(PNG, "image/png")),
            PromptMessage::new_text(Role::User, "Please analyze the image above."),
        ]),
        _ => return None,
    };
    Some(messages.map(GetPromptResult::new))
}

/// Completes `test_prompt_with_arguments`'s `arg1`; `None` for anything else.
pub fn complete(request: &CompleteRequestParams) -> Option<CompleteResult> {
    let Reference::Prompt(p) = &request.r#ref else {
        return None;
    };
    if p.name != "test_prompt_with_arguments" {
        return None;
    }
    let typed = request.argument.value.to_lowercase();
    let values: Vec<String> = if request.argument.name == "arg1" {
        ARG1_VALUES
            .iter()
            .filter(|v| v.starts_with(&typed))
            .map(|v| (*v).to_owned())
            .collect()
    } else {
        Vec::new()
    };
    let mut info = CompletionInfo::default();
    info.total = Some(values.len() as u32);
    info.has_more = Some(false);
    info.values = values;
    Some(CompleteResult::new(info))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_reads_substitute_the_id_and_nothing_else_matches() {
        let r = read("test://template/123/data").expect("template uri");
        let body = serde_json::to_value(&r).unwrap_or_default();
        assert!(body.to_string().contains("Data for ID: 123"), "{body}");
        assert!(read("test://template//data").is_none());
        assert!(read("test://template/1/2/data").is_none());
        assert!(read("tsa://hyphae/x").is_none());
        assert!(is_resource(WATCHED));
    }

    #[test]
    fn fixture_media_start_with_their_magic_numbers() {
        // base64 of "\x89PNG\r\n\x1a\n" and of "RIFF" + size + "WAVE".
        assert!(PNG.starts_with("iVBORw0KGgo"));
        assert!(WAV.starts_with("UklGR") && WAV[8..16].starts_with("AABXQVZF"));
    }

    #[test]
    fn prompts_need_their_arguments() {
        assert!(get_prompt("test_prompt_with_arguments", None).is_some_and(|r| r.is_err()));
        assert!(get_prompt("find-dead-code", None).is_none());
    }
}
