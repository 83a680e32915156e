//! `ProjectPath`: the type of every path parameter of an action, confined to the
//! project root when the arguments are parsed, so no action can receive a path it
//! has not been checked for.
//!
//! Two halves, one type:
//! - its JSON schema is a string carrying [`MARKER`]: the dispatcher reads which
//!   parameters are paths from the action's schema ([`path_params`]) and refuses,
//!   before anything else runs, a value that leaves the root (the same refusal for
//!   every action); the CLI shows them as `<PATH>`. The marker is taken out of the
//!   schemas `tools/list` and the CLI show ([`strip_marker`]);
//! - it deserialises only with the project root in scope ([`with_root`], set by
//!   `DynAction::run_json` around the deserialisation of the `Args`), resolving the
//!   value with `security::resolve_in_root` again: without a root, or outside it,
//!   there is no `ProjectPath`.
//!
//! An action reads the value as given (`Deref<Target = str>`), or its resolved
//! forms ([`ProjectPath::absolute`], [`ProjectPath::relative`]).
//!
//! The paths inside lists of objects (`search batch`'s `queries[].roots`,
//! `structure read`'s `requests[].file_path`) have the schema of a `ProjectPath`
//! (`#[schemars(with = ...)]`: the path length limit) and are resolved by their
//! action, item by item, after the checks of the items before them: the dispatcher
//! never looked inside lists of objects, and the order of the refusals stays.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::ToolError;
use tsa_analysis::security::resolve_in_root;

/// The schema keyword that marks a project path (never shown to clients).
pub const MARKER: &str = "x-tsa-project-path";

/// A path parameter, resolved inside the project root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectPath {
    /// The value as the client sent it.
    given: String,
    /// Resolved: absolute, inside the root.
    absolute: PathBuf,
    /// Resolved: relative to the root, `/`-separated.
    relative: String,
}

impl ProjectPath {
    /// `input` confined to `root` (`security::resolve_in_root`): how the composed
    /// actions pass a path they already hold to another action.
    pub fn confine(root: &Path, input: &str) -> Result<ProjectPath, ToolError> {
        let (absolute, relative) = resolve_in_root(root, input)?;
        Ok(ProjectPath {
            given: input.to_owned(),
            absolute,
            relative,
        })
    }

    /// The value as the client sent it.
    pub fn as_str(&self) -> &str {
        &self.given
    }

    /// The resolved absolute path (inside the root).
    pub fn absolute(&self) -> &Path {
        &self.absolute
    }

    /// The resolved path relative to the root.
    pub fn relative(&self) -> &str {
        &self.relative
    }
}

impl Deref for ProjectPath {
    type Target = str;
    fn deref(&self) -> &str {
        &self.given
    }
}

impl AsRef<str> for ProjectPath {
    fn as_ref(&self) -> &str {
        &self.given
    }
}

impl AsRef<Path> for ProjectPath {
    fn as_ref(&self) -> &Path {
        Path::new(&self.given)
    }
}

/// The values as the client sent them.
pub(crate) fn given_all(paths: &[ProjectPath]) -> Vec<String> {
    paths.iter().map(|p| p.given.clone()).collect()
}

impl Serialize for ProjectPath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.given)
    }
}

impl fmt::Display for ProjectPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.given)
    }
}

impl JsonSchema for ProjectPath {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "ProjectPath".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", MARKER: true })
    }
}

thread_local! {
    /// The project root the `Args` being deserialised on this thread belong to.
    static ROOT: RefCell<Option<PathBuf>> = const { RefCell::new(None) };
    /// The paths the dispatcher confined for the call running on this thread (root,
    /// value -> resolved), so deserialising its `Args` does not resolve them again.
    static CONFINED: RefCell<Vec<(PathBuf, ProjectPath)>> = const { RefCell::new(Vec::new()) };
}

/// Confines `input` to `root` for the call about to run on this thread (the
/// dispatcher's refusal of a path that leaves the root); the [`ProjectPath`] its
/// `Args` then deserialise reuses the resolution.
pub(crate) fn confine_for_call(root: &Path, input: &str) -> Result<(), ToolError> {
    let p = ProjectPath::confine(root, input)?;
    CONFINED.with(|c| c.borrow_mut().push((root.to_path_buf(), p)));
    Ok(())
}

/// The scope of one call's confined paths: begins empty, and forgets them when
/// dropped, so no later deserialisation on this thread reuses a resolution the
/// file system may have changed since.
pub(crate) struct CallPaths(());

