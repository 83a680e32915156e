//! `tsa <tool> <action> --flag value ...`: one clap subcommand per tool and per
//! action, built at run time from each action's `Args` schema (the schema MCP
//! advertises), so `--help`, `tsa help <tool> <action>` and shell completions
//! describe exactly what the dispatcher accepts. clap only splits the words: the
//! values reach the dispatcher as the JSON an MCP client would send, so wrong types
//! and missing parameters get the same envelopes on both surfaces. A flag that no
//! action has is refused here, as an envelope naming the closest flag.

use clap::parser::ValueSource;
use clap::{ArgMatches, Command};
use serde_json::{Map, Value, json};
use tsa_envelope::{Envelope, ErrorType, Failure};
use tsa_tools::{ActionDescription, OutputFormat, Reply};

use crate::params::{self, Param};

/// The tool names: the 8 facades and `set_project_path`.
pub fn tool_names() -> Vec<&'static str> {
    tsa_tools::FACADES
        .iter()
        .map(|f| f.name)
        .chain(std::iter::once("set_project_path"))
        .collect()
}

/// The subcommands of every tool; their actions are built only when clap enters one.
pub fn commands() -> Vec<Command> {
    let mut out: Vec<Command> = tsa_tools::FACADES
        .iter()
        .map(|f| {
            Command::new(f.name)
                .about(f.title)
                .after_help(format!(
                    "`tsa {} <action> --help` shows one action's flags.",
                    f.name
                ))
                .subcommand_value_name("ACTION")
                .subcommand_help_heading("Actions")
                // `tsa <tool> help` is the tool's `help` action (its actions, or one
                // action's exact schema with --target-action); `tsa help <tool>
                // <action>` and `--help` still show clap's help.
                .disable_help_subcommand(true)
                // An unknown action reaches the dispatcher, which names the closest one.
                .allow_external_subcommands(true)
                .defer(add_actions)
        })
        .collect();
    out.push(
        Command::new("set_project_path")
            .about("Set the project root (what MCP clients call; the CLI takes --project-root)")
            .defer(add_set_project_path),
    );
    out
}

fn add_actions(cmd: Command) -> Command {
    let facade = cmd.get_name().to_owned();
    let mut cmd = cmd;
    for a in tsa_tools::action_descriptions(&facade) {
        let aliases: Vec<&str> = tsa_tools::ACTION_ALIASES
            .iter()
            .filter(|(f, _, c)| *f == facade && *c == a.name)
            .map(|(_, alias, _)| *alias)
            .collect();
        // Aliases work but are not advertised (MCP's action enum lists none either).
        cmd = cmd.subcommand(action_command(&a).aliases(aliases));
    }
    cmd
}

fn add_set_project_path(cmd: Command) -> Command {
    let a = tsa_tools::action_descriptions("set_project_path").remove(0);
    let params = action_params(&a);
    with_params(cmd.about(a.summary), &params).after_help(example(
        "set_project_path",
        None,
        &params,
    ))
}

/// The flags of one action: its own parameters, then the answer options.
pub fn action_params(a: &ActionDescription) -> Vec<Param> {
    params::params(a.name, &a.input_schema, a.aliases, &a.path_params)
}

fn with_params(mut cmd: Command, params: &[Param]) -> Command {
    for p in params {
        cmd = cmd.arg(p.arg());
    }
    for p in params::universal() {
        cmd = cmd.arg(p.arg().help_heading("Answer options"));
    }
    // A flag given twice keeps its last value (as the words-to-JSON mapping always did).
    cmd.args_override_self(true)
}

fn action_command(a: &ActionDescription) -> Command {
    let params = action_params(a);
    let required: String = params
        .iter()
        .filter(|p| p.required)
        .map(|p| {
            format!(
                " --{} <{}>",
                p.long,
                p.arg()
                    .get_value_names()
                    .map_or("VALUE".into(), |v| v[0].to_string())
            )
        })
        .collect();
    let cmd = Command::new(a.name)
        .about(a.summary.to_owned())
        .override_usage(format!("tsa {} {}{required} [OPTIONS]", a.facade, a.name))
        .after_help(example(a.facade, Some(a.name), &params));
    with_params(cmd, &params)
}

