//! `structure class_detail`: one type's fields and methods with their visibility
//! (read from the declarations), its bases, and the members it inherits by walking
//! the resolved bases (overridden members listed once, as overrides).

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;

use crate::action::Action;
use crate::actions::common::{fixed_cap, open_index};
use crate::actions::structure::common::{TYPE_KINDS, find_types, language_arg, visibility};
use crate::{Context, ToolError};

const MAX_ROWS: usize = 200;
const MAX_BASE_DEPTH: usize = 10;

/// Arguments of `structure class_detail`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The class (or struct, trait, interface, enum); `Outer.Inner` qualifies.
    pub class_name: String,
    /// Only a type of this language.
    #[serde(default)]
    pub language: Option<String>,
}

pub struct ClassDetail;

fn member_row(m: &SymbolRow, home: &str) -> Value {
    let mut r = json!({
        "name": m.name,
        "kind": m.kind,
        "line": m.line,
        "end_line": m.end_line,
        "visibility": visibility(&m.language, &m.name, &m.signature),
        "signature": m.signature,
    });
    if m.file != home {
        r["file"] = json!(m.file);
    }
    let sig = format!(" {} ", m.signature);
    if sig.contains(" static ") || sig.contains("@staticmethod") || sig.contains("(cls") {
        r["static"] = json!(true);
    }
    r
}

fn list(
    key: &'static str,
    total: &'static str,
    listed: &'static str,
    capk: &'static str,
    noun: &'static str,
) -> ListSpelling {
    ListSpelling {
        list_key: key,
        total_key: total,
        listed_key: listed,
        cap_key: capk,
        noun,
        remedy: "outline the file with structure action=outline, or read the type with structure action=read".into(),
    }
}

