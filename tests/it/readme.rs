//! The README documents every option of every subcommand, and documents none the program lacks:
//! each `slidesolve help COMMAND` is compared with the README's section of that command. Its
//! examples print what the program prints: every `console` block is run and compared.

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

/// The README's `console` blocks: each a list of commands (the text after `$ `) with the lines
/// printed after each.
fn console_blocks(readme: &str) -> Vec<Vec<(String, Vec<String>)>> {
    let mut blocks = Vec::new();
    let mut rest = readme;
    while let Some(at) = rest.find("```console\n") {
        let body = &rest[at + "```console\n".len()..];
        let end = body.find("```").expect("a console block is closed");
        let mut steps: Vec<(String, Vec<String>)> = Vec::new();
        for line in body[..end].lines() {
            match line.strip_prefix("$ ") {
                Some(command) => steps.push((command.to_string(), Vec::new())),
                None => steps.last_mut().expect("a block starts with a command").1.push(line.to_string()),
            }
        }
        blocks.push(steps);
        rest = &body[end..];
    }
    blocks
}

/// `line` with every decimal fraction (`0.738`, `652.7`) and the number of `N threads` replaced
/// by `#`: times, rates and sizes such as `57.7 KiB` vary from run to run, and the default thread
/// count from machine to machine; whole numbers (moves, states, counts) must match.
fn masked(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let digits = chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let fraction =
            chars[i + digits..].first() == Some(&'.') && chars.get(i + digits + 1).is_some_and(|c| c.is_ascii_digit());
        let threads = chars[i + digits..].iter().take(8).collect::<String>() == " threads";
        if digits > 0 && threads && (i == 0 || !chars[i - 1].is_ascii_digit()) {
            i += digits;
            out.push('#');
        } else if digits > 0 && fraction && (i == 0 || !chars[i - 1].is_ascii_digit()) {
            i += digits + 1;
            i += chars[i..].iter().take_while(|c| c.is_ascii_digit() || matches!(c, 'e' | '-')).count();
            out.push('#');
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Whether `got` matches `expected`, where an expected line `...` stands for any lines.
fn matches(expected: &[String], got: &[String]) -> bool {
    match expected.split_first() {
        None => got.is_empty(),
        Some((first, rest)) if first == "..." => (0..=got.len()).any(|skip| matches(rest, &got[skip..])),
        Some((first, rest)) => got.first().is_some_and(|g| masked(g) == masked(first)) && matches(rest, &got[1..]),
    }
}

#[test]
fn every_readme_example_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_slidesolve")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let blocks = console_blocks(&readme);
    assert!(blocks.len() >= 15, "{} console blocks", blocks.len());
    let mut ran = 0;
    for steps in blocks {
        // Each block runs in a fresh directory that sees the bundled corpora, as a reader in a
        // checkout would; a block that needs MPI (`mpirun`) is left to the MPI tests.
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(concat!(env!("CARGO_MANIFEST_DIR"), "/corpora"), dir.path().join("corpora"))
            .unwrap();
        for (command, expected) in steps.iter().take_while(|(command, _)| !command.contains("mpirun")) {
            // Standard output and error in one pipe, so that the lines come in the order a
            // reader at a terminal sees them.
            let out = Command::new("bash")
                .args(["-c", &format!("{{ {command}\n}} 2>&1")])
                .current_dir(dir.path())
                .env("PATH", &path)
                .output()
                .unwrap();
            // The batch progress line on a standard error that is not a terminal is described
            // beside the examples, not shown in them.
            let got: Vec<String> = String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .filter(|l| !l.starts_with("batch: "))
                .map(str::to_string)
                .collect();
            assert!(
                matches(expected, &got),
                "README example `{command}`\nREADME:\n{}\nprogram:\n{}",
                expected.join("\n"),
                got.join("\n")
            );
            ran += 1;
        }
    }
    assert!(ran >= 29, "{ran} examples ran");
}

#[test]
fn the_quick_start_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    // The README opens with two commands; the first is the main job, and the first `text` block
    // is what it prints.
    let block = |fence: &str| {
        let body = &readme[readme.find(fence).unwrap() + fence.len()..];
        body[..body.find("```").unwrap()].to_string()
    };
    let first = block("```sh\n").lines().next().unwrap().to_string();
    let command = first.split('#').next().unwrap().trim().strip_prefix("cargo run --release -- ").unwrap();
    let expected: Vec<String> = block("```text\n").lines().map(str::to_string).collect();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(concat!(env!("CARGO_MANIFEST_DIR"), "/corpora"), dir.path().join("corpora")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_slidesolve"))
        .args(command.split_whitespace())
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{command}");
    let got: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect();
    assert!(matches(&expected, &got), "{command}\nREADME:\n{}\nprogram:\n{}", expected.join("\n"), got.join("\n"));
}

#[test]
fn the_example_matcher_masks_fractions_and_expands_ellipses() {
    assert_eq!(
        masked("time: 0.738 s, 652.7 puzzles/s, 16 threads, wall_s 1.5e-5, 12 moves"),
        "time: # s, # puzzles/s, # threads, wall_s #, 12 moves"
    );
    let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    assert!(matches(&lines("a\n...\nz"), &lines("a\nb\nc\nz")));
    assert!(matches(&lines("a\n...\nz"), &lines("a\nz")));
    assert!(!matches(&lines("a\n...\nz"), &lines("a\nb")));
    assert!(!matches(&lines("12 moves"), &lines("13 moves")));
}
