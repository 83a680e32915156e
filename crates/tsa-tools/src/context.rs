//! The session state every call sees: the project root.

use std::path::{Path, PathBuf};

use tsa_index::{BuildOptions, ProgressSink};

use crate::ToolError;

/// One session (an MCP connection, or one CLI run).
#[derive(Clone, Default)]
pub struct Context {
    root: Option<PathBuf>,
    progress: Option<ProgressSink>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("root", &self.root)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl Context {
    /// A context with no project yet (`set_project_path` sets one).
    pub fn new() -> Self {
        Context::default()
    }

    /// A context bound to `root`, canonicalised (symlinks resolved).
    pub fn with_root(root: &Path) -> Result<Self, ToolError> {
        let mut c = Context::new();
        c.set_root(root)?;
        Ok(c)
    }

    /// Rebinds the project root: it must be an existing directory and not the
    /// filesystem root.
    pub fn set_root(&mut self, root: &Path) -> Result<PathBuf, ToolError> {
        let canonical = std::fs::canonicalize(root)
            .map_err(|_| ToolError::NotFound(root.display().to_string()))?;
        if !canonical.is_dir() {
            return Err(ToolError::Validation(format!(
                "project path must be a directory: {}",
                root.display()
            )));
        }
        if canonical.parent().is_none() {
            return Err(ToolError::Validation(
                "project path must not be the filesystem root".into(),
            ));
        }
        self.root = Some(canonical.clone());
        Ok(canonical)
    }

    /// Where index builds report progress (a terminal bar, MCP notifications); `None` = quiet.
    pub fn set_progress(&mut self, sink: Option<ProgressSink>) {
        self.progress = sink;
    }

    /// Build options carrying this session's progress sink.
    pub fn build_options(&self) -> BuildOptions {
        BuildOptions {
            progress: self.progress.clone(),
            ..BuildOptions::default()
        }
    }

    pub fn root(&self) -> Result<&Path, ToolError> {
        self.root.as_deref().ok_or(ToolError::ProjectNotSet)
    }
}