impl Action for ClassDetail {
    type Args = Args;
    const FACADE: &'static str = "structure";
    const NAME: &'static str = "class_detail";
    const SUMMARY: &'static str = "one class: fields and methods with visibility, bases, inherited members through the resolved bases, overrides";
    const BRIEF: &'static str = "one class's members";
    const ALIASES: &'static [(&'static str, &'static str)] =
        &[("query", "class_name"), ("symbol", "class_name")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let language = language_arg(args.language.as_deref())?.map(|l| l.name());
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let name = args.class_name.trim();
        let types = match find_types(index, "class_detail", name, language)? {
            Ok(t) => t,
            Err(miss) => return Ok(miss),
        };
        let ty = &types[0];
        let members = index.members_of(ty)?;
        let own: HashSet<&str> = members.iter().map(|m| m.name.as_str()).collect();
        let methods: Vec<Value> = members
            .iter()
            .filter(|m| matches!(m.kind.as_str(), "method" | "function"))
            .map(|m| member_row(m, &ty.file))
            .collect();
        let fields: Vec<Value> = members
            .iter()
            .filter(|m| m.kind == "variable")
            .map(|m| member_row(m, &ty.file))
            .collect();
        let nested: Vec<Value> = members
            .iter()
            .filter(|m| TYPE_KINDS.contains(&m.kind.as_str()))
            .map(|m| member_row(m, &ty.file))
            .collect();
        // Bases, level by level through resolved targets.
        let direct = index.bases_of(&[ty.id])?;
        let bases: Vec<Value> = direct
            .iter()
            .map(|b| {
                json!({
                    "base": b.base_name,
                    "relation": b.kind,
                    "resolution": b.resolution.as_str(),
                    "qualified_name": b.target.as_ref().map(|t| t.qualname.clone()),
                    "file": b.target.as_ref().map(|t| t.file.clone()),
                    "line": b.target.as_ref().map(|t| t.line),
                })
            })
            .collect();
        let mut seen_types: HashSet<i64> = HashSet::from([ty.id]);
        let mut seen_members: HashSet<String> = own.iter().map(|s| (*s).to_owned()).collect();
        let mut inherited = Vec::new();
        let mut overrides = Vec::new();
        let mut unresolved: Vec<String> = direct
            .iter()
            .filter(|b| b.target.is_none())
            .map(|b| b.base_name.clone())
            .collect();
        let mut frontier: Vec<SymbolRow> = direct.into_iter().filter_map(|b| b.target).collect();
        let mut level = 1;
        while !frontier.is_empty() && level <= MAX_BASE_DEPTH {
            let mut next = Vec::new();
            for base in frontier {
                if !seen_types.insert(base.id) {
                    continue;
                }
                for m in index.members_of(&base)? {
                    if !matches!(m.kind.as_str(), "method" | "function" | "variable") {
                        continue;
                    }
                    if own.contains(m.name.as_str()) {
                        if m.kind != "variable" {
                            overrides.push(json!({"name": m.name, "overrides": format!("{}.{}", base.qualname, m.name), "file": m.file, "line": m.line}));
                        }
                        continue;
                    }
                    if !seen_members.insert(m.name.clone()) {
                        continue;
                    }
                    let mut r = member_row(&m, "");
                    r["from"] = json!(base.qualname);
                    r["depth"] = json!(level);
                    inherited.push(r);
                }
                for b in index.bases_of(&[base.id])? {
                    match b.target {
                        Some(t) => next.push(t),
                        None => unresolved.push(b.base_name),
                    }
                }
            }
            frontier = next;
            level += 1;
        }
        unresolved.sort();
        unresolved.dedup();
        let mut out = Success::new(
            Verdict::Info,
            format!(
                "class_detail {}: {} {} at {}:{}, {} methods, {} fields, {} inherited",
                name,
                ty.kind,
                ty.qualname,
                ty.file,
                ty.line,
                methods.len(),
                fields.len(),
                inherited.len()
            ),
        )
        .with("class_name", name)
        .with("qualified_name", ty.qualname.clone())
        .with("kind", ty.kind.clone())
        .with("file", ty.file.clone())
        .with("line", ty.line)
        .with("end_line", ty.end_line)
        .with("language", ty.language.clone())
        .with("signature", ty.signature.clone())
        .with(
            "visibility",
            visibility(&ty.language, &ty.name, &ty.signature),
        )
        .with("bases", Value::Array(bases))
        .with("unresolved_bases", json!(unresolved))
        .with_list(
            list(
                "methods",
                "method_count",
                "methods_listed",
                "methods_cap",
                "methods",
            ),
            Capped::collect(methods, fixed_cap(MAX_ROWS)),
        )
        .with_list(
            list(
                "fields",
                "field_count",
                "fields_listed",
                "fields_cap",
                "fields",
            ),
            Capped::collect(fields, fixed_cap(MAX_ROWS)),
        )
        .with_list(
            list(
                "inherited_members",
                "inherited_count",
                "inherited_listed",
                "inherited_cap",
                "inherited members",
            ),
            Capped::collect(inherited, fixed_cap(MAX_ROWS)),
        )
        .with_list(
            list(
                "overrides",
                "override_count",
                "overrides_listed",
                "overrides_cap",
                "overrides",
            ),
            Capped::collect(overrides, fixed_cap(MAX_ROWS)),
        );
        if !nested.is_empty() {
            out = out.with_list(
                list(
                    "nested_types",
                    "nested_type_count",
                    "nested_types_listed",
                    "nested_types_cap",
                    "nested types",
                ),
                Capped::collect(nested, fixed_cap(MAX_ROWS)),
            );
        }
        if types.len() > 1 {
            let others = types[1..].iter().map(|t| json!({"qualified_name": t.qualname, "kind": t.kind, "file": t.file, "line": t.line, "language": t.language}));
            out = out
                .with_list(list("other_definitions", "other_definition_count", "other_definitions_listed", "other_definitions_cap", "other definitions"), Capped::collect(others, fixed_cap(50)))
                .with_warning(format!(
                    "{} types are named '{name}'; this answer is about {}:{} — qualify the name or pass language to pick another",
                    types.len(),
                    ty.file,
                    ty.line
                ));
        }
        out = out.with_next_step(format!(
            "subclasses and the risk of changing it: structure action=class_tree class_name={name} mode=impact"
        ));
        if let Some(w) = opened.built_now {
            out = out.with_warning(w);
        }
        Ok(out)
    }
}
