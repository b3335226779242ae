//! The documentation runs as written. Every `rete` command shown in README.md and docs/*.md is in
//! a `console` block, which trycmd runs (outputs compared, `[..]` and `...` standing for what
//! varies) on the files the blocks themselves generate and on `samples/`; a URL
//! (`https://example.org/data/…`) is served from 127.0.0.1 by this test, the address put in its
//! place. Blocks of other commands are listed in [`NOT_RUN`] with the reason. Inline synopses
//! (`rete reach FILE -p P …`) and docs/cli.md are checked against `--help`, so they never drift.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Shell lines the docs show that are not `rete` commands and are not run here, with why.
const NOT_RUN: &[(&str, &str)] = &[
    (
        "cargo build --release -p rete-cli",
        "builds the binary; the tests run the one cargo built for them",
    ),
    (
        "bash scripts/setup.sh",
        "installs system packages (CI runs it before everything)",
    ),
    ("bash scripts/test.sh", "runs every test, this one included"),
    (
        "bash .ci/app.sh",
        "builds and tests the desktop app (CI runs it)",
    ),
    (
        "npm ",
        "the desktop app's commands (docs/app.md); CI runs them through .ci/app.sh",
    ),
    (
        "RETE_FIXTURES=",
        "the desktop app's Rust tests (docs/app.md); CI runs them through .ci/app.sh",
    ),
    (
        "cargo test -p rete-desktop",
        "the desktop shell's unit tests (docs/app.md); CI runs them through .ci/app.sh",
    ),
    (
        "cargo run -p rete-explore",
        "the desktop app's fixtures (docs/app.md); CI runs them through .ci/app.sh",
    ),
    (
        "rete serve ",
        "runs until stopped; tests/remote.rs runs it, crates/rete-server/tests every route",
    ),
    (
        "curl ",
        "a request to a running `rete serve` (docs/serve.md); crates/rete-server/tests/http.rs sends them",
    ),
];

/// The datasets of `rete generate`, each a sub-command with its own options.
const DATASETS: &[&str] = &["social", "bsbm"];

/// Where URLs in the docs point; the test serves the case's directory there instead.
const DOC_URL: &str = "https://example.org/data/";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// README.md and docs/*.md.
fn docs() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    out.extend(pages);
    out
}

/// A fenced code block: its info string and its lines.
struct Block {
    lang: String,
    lines: Vec<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut current: Option<Block> = None;
    for line in text.lines() {
        let fence = line.trim_start().starts_with("```");
        match (&mut current, fence) {
            (None, true) => {
                current = Some(Block {
                    lang: line.trim_start().trim_start_matches('`').trim().to_owned(),
                    lines: Vec::new(),
                })
            }
            (Some(_), true) => out.extend(current.take()),
            (Some(b), false) => b.lines.push(line.to_owned()),
            (None, false) => {}
        }
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn every_documented_command_runs_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let cases = trycmd::TestCases::new();
    cases.register_bin("rete", PathBuf::from(env!("CARGO_BIN_EXE_rete")));
    let mut run = 0;
    for doc in docs() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let console: Vec<Block> = blocks(&text)
            .into_iter()
            .filter(|b| b.lang == "console")
            .collect();
        if console.is_empty() {
            continue;
        }
        // One case per page: its console blocks in order, run in a directory holding samples/
        // and served over HTTP for the URLs.
        let stem = doc.file_stem().unwrap().to_string_lossy().to_lowercase();
        let base = dir.path().join(format!("{stem}.in"));
        copy_dir(&root().join("samples"), &base.join("samples"));
        let url = format!("{}/", common::serve_dir(base.clone()));
        let mut case = String::new();
        for b in console {
            case.push_str("```console\n");
            let mut in_output = false;
            for l in b.lines {
                // trycmd drops the newline that ends an expected output (it reads the fence or
                // the next prompt as the end); the command's output has one: keep it.
                if l.starts_with("$ ") && in_output {
                    case.push('\n');
                }
                in_output = !l.starts_with("$ ") && !l.starts_with("? ");
                case.push_str(&l.replace(DOC_URL, &url));
                case.push('\n');
            }
            if in_output {
                case.push('\n');
            }
            case.push_str("```\n\n");
        }
        let path = dir.path().join(format!("{stem}.md"));
        std::fs::write(&path, case).unwrap();
        cases.case(path);
        run += 1;
    }
    assert!(run >= 2, "README.md and docs/cli.md have console blocks");
    cases.run();
}

/// A shell line of a non-console block: what it runs, without a prompt or a comment.
fn command_of(line: &str) -> Option<&str> {
    let l = line.trim();
    let l = l.strip_prefix("$ ").unwrap_or(l);
    (!l.is_empty() && !l.starts_with('#')).then_some(l)
}