/// A generated example: the required flags with sample values (and a limit).
fn example(facade: &str, action: Option<&str>, params: &[Param]) -> String {
    let mut line = match action {
        Some(a) => format!("tsa {facade} {a}"),
        None => format!("tsa {facade}"),
    };
    // The required flags (else the first one), and a limit where there is one.
    let first = params.iter().find(|p| p.sample().is_some());
    let shown = params.iter().filter(|p| {
        p.required
            || p.key == "limit"
            || (!params.iter().any(|q| q.required) && first.is_some_and(|f| f.key == p.key))
    });
    for p in shown {
        line.push_str(&format!(" --{}", p.long));
        if let Some(v) = p.sample() {
            let v = if v.contains(' ') { format!("'{v}'") } else { v };
            line.push(' ');
            line.push_str(&v);
        }
    }
    format!("Example:\n  {line}")
}

/// The JSON arguments of a parsed action (only flags given on the command line).
pub fn arguments(a: &ActionDescription, m: &ArgMatches) -> Map<String, Value> {
    let mut args = Map::new();
    let all = action_params(a).into_iter().chain(params::universal());
    for p in all {
        if m.value_source(&p.long) != Some(ValueSource::CommandLine) {
            continue;
        }
        let words: Vec<String> = m
            .get_many::<String>(&p.long)
            .map(|v| v.cloned().collect())
            .unwrap_or_default();
        if let Some(v) = p.value(words) {
            args.insert(p.key.clone(), v);
        }
    }
    args
}

/// The description of `action` of `tool` (an action alias resolved).
pub fn describe(tool: &str, action: &str) -> Option<ActionDescription> {
    let canonical = tsa_tools::ACTION_ALIASES
        .iter()
        .find(|(f, alias, _)| *f == tool && *alias == action)
        .map_or(action, |(_, _, c)| *c);
    tsa_tools::action_descriptions(tool)
        .into_iter()
        .find(|a| a.name == canonical)
}

/// The tool and action words of a command line that clap refused, skipping the
/// global flags and their values.
pub fn locate(argv: &[String]) -> (Option<String>, Option<String>) {
    let mut positional = Vec::new();
    let mut words = argv.iter().skip(1);
    while let Some(w) = words.next() {
        if w == "--project-root" || w == "--format" {
            words.next();
        } else if w.starts_with('-') {
            if positional.len() == 1 {
                // A flag before the action: the action is unknown.
                break;
            }
        } else {
            positional.push(w.clone());
            if positional.len() == 2 {
                break;
            }
        }
    }
    let mut it = positional.into_iter();
    (it.next(), it.next())
}

/// The closest candidate by normalised edit distance (a prefix counts as close).
fn closest<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| {
            let prefix = !input.is_empty() && (c.starts_with(input) || input.starts_with(c));
            let score = strsim::normalized_levenshtein(input, c);
            (if prefix { score.max(0.8) } else { score }, c)
        })
        .filter(|(s, _)| *s >= 0.6)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// The envelope of a command line clap refused for `tool` (`action`): the failure,
