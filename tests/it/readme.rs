//! The README documents every option of every subcommand, and documents none the program lacks:
//! each `slidesolve help COMMAND` is compared with the README's section of that command.

use std::collections::BTreeSet;
use std::process::Command;

/// The README's command sections (their heading, after `### `slidesolve `) and the `help` words
/// that print the same command's options.
const COMMANDS: &[(&str, &[&str])] = &[
    ("solve ", &["solve"]),
    ("draw ", &["draw"]),
    ("enumerate ", &["enumerate"]),
    ("family ", &["family"]),
    ("gen tiles ", &["gen", "tiles"]),
    ("batch ", &["batch"]),
    ("merge ", &["merge"]),
    ("plot ", &["plot"]),
    ("verify ", &["verify"]),
];

/// The long options (`--name`) in `text`.
fn long_options(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in text.match_indices("--") {
        let name: String =
            text[at + 2..].chars().take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-').collect();
        let starts_a_word = at == 0 || !text.as_bytes()[at - 1].is_ascii_alphanumeric();
        if starts_a_word && name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
            found.insert(format!("--{name}"));
        }
    }
    found
}

/// The README's section of the command whose heading starts `### `slidesolve HEADING`: its lines
/// up to the next heading of the same or a higher level.
fn section<'a>(readme: &'a str, heading: &str) -> &'a str {
    let start = readme.find(&format!("### `slidesolve {heading}")).unwrap_or_else(|| panic!("no section {heading}"));
    let rest = &readme[start + 4..];
    let end = ["\n### ", "\n## "].iter().filter_map(|h| rest.find(h)).min().unwrap_or(rest.len());
    &rest[..end]
}

#[test]
fn the_readme_lists_every_option_of_every_command_and_no_other() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    for (heading, words) in COMMANDS {
        let help = Command::new(env!("CARGO_BIN_EXE_slidesolve")).arg("help").args(*words).output().unwrap();
        assert!(help.status.success(), "help {words:?}");
        let help = String::from_utf8(help.stdout).unwrap();
        // The options as clap lists them: lines `  -x, --name <V>  text` or `      --name  text`.
        let listed: BTreeSet<String> = help
            .lines()
            .filter(|l| l.trim_start().starts_with('-'))
            .flat_map(|l| long_options(l.split("  ").find(|p| p.contains("--")).unwrap_or("")))
            .filter(|o| o != "--help")
            .collect();
        assert!(!listed.is_empty(), "{words:?}: no options read from the help");
        let text = section(&readme, heading);
        let documented = long_options(text);
        let undocumented: Vec<_> = listed.difference(&documented).collect();
        assert!(undocumented.is_empty(), "{heading}: options missing from README: {undocumented:?}");
        // The README's option tables (rows that start with an option) name only real options.
        let tabled: BTreeSet<String> = text
            .lines()
            .filter(|l| l.starts_with("| `--"))
            .flat_map(|l| long_options(l.split(" | ").next().unwrap()))
            .collect();
        let unknown: Vec<_> = tabled.difference(&listed).collect();
        assert!(unknown.is_empty(), "{heading}: README tables options the program lacks: {unknown:?}");
    }
}
