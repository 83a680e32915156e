//! Typed tool errors and their one mapping onto failure envelopes.

use tsa_envelope::{ErrorType, Failure};
use tsa_index::Fault;

/// Why a call failed. Each variant maps to one `error_type` and hint.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("{0}")]
    Validation(String),
    #[error("path '{0}' is outside project boundary")]
    Outside(String),
    /// A project file that is a symlink (or lies below a folder linked out of the
    /// root) when it is read: never followed.
    #[error("'{0}' is a symlink or lies below one that leaves the project root; not read")]
    Linked(String),
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
    /// No source file of an indexed language under the root; the text says what the
    /// walk left out, and why.
    #[error("{0}")]
    EmptyProject(String),
    #[error(transparent)]
    Index(#[from] tsa_index::IndexError),
    #[error("'{file}' is {size} bytes, over the {max}-byte limit for parsing on demand")]
    TooLarge { file: String, size: u64, max: u64 },
    #[error("{0}")]
    Internal(String),
    /// A failure already written by its action: its `error_type`, its stable
    /// `error_code` and the keys beside it.
    #[error("{}", .0.error())]
    Coded(Box<Failure>),
}

impl ToolError {
    pub fn error_type(&self) -> ErrorType {
        match self {
            ToolError::Validation(_) => ErrorType::Validation,
            ToolError::Outside(_) | ToolError::Linked(_) | ToolError::SystemRoot(..) => {
                ErrorType::SecurityViolation
            }
            ToolError::Index(tsa_index::IndexError::Unsafe(_)) => ErrorType::SecurityViolation,
            ToolError::NotFound(_) => ErrorType::FileNotFound,
            ToolError::Language(_) => ErrorType::LanguageUnsupported,
            ToolError::Binary(_) => ErrorType::BinaryFile,
            ToolError::Encoding(_) => ErrorType::EncodingError,
            ToolError::ProjectNotSet => ErrorType::ProjectNotSet,
            ToolError::EmptyProject(_) => ErrorType::EmptyProject,
            ToolError::Index(e) => match e.fault() {
                Fault::DiskFull => ErrorType::ResourceExhausted,
                Fault::ReadOnly => ErrorType::PermissionDenied,
                Fault::Busy | Fault::Corrupt | Fault::Other => ErrorType::IndexError,
            },
            ToolError::TooLarge { .. } => ErrorType::ResourceExhausted,
            ToolError::Internal(_) => ErrorType::Internal,
            ToolError::Coded(f) => f.error_type(),
        }
    }

    /// The failure envelope of this error.
    pub fn into_failure(self) -> Failure {
        if let ToolError::Coded(f) = self {
            return *f;
        }
        let t = self.error_type();
        let fault = match &self {
            ToolError::Index(e) => Some(e.fault()),
            _ => None,
        };
        let hint = match &self {
            ToolError::SystemRoot(..) => Some(
                "Pass the folder of one project (e.g. ~/src/app), not a system folder, the home folder or one of its ancestors",
            ),
            ToolError::Index(tsa_index::IndexError::Unsafe(_)) => Some(
                "The project's .tsa folder (or a file in it) is a symlink: remove it so tsa keeps its index inside the project",
            ),
            ToolError::Linked(_) => Some(
                "The file was replaced by a symlink (or a folder above it was) since it was \
                 indexed; tsa never follows it. Restore the real file, or remove the link and \
                 re-index with `index action=build`.",
            ),
            ToolError::TooLarge { .. } => Some(
                "The file is too large to parse on demand (minified or generated code, \
                 most likely); read a line range with `structure action=read` or search it \
                 with `search action=content`.",
            ),
            _ => None,
        };
        let f = Failure::new(t, self.to_string());
        let f = match hint {
            Some(h) => f.with_hint(h),
            None => f,
        };
        let f = match fault {
            Some(Fault::DiskFull) => f.with_hint(
                "The disk holding the index (<project root>/.tsa) refused a write: no space \
                 left, a quota or a file size limit. Free space there and rebuild with \
                 `index action=full`; the previous index, if any, is unchanged.",
            ),
            Some(Fault::ReadOnly) => f.with_hint(
                "tsa keeps its index in <project root>/.tsa and cannot write there (read-only \
                 folder or filesystem). Make the folder writable, or index a writable copy; \
                 file actions (structure outline/read, search content/grep) need no index.",
            ),
            Some(Fault::Busy) => f.with_hint(
                "Another process holds the index; retry when it is done. The index is unchanged.",
            ),
            Some(Fault::Corrupt) => f.with_hint(
                "The index file is damaged and this call could not rebuild it. Run \
                 `index action=full mode=full` to build a new one (a damaged file it finds \
                 is moved aside to .tsa/index.db.damaged-<time>, never deleted).",
            ),
            _ => f,
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