#[test]
fn no_rete_command_is_shown_without_being_run() {
    let mut problems = Vec::new();
    for doc in docs() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for b in blocks(&text) {
            if b.lang == "console" {
                continue;
            }
            let shell = matches!(b.lang.as_str(), "sh" | "bash" | "shell");
            for l in b.lines.iter().filter_map(|l| command_of(l)) {
                let listed = NOT_RUN.iter().any(|(prefix, _)| l.starts_with(prefix));
                if l.starts_with("rete ") && !listed {
                    problems.push(format!(
                        "{}: `{l}` is shown in a {:?} block: put it in a console block",
                        doc.display(),
                        b.lang
                    ));
                } else if shell && !listed {
                    problems.push(format!(
                        "{}: `{l}` is neither run nor listed in NOT_RUN",
                        doc.display()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn help(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_rete"))
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(o.status.success(), "rete {args:?} --help");
    String::from_utf8(o.stdout).unwrap()
}

/// The long options (`--name`) a help text or a doc span names.
fn long_options(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("--") {
        let name: String = text[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        let before = text[..i].chars().next_back();
        let starts_well = name.starts_with(|c: char| c.is_ascii_alphanumeric());
        if starts_well && before.is_none_or(|c| !c.is_alphanumeric() && c != '-') {
            out.insert(name);
        }
    }
    out.remove("help");
    out.remove("version");
    out
}

/// The commands `rete --help` lists.
fn subcommands() -> Vec<String> {
    let top = help(&[]);
    let mut out = Vec::new();
    let mut in_commands = false;
    for l in top.lines() {
        if l.starts_with("Commands:") {
            in_commands = true;
        } else if in_commands {
            match l.split_whitespace().next() {
                Some(name) if l.starts_with("  ") && name != "help" => out.push(name.to_owned()),
                Some(_) if l.starts_with("  ") => {}
                _ => break,
            }
        }
    }
    out
}

/// The `rete …` inline code spans of a page.
fn synopses(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("`rete ") {
        let span = &rest[i + 1..];
        let Some(end) = span.find('`') else { break };
        out.push(span[..end].to_owned());
        rest = &span[end..];
    }
    out
}

#[test]
fn synopses_in_the_docs_name_real_commands_and_options() {
    let commands = subcommands();
    assert!(commands.contains(&"prefixes".to_owned()), "{commands:?}");
    let mut problems = Vec::new();
    for doc in docs() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for span in synopses(&text) {
            let Some(sub) = span.split_whitespace().nth(1) else {
                continue;
            };
            if !commands.iter().any(|c| c == sub) {
                problems.push(format!("{}: `{span}`: no command {sub}", doc.display()));
                continue;
            }
            let words: Vec<&str> = span.split_whitespace().collect();
            let dataset = words.get(2).filter(|d| DATASETS.contains(d));
            let known = if let (true, Some(d)) = (sub == "generate", dataset) {
                long_options(&help(&["generate", d]))
            } else {
                long_options(&help(&[sub]))
            };
            for o in long_options(&span) {
                if !known.contains(&o) {
                    problems.push(format!("{}: `{span}`: no option --{o}", doc.display()));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn cli_reference_matches_help() {
    let text = std::fs::read_to_string(root().join("docs/cli.md")).unwrap();
    let mut problems = Vec::new();
    // `generate` has one sub-command per dataset, each with its section.
    let commands = subcommands().into_iter().flat_map(|sub| {
        if sub == "generate" {
            DATASETS
                .iter()
                .map(|d| vec![sub.clone(), d.to_string()])
                .collect()
        } else {
            vec![vec![sub]]
        }
    });
    for words in commands {
        let sub = words.join(" ");
        let heading = format!("## `rete {sub}");
        let Some(start) = text.find(&heading) else {
            problems.push(format!("docs/cli.md has no section {heading}`"));
            continue;
        };
        let section = &text[start..];
        let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let help_text = help(&words);
        assert!(
            help_text.contains("Example:\n  rete "),
            "rete {sub} --help shows an example"
        );
        let documented = long_options(section);
        let mut real = long_options(&help_text);
        // Global, documented once at the top of the page.
        for global in ["stats", "allow-redirect-host", "follow-redirects"] {
            real.remove(global);
        }
        for o in real.difference(&documented) {
            problems.push(format!("docs/cli.md, rete {sub}: --{o} is not documented"));
        }
        for o in documented.difference(&real) {
            problems.push(format!("docs/cli.md, rete {sub}: --{o} does not exist"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn bare_rete_prints_a_tour_that_runs() {
    let o = Command::new(env!("CARGO_BIN_EXE_rete")).output().unwrap();
    assert!(o.status.success());
    let tour = String::from_utf8(o.stdout).unwrap();
    let commands: Vec<&str> = tour
        .lines()
        .filter(|l| l.starts_with("  rete "))
        .map(str::trim)
        .collect();
    assert!(commands.len() >= 6, "{tour}");
    let known = subcommands();
    for c in &commands {
        let sub = c.split_whitespace().nth(1).unwrap();
        assert!(known.iter().any(|k| k == sub), "{c}");
    }
    // The tour runs as printed, in a fresh directory.
    let dir = tempfile::tempdir().unwrap();
    for c in commands {
        let args: Vec<String> = shlex_split(c.split(" # ").next().unwrap());
        let out = Command::new(env!("CARGO_BIN_EXE_rete"))
            .args(&args[1..])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{c}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Splits a command line the way a shell would for the tour's simple quoting (single quotes).
fn shlex_split(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}
