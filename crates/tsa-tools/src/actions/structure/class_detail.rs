//! `structure class_detail`: one type's fields and methods with their visibility
//! (read from the declarations), its bases, and the members it inherits by walking
//! the resolved bases (overridden members listed once, as overrides).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::class_members::{BaseRow, OtherDefinition, class_members};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{fixed_cap, open_index, to_value, with_payload};
use crate::actions::structure::common::{find_types, language_arg, visibility};
use crate::{Context, ToolError};

const MAX_ROWS: usize = 200;

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

/// The payload of `structure class_detail`, in answer order (methods, fields,
/// inherited members, overrides, nested types and other definitions follow as lists).
#[derive(Clone, Debug, Serialize)]
pub struct DetailPayload<'a> {
    /// The class as asked.
    pub class_name: &'a str,
    /// The type described.
    pub qualified_name: &'a str,
    /// Its kind.
    pub kind: &'a str,
    /// Its file.
    pub file: &'a str,
    /// Its first line.
    pub line: u32,
    /// Its last line.
    pub end_line: u32,
    /// Its language.
    pub language: &'a str,
    /// Its declaration header.
    pub signature: &'a str,
    /// Its visibility.
    pub visibility: &'static str,
    /// Its declared bases.
    pub bases: &'a [BaseRow],
    /// Base names no project type resolved, at any level.
    pub unresolved_bases: &'a [String],
}

fn list(
    key: &'static str,
    total: &'static str,
    listed: &'static str,
    capk: &'static str,
    noun: &'static str,
) -> ListSpelling {
    ListSpelling::new(
        key,
        total,
        listed,
        capk,
        noun,
        "outline the file with structure action=outline, or read the type with structure action=read",
    )
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
        let m = class_members(index, ty)?;
        let payload = DetailPayload {
            class_name: name,
            qualified_name: &ty.qualname,
            kind: &ty.kind,
            file: &ty.file,
            line: ty.line,
            end_line: ty.end_line,
            language: &ty.language,
            signature: &ty.signature,
            visibility: visibility(&ty.language, &ty.name, &ty.signature),
            bases: &m.bases,
            unresolved_bases: &m.unresolved_bases,
        };
        let mut out = with_payload(
            Success::new(
                Verdict::Info,
                format!(
                    "class_detail {}: {} {} at {}:{}, {} methods, {} fields, {} inherited",
                    name,
                    ty.kind,
                    ty.qualname,
                    ty.file,
                    ty.line,
                    m.methods.len(),
                    m.fields.len(),
                    m.inherited.len()
                ),
            ),
            &payload,
        )
        .with_list(
            list(
                "methods",
                "method_count",
                "methods_listed",
                "methods_cap",
                "methods",
            ),
            Capped::collect(m.methods.iter().map(to_value), fixed_cap(MAX_ROWS)),
        )
        .with_list(
            list(
                "fields",
                "field_count",
                "fields_listed",
                "fields_cap",
                "fields",
            ),
            Capped::collect(m.fields.iter().map(to_value), fixed_cap(MAX_ROWS)),
        )
        .with_list(
            list(
                "inherited_members",
                "inherited_count",
                "inherited_listed",
                "inherited_cap",
                "inherited members",
            ),
            Capped::collect(m.inherited.iter().map(to_value), fixed_cap(MAX_ROWS)),
        )
        .with_list(
            list(
                "overrides",
                "override_count",
                "overrides_listed",
                "overrides_cap",
                "overrides",
            ),
            Capped::collect(m.overrides.iter().map(to_value), fixed_cap(MAX_ROWS)),
        );
        if !m.nested.is_empty() {
            out = out.with_list(
                list(
                    "nested_types",
                    "nested_type_count",
                    "nested_types_listed",
                    "nested_types_cap",
                    "nested types",
                ),
                Capped::collect(m.nested.iter().map(to_value), fixed_cap(MAX_ROWS)),
            );
        }
        if types.len() > 1 {
            let others = types[1..]
                .iter()
                .map(|t| to_value(&OtherDefinition::from(t)));
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
