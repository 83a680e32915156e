//! Shared by the git-based `edit` actions (impact, pr): the change set of a mode;
//! the changed definitions and the blast radius are `tsa_analysis::change_impact`.

pub use tsa_analysis::change_impact::*;
use tsa_analysis::git::DiffMode;

use crate::ToolError;

/// The `mode` parameter: diff | staged | branch | pr (pr needs the network).
pub fn parse_mode(
    mode: Option<&str>,
    pr_url: Option<&str>,
    default: &str,
) -> Result<DiffMode, ToolError> {
    if let Some(url) = pr_url.map(str::trim).filter(|u| !u.is_empty()) {
        return Err(pr_unsupported(url));
    }
    match mode
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .unwrap_or(default)
    {
        "diff" | "unstaged" => Ok(DiffMode::Unstaged),
        "staged" | "cached" => Ok(DiffMode::Staged),
        "branch" => Ok(DiffMode::Branch),
        "pr" => Err(pr_unsupported("")),
        other => Err(ToolError::Validation(format!(
            "mode must be diff|staged|branch|pr, got '{other}'"
        ))),
    }
}

fn pr_unsupported(url: &str) -> ToolError {
    let what = if url.is_empty() {
        "mode=pr".to_owned()
    } else {
        format!("pr_url '{url}'")
    };
    ToolError::Validation(format!(
        "{what} is not supported offline: reading a pull request needs GitHub's gh CLI and the network, which this server does not use. Check out the PR branch and use mode=branch (HEAD vs its merge base with main/master) instead"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pr_urls_and_unknown_modes_are_refused() {
        let e = parse_mode(None, Some("https://github.com/o/r/pull/3"), "diff").unwrap_err();
        assert!(e.to_string().contains("not supported offline"));
        assert!(parse_mode(Some("pr"), None, "diff").is_err());
        assert!(
            parse_mode(Some("x"), None, "diff")
                .unwrap_err()
                .to_string()
                .starts_with("mode must be")
        );
        assert_eq!(parse_mode(None, None, "branch").unwrap(), DiffMode::Branch);
    }
}
