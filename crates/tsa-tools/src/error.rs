//! Typed tool errors and their one mapping onto failure envelopes.

use tsa_envelope::{ErrorType, Failure};

/// Why a call failed. Each variant maps to one `error_type` and hint.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("{0}")]
    Validation(String),
    #[error("path '{0}' is outside project boundary")]
    Outside(String),
    /// A project root that is a system folder or the home folder (or above it).
    #[error("refusing project root '{0}': {1} cannot be a project root")]
    SystemRoot(String, String),
    #[error("File not found: {0}")]
    NotFound(String),
    #[error("unsupported language for '{0}'")]
    Language(String),
    #[error("'{0}' is a binary file")]
    Binary(String),
    #[error("'{0}' is not valid UTF-8")]
    Encoding(String),
    #[error("no project root is set")]
    ProjectNotSet,
    #[error("no supported source files (Python, Rust) under the project root")]
    EmptyProject,
    #[error(transparent)]
    Index(#[from] tsa_index::IndexError),
    #[error("{0}")]
    Internal(String),
}

impl ToolError {
    pub fn error_type(&self) -> ErrorType {
        match self {
            ToolError::Validation(_) => ErrorType::Validation,
            ToolError::Outside(_) | ToolError::SystemRoot(..) => ErrorType::SecurityViolation,
            ToolError::Index(tsa_index::IndexError::Unsafe(_)) => ErrorType::SecurityViolation,
            ToolError::NotFound(_) => ErrorType::FileNotFound,
            ToolError::Language(_) => ErrorType::LanguageUnsupported,
            ToolError::Binary(_) => ErrorType::BinaryFile,
            ToolError::Encoding(_) => ErrorType::EncodingError,
            ToolError::ProjectNotSet => ErrorType::ProjectNotSet,
            ToolError::EmptyProject => ErrorType::EmptyProject,
            ToolError::Index(_) => ErrorType::IndexError,
            ToolError::Internal(_) => ErrorType::Internal,
        }
    }

    /// The failure envelope of this error.
    pub fn into_failure(self) -> Failure {
        let t = self.error_type();
        let hint = match &self {
            ToolError::SystemRoot(..) => Some(
                "Pass the folder of one project (e.g. ~/src/app), not a system folder, the home folder or one of its ancestors",
            ),
            ToolError::Index(tsa_index::IndexError::Unsafe(_)) => Some(
                "The project's .tsa folder (or a file in it) is a symlink: remove it so tsa keeps its index inside the project",
            ),
            _ => None,
        };
        let f = Failure::new(t, self.to_string());
        let f = match hint {
            Some(h) => f.with_hint(h),
            None => f,
        };
        match t {
            ErrorType::FileNotFound => f.with_suggested_tool("project action=files"),
            ErrorType::ProjectNotSet => f.with_suggested_tool("set_project_path"),
            ErrorType::EmptyProject | ErrorType::IndexError => {
                f.with_suggested_tool("index action=full")
            }
            _ => f,
        }
    }
}
