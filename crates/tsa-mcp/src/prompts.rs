//! MCP prompts and completions. The prompts are tsa's built-in skills (the
//! SKILL.md procedures `tsa skills install` writes): one prompt per skill, with an
//! optional `target` argument (the symbol, file or branch to apply it to), which
//! completes to the names defined in the project's index.

use std::path::Path;

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptResult, JsonObject, Prompt,
    PromptArgument, PromptMessage, Reference, Role,
};
use tsa_tools::skills;

/// The one argument every skill prompt takes.
const TARGET: &str = "target";

/// The skill prompts, in the order the skills are shipped.
pub fn list() -> Vec<Prompt> {
    skills::BUILTIN
        .iter()
        .filter_map(|(_, text)| skills::parse(text))
        .map(|s| {
            Prompt::new(
                s.name.clone(),
                Some(format!(
                    "{} (tools: {}; {} steps)",
                    s.description,
                    s.tools.join(", "),
                    s.steps
                )),
                Some(vec![
                    PromptArgument::new(TARGET)
                        .with_description(
                            "What to apply the procedure to: a function, class or method name, a file, or a branch",
                        )
                        .with_required(false),
                ]),
            )
            .with_title(title(&s.name))
        })
        .collect()
}

/// `find-dead-code` -> `Find dead code`.
fn title(name: &str) -> String {
    let words = name.replace('-', " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => words,
    }
}

/// The procedure of a skill without its front matter.
fn procedure(text: &str) -> &str {
    text.strip_prefix("---\n")
        .and_then(|rest| rest.find("\n---\n").map(|end| &rest[end + 5..]))
        .unwrap_or(text)
        .trim()
}

/// `prompts/get`: the skill's procedure as one user message, aimed at `target`
/// when given. Unknown prompts and arguments are invalid params.
pub fn get(name: &str, arguments: Option<&JsonObject>) -> Result<GetPromptResult, McpError> {
    let Some((_, text)) = skills::BUILTIN.iter().find(|(n, _)| *n == name) else {
        let names: Vec<&str> = skills::BUILTIN.iter().map(|(n, _)| *n).collect();
        return Err(McpError::invalid_params(
            format!("unknown prompt '{name}'; prompts: {}", names.join(", ")),
            None,
        ));
    };
    let mut target = None;
    for (key, value) in arguments.into_iter().flatten() {
        if key != TARGET {
            return Err(McpError::invalid_params(
                format!("unknown argument '{key}' for prompt '{name}'; arguments: {TARGET}"),
                None,
            ));
        }
        match value.as_str() {
            Some(s) if !s.trim().is_empty() => target = Some(s.trim().to_owned()),
            Some(_) => {}
            None => {
                return Err(McpError::invalid_params(
                    format!("argument '{TARGET}' must be a string"),
                    None,
                ));
            }
        }
    }
    let mut body = format!(
        "Follow this procedure with the tsa tools.\n\n{}",
        procedure(text)
    );
    if let Some(t) = &target {
        body.push_str(&format!("\n\nApply it to: {t}"));
    }
    let description = skills::parse(text).map(|s| s.description);
    let mut result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, body)]);
    result.description = description;
    Ok(result)
}

/// `completion/complete`: for a skill prompt's `target`, the names defined in the
/// project's index that start with the typed value (case-insensitive), at most
/// 100, with the exact total. Nothing else has completions: other references get an
/// empty list. Never builds the index (no index: no suggestions).
pub fn complete(
    root: Option<&Path>,
    request: &CompleteRequestParams,
) -> Result<CompleteResult, McpError> {
    let is_skill_target = match &request.r#ref {
        Reference::Prompt(p) => skills::BUILTIN.iter().any(|(n, _)| *n == p.name),
        _ => false,
    } && request.argument.name == TARGET;
    if !is_skill_target {
        return Ok(CompleteResult::new(CompletionInfo::default()));
    }
    let index = match root.map(tsa_index::Index::open) {
        Some(Ok(Some(index))) => index,
        _ => return Ok(CompleteResult::new(CompletionInfo::default())),
    };
    let (values, total) = index
        .names_with_prefix(&request.argument.value, CompletionInfo::MAX_VALUES)
        .map_err(|e| McpError::internal_error(format!("index read failed: {e}"), None))?;
    let has_more = (values.len() as u64) < total;
    let info = CompletionInfo::with_pagination(
        values,
        Some(u32::try_from(total).unwrap_or(u32::MAX)),
        has_more,
    )
    .map_err(|e| McpError::internal_error(e, None))?;
    Ok(CompleteResult::new(info))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_skill_is_a_prompt_whose_text_is_the_procedure() {
        let prompts = list();
        assert_eq!(prompts.len(), skills::BUILTIN.len());
        for p in &prompts {
            assert!(p.description.as_deref().is_some_and(|d| !d.is_empty()));
            let got = get(&p.name, None).unwrap();
            let text = serde_json::to_value(&got.messages[0].content).unwrap();
            let text = text["text"].as_str().unwrap();
            assert!(!text.contains("\n---\n"), "front matter stripped");
            assert!(text.contains("1. "), "numbered steps");
        }
        assert_eq!(title("find-dead-code"), "Find dead code");
    }

    #[test]
    fn get_aims_at_the_target_and_refuses_unknown_names_and_arguments() {
        let mut args = JsonObject::new();
        args.insert(TARGET.into(), "Engine.run".into());
        let got = get("safe-edit", Some(&args)).unwrap();
        let text = serde_json::to_value(&got.messages[0].content).unwrap();
        assert!(
            text["text"]
                .as_str()
                .unwrap()
                .ends_with("Apply it to: Engine.run")
        );
        assert!(get("no-such-skill", None).is_err());
        args.insert("other".into(), "x".into());
        assert!(get("safe-edit", Some(&args)).is_err());
    }
}