impl CallPaths {
    pub(crate) fn begin() -> CallPaths {
        CONFINED.with(|c| c.borrow_mut().clear());
        CallPaths(())
    }
}

impl Drop for CallPaths {
    fn drop(&mut self) {
        CONFINED.with(|c| c.borrow_mut().clear());
    }
}

/// The resolution of `given` under `root` made for this call, if any.
fn confined(root: &Path, given: &str) -> Option<ProjectPath> {
    CONFINED.with(|c| {
        c.borrow()
            .iter()
            .find(|(r, p)| r == root && p.given == given)
            .map(|(_, p)| p.clone())
    })
}

/// Runs `f` (the deserialisation of one action's `Args`) with `root` in scope for
/// [`ProjectPath`]; the previous scope comes back afterwards.
pub(crate) fn with_root<T>(root: Option<&Path>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<PathBuf>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            ROOT.with(|r| *r.borrow_mut() = previous);
        }
    }
    let previous = ROOT.with(|r| r.replace(root.map(Path::to_path_buf)));
    let _restore = Restore(previous);
    f()
}

impl<'de> Deserialize<'de> for ProjectPath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let given = String::deserialize(deserializer)?;
        ROOT.with(|root| match root.borrow().as_deref() {
            Some(root) => match confined(root, &given) {
                Some(p) => Ok(p),
                None => ProjectPath::confine(root, &given).map_err(serde::de::Error::custom),
            },
            None => Err(serde::de::Error::custom(
                "a path needs the project root: call set_project_path first",
            )),
        })
    }
}

/// Whether a property schema is a project path, or a list of them.
fn is_marked(prop: &Value) -> bool {
    prop.get(MARKER).is_some()
        || prop.get("items").is_some_and(is_marked)
        || ["anyOf", "oneOf"].iter().any(|k| {
            prop.get(*k)
                .and_then(Value::as_array)
                .is_some_and(|branches| branches.iter().any(is_marked))
        })
}

/// The top-level parameters of an action's schema that are project paths.
pub(crate) fn path_params(schema: &Map<String, Value>) -> Vec<String> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .filter(|(_, p)| is_marked(p))
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether the value schema `prop` marks a project path (for the length limits).
pub(crate) fn is_path_schema(prop: &Value) -> bool {
    is_marked(prop)
}

/// The schema without the marker (keys keep their order), as clients see it.
pub(crate) fn strip_marker(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.shift_remove(MARKER);
            for v in map.values_mut() {
                strip_marker(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_marker),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        /// One file.
        file_path: Option<ProjectPath>,
        roots: Vec<ProjectPath>,
        name: String,
    }

    #[test]
    fn the_schema_marks_paths_and_stripping_gives_plain_strings() {
        let schema = crate::action::schema_of::<Args>();
        assert_eq!(path_params(&schema), ["file_path", "roots"]);
        let mut shown = Value::Object(schema);
        strip_marker(&mut shown);
        assert_eq!(
            shown["properties"]["file_path"],
            serde_json::json!({"type": ["string", "null"], "description": "One file."})
        );
        assert_eq!(
            shown["properties"]["roots"],
            serde_json::json!({"type": "array", "items": {"type": "string"}})
        );
    }

    #[test]
    fn no_marker_reaches_clients() {
        let tools = serde_json::to_string(
            &crate::tool_descriptions()
                .into_iter()
                .map(|t| t.input_schema)
                .collect::<Vec<_>>(),
        )
        .unwrap();
        assert!(!tools.contains(MARKER));
        let file = crate::action_descriptions("structure")
            .into_iter()
            .find(|a| a.name == "outline")
            .unwrap();
        assert!(
            !Value::Object(file.input_schema)
                .to_string()
                .contains(MARKER)
        );
        assert_eq!(file.path_params, ["file_path"]);
    }

    #[test]
    fn a_path_deserialises_only_inside_a_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.py"), "x = 1\n").unwrap();
        let args = serde_json::json!({"file_path": "a.py", "roots": ["."], "name": "n"});
        assert!(serde_json::from_value::<Args>(args.clone()).is_err());
        let ok: Args = with_root(Some(&root), || serde_json::from_value(args)).unwrap();
        let p = ok.file_path.unwrap();
        assert_eq!((p.as_str(), p.relative()), ("a.py", "a.py"));
        assert_eq!(p.absolute(), root.join("a.py"));
        let outside = serde_json::json!({"file_path": "../x", "roots": [], "name": "n"});
        assert!(with_root(Some(&root), || serde_json::from_value::<Args>(outside)).is_err());
    }
}