/// in the format asked for, with the valid flags and the closest one.
pub fn refusal(err: &clap::Error, tool: &str, action: Option<&str>, format: OutputFormat) -> Reply {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    // `set_project_path` is its own (only) action.
    let described = if tool == "set_project_path" {
        describe(tool, tool)
    } else {
        action.and_then(|a| describe(tool, a))
    };
    let command = match &described {
        Some(a) if a.facade != a.name => format!("tsa {tool} {}", a.name),
        _ => format!("tsa {tool}"),
    };
    let flags: Vec<String> = match &described {
        Some(a) => action_params(a)
            .iter()
            .chain(params::universal().iter())
            .map(|p| format!("--{}", p.long))
            .chain(["--format".to_owned(), "--project-root".to_owned()])
            .collect(),
        None => vec!["--format".to_owned(), "--project-root".to_owned()],
    };
    let offending = match err.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => s.clone(),
        _ => String::new(),
    };
    let offending = offending
        .split(['=', ' '])
        .next()
        .unwrap_or_default()
        .to_owned();
    let mut suggestion: Option<String> = None;
    let message = if err.kind() == ErrorKind::UnknownArgument && offending.starts_with('-') {
        let bare = offending.trim_start_matches('-').replace('_', "-");
        let longs: Vec<String> = flags.iter().map(|f| f[2..].to_owned()).collect();
        suggestion = closest(&bare, longs.iter().map(String::as_str)).map(|s| format!("--{s}"));
        let mut m = format!("unknown flag '{offending}' for `{command}`");
        if let Some(s) = &suggestion {
            m.push_str(&format!(" — did you mean '{s}'?"));
        }
        if described.is_some() {
            m.push_str(&format!("; valid flags: {}", flags.join(", ")));
        } else if let Some(f) = tsa_tools::FACADES.iter().find(|f| f.name == tool) {
            m.push_str(&format!(
                "; flags go after the action (`tsa {tool} <action> --flag value`), actions: {}",
                f.actions.join(", ")
            ));
        }
        m
    } else if err.kind() == ErrorKind::UnknownArgument {
        format!(
            "unexpected argument '{offending}' for `{command}`: parameters are flags (--name value)"
        )
    } else {
        // clap's own sentence, without its "error: " prefix and usage lines.
        let text = err.render().to_string();
        let first = text.lines().next().unwrap_or_default();
        first.strip_prefix("error: ").unwrap_or(first).to_owned()
    };
    let hint = match &suggestion {
        Some(s) => format!("Use {s}, or run `{command} --help` for its flags."),
        None => format!("Run `{command} --help` for its flags."),
    };
    let failure = Failure::new(ErrorType::Validation, message)
        .with_hint(hint)
        .with("valid_flags", json!(flags))
        .with(
            "suggestion",
            suggestion.map(Value::from).unwrap_or(Value::Null),
        )
        .with_subject(tool, action);
    Reply {
        body: tsa_format::render(&Envelope::from(failure), format, false),
        is_error: true,
        format,
        compact_only: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_and_action_command_is_well_formed() {
        let mut cmd = Command::new("tsa")
            .arg(
                clap::Arg::new("project_root")
                    .long("project-root")
                    .global(true),
            )
            .arg(clap::Arg::new("format").long("format").global(true))
            .subcommands(commands());
        cmd.build();
        for sub in cmd.get_subcommands() {
            sub.clone().debug_assert();
        }
        let nav = cmd.find_subcommand("nav").unwrap();
        let callers = nav.find_subcommand("callers").unwrap();
        let longs: Vec<&str> = callers
            .get_arguments()
            .filter_map(|a| a.get_long())
            .collect();
        assert!(
            longs.contains(&"function-name") && longs.contains(&"limit"),
            "{longs:?}"
        );
        assert!(
            !longs.contains(&"max-depth"),
            "only the action's own flags: {longs:?}"
        );
        let read = cmd
            .find_subcommand("structure")
            .unwrap()
            .find_subcommand("read")
            .unwrap();
        assert!(
            read.get_arguments()
                .any(|a| a.get_long() == Some("read-format"))
        );
    }

    #[test]
    fn the_tool_and_action_are_found_around_global_flags() {
        let v = |s: &[&str]| s.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            locate(&v(&[
                "tsa",
                "--project-root",
                "x",
                "nav",
                "--format",
                "json",
                "callers",
                "--limt"
            ])),
            (Some("nav".into()), Some("callers".into()))
        );
        assert_eq!(
            locate(&v(&["tsa", "nav", "--limt", "3", "callers"])),
            (Some("nav".into()), None)
        );
    }
}
