//! Files tsa keeps in `.tsa/` (constraint violations, git activation):
//! written whole or not at all, each writer through a temp file of its own, so two
//! writers never rename each other's half and a crash leaves the old file.

use std::path::Path;

use crate::ToolError;

/// Replaces `.tsa/<name>` with `body`.
pub fn write(root: &Path, name: &str, body: &[u8]) -> Result<(), ToolError> {
    let path = tsa_index::state_path(root, name)?;
    let dir = tsa_index::state_path(root, "")?;
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(&dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(&dir)?;
        std::io::Write::write_all(&mut tmp, body)?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    };
    write().map_err(|e| ToolError::Internal(format!("cannot write .tsa/{name}: {e}")))
}
