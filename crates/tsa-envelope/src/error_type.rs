//! Machine-stable error categories, each with its default recovery hint.

/// The `error_type` of a failure envelope. One closed set, one hint per category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorType {
    /// A parameter is missing, of the wrong type, out of range or unknown.
    Validation,
    /// The facade exists but the action is not in this build.
    UnsupportedAction,
    /// No such tool.
    UnknownTool,
    /// A path argument names a file or directory that does not exist.
    FileNotFound,
    /// A path argument resolves (symlinks included) outside the project root.
    SecurityViolation,
    /// No project root is set.
    ProjectNotSet,
    /// The file's extension maps to no supported language.
    LanguageUnsupported,
    /// The file is binary (holds NUL bytes).
    BinaryFile,
    /// The file is not valid UTF-8 text.
    EncodingError,
    /// The project holds no source file of a supported language.
    EmptyProject,
    /// The on-disk index could not be read or written.
    IndexError,
    /// The filesystem refused access (a read-only project folder, say).
    PermissionDenied,
    /// A resource ran out: disk space, a file size limit, memory.
    ResourceExhausted,
    /// A bug or an unexpected environment failure.
    Internal,
}

impl ErrorType {
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorType::Validation => "validation",
            ErrorType::UnsupportedAction => "unsupported_action",
            ErrorType::UnknownTool => "unknown_tool",
            ErrorType::FileNotFound => "file_not_found",
            ErrorType::SecurityViolation => "security_violation",
            ErrorType::ProjectNotSet => "project_not_set",
            ErrorType::LanguageUnsupported => "language_unsupported",
            ErrorType::BinaryFile => "binary_file",
            ErrorType::EncodingError => "encoding_error",
            ErrorType::EmptyProject => "empty_project",
            ErrorType::IndexError => "index_error",
            ErrorType::PermissionDenied => "permission_denied",
            ErrorType::ResourceExhausted => "resource_exhausted",
            ErrorType::Internal => "internal",
        }
    }

    /// The default recovery hint; a failure may carry a sharper one.
    pub const fn default_hint(self) -> &'static str {
        match self {
            ErrorType::Validation => "Fix the parameter named in `error` and retry.",
            ErrorType::UnsupportedAction => {
                "This action is not available in this build; use one of the actions listed in `available_actions`."
            }
            ErrorType::UnknownTool => "Call one of the tools listed by tools/list.",
            ErrorType::FileNotFound => {
                "The file does not exist; verify the path (relative to the project root)."
            }
            ErrorType::SecurityViolation => "Use a path inside the project root.",
            ErrorType::ProjectNotSet => {
                "Call set_project_path with an absolute directory, or start with --project-root."
            }
            ErrorType::LanguageUnsupported => "The file's extension is not a supported language.",
            ErrorType::BinaryFile => "The file is binary; pass a source file.",
            ErrorType::EncodingError => "The file is not valid UTF-8; re-encode it as UTF-8.",
            ErrorType::EmptyProject => {
                "No supported source files under the project root; point the project root at a code directory."
            }
            ErrorType::IndexError => {
                "The index could not be used; rebuild it with `index action=full mode=full`."
            }
            ErrorType::PermissionDenied => {
                "The filesystem refused access; check the folder's ownership and permissions."
            }
            ErrorType::ResourceExhausted => "A resource ran out; free it or reduce the scope.",
            ErrorType::Internal => "Review the error message and adjust your request.",
        }
    }
}

impl std::fmt::Display for ErrorType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
