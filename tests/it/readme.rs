//! The documentation is real. Every `$ ndjq …` command in the `console` blocks of README.md
//! and of each page of docs/ (`docs/*.md`, not its subfolders) is
//! run (through `sh`, from the repository root, with this build's `ndjq` first on PATH) and
//! its output must be exactly what the page shows. Every relative link of those pages must
//! lead to a file that exists and, with a `#fragment`, to a heading of that file; every page
//! of docs/ is one click from the README; the README keeps its two commands first and stays
//! short; `--help` and the man pages point to the guide, and every flag the guide's index
//! names is one ndjq has.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One example: the command line and the output shown under it.
struct Example {
    command: String,
    output: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, then every `docs/*.md` in name order (not its subfolders).
fn pages() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    let mut pages = vec![root().join("README.md")];
    pages.extend(docs);
    pages
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The page's name relative to the repository root, for messages.
fn name_of(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

fn examples(page: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut in_console = false;
    let mut in_block = false;
    let mut current: Option<Example> = None;
    for line in page.lines() {
        if line.starts_with("```") {
            if let Some(ex) = current.take() {
                out.push(ex);
            }
            in_block = !in_block;
            in_console = in_block && line == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            if let Some(ex) = current.take() {
                out.push(ex);
            }
            current = Some(Example {
                command: cmd.to_string(),
                output: String::new(),
            });
        } else if let Some(ex) = current.as_mut() {
            ex.output.push_str(line);
            ex.output.push('\n');
        }
    }
    out
}

/// Runs the examples of one page in order; returns a message for each that printed
/// something else than the page shows.
fn failures_of(page: &Path, examples: &[Example]) -> Vec<String> {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_ndjq"))
        .parent()
        .expect("binary folder")
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    // `echo $?` examples report the status of the command before them, so each runs after
    // the one before it, silenced as a whole (a list or a pipeline, in braces).
    let mut script_prefix = String::new();
    for ex in examples {
        let script = format!("{script_prefix}{}", ex.command);
        let out = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .current_dir(root())
            .env_clear()
            .env("PATH", &path)
            .output()
            .expect("sh runs");
        let got = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        if got != ex.output {
            failures.push(format!(
                "{}: `$ {}`\n--- the page shows:\n{}--- ndjq printed:\n{}",
                name_of(page),
                ex.command,
                ex.output,
                got
            ));
        }
        script_prefix = format!("{{ {}\n}} >/dev/null 2>&1; ", ex.command);
    }
    failures
}

#[test]
fn every_console_example_of_the_readme_and_docs_prints_what_it_shows() {
    let mut failures = Vec::new();
    let mut total = 0;
    for page in pages() {
        let examples = examples(&read(&page));
        let least = match name_of(&page).as_str() {
            "README.md" => 6,
            "docs/GUIDE.md" => 20,
            _ => 0,
        };
        assert!(
            examples.len() >= least,
            "{}: found only {} examples",
            name_of(&page),
            examples.len()
        );
        total += examples.len();
        failures.extend(failures_of(&page, &examples));
    }
    assert!(total >= 30, "found only {total} examples in all");
    assert!(
        failures.is_empty(),
        "{} example(s) print something else than their page shows:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_readme_opens_with_the_run_and_test_commands() {
    // .ci/run and the people who try ndjq first rely on these two lines.
    let readme = read(&root().join("README.md"));
    let (_, after) = readme.split_once("```sh\n").expect("a sh block");
    let (block, _) = after.split_once("```").expect("the sh block ends");
    assert_eq!(
        block,
        "cargo run --release --locked -- filter --type assistant testdata/edge/mixed.ndjson\n\
         cargo test --locked\n",
        "the README's first code block is the run and test commands"
    );
    // With two binaries in the package, `cargo run` needs to know which one is meant.
    let manifest = read(&root().join("Cargo.toml"));
    assert!(
        manifest.contains("\ndefault-run = \"ndjq\"\n"),
        "Cargo.toml names ndjq as default-run, so the README's `cargo run` runs it"
    );
    assert!(
        readme.len() < 15 * 1024,
        "README.md is {} bytes: keep it under 15 KB, move the details into docs/",
        readme.len()
    );
}

/// GitHub's anchor of a heading: lower case, spaces to `-`, punctuation other than `-` and
/// `_` dropped (backticks too).
fn slug(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| {
            if c == ' ' {
                Some('-')
            } else if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else {
                None
            }
        })
        .collect()
}

/// The anchors of a markdown page's headings, with GitHub's `-1`, `-2` for repeats.
fn anchors(page: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_block = false;
    for line in page.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block || !line.starts_with('#') {
            continue;
        }
        let text = line.trim_start_matches('#');
        if !text.starts_with(' ') {
            continue;
        }
        let base = slug(text);
        let mut anchor = base.clone();
        let mut n = 0;
        while out.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        out.insert(anchor);
    }
    out
}

/// The targets of the inline links (`[text](target)`) of a page, outside code blocks and
/// code spans.
fn links(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in page.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            continue;
        }
        // Drop code spans, which may hold `](` of their own.
        let mut prose = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                prose.push_str(part);
            }
        }
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_of_the_readme_and_docs_resolves() {
    let mut broken = Vec::new();
    let mut linked_from_readme = BTreeSet::new();
    for page in pages() {
        let text = read(&page);
        let dir = page.parent().expect("a page's folder");
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, fragment) = match target.split_once('#') {
                Some((file, fragment)) => (file, Some(fragment)),
                None => (target.as_str(), None),
            };
            let linked = if file.is_empty() {
                page.clone()
            } else {
                dir.join(file)
            };
            if !linked.exists() {
                broken.push(format!("{}: ({target}): no such file", name_of(&page)));
                continue;
            }
            if name_of(&page) == "README.md" {
                if let Ok(canonical) = linked.canonicalize() {
                    linked_from_readme.insert(canonical);
                }
            }
            if let Some(fragment) = fragment {
                if !anchors(&read(&linked)).contains(fragment) {
                    broken.push(format!(
                        "{}: ({target}): {} has no heading #{fragment}",
                        name_of(&page),
                        name_of(&linked)
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    for page in pages().iter().skip(1) {
        let canonical = page.canonicalize().expect("the page exists");
        assert!(
            linked_from_readme.contains(&canonical),
            "README.md does not link to {}",
            name_of(page)
        );
    }
}

#[test]
fn the_anchor_of_a_heading_is_githubs() {
    assert_eq!(
        slug(" `ndjq filter`: grep for agent streams"),
        "ndjq-filter-grep-for-agent-streams"
    );
    assert_eq!(
        slug(" The `ndjq.stats/1` JSON schema"),
        "the-ndjqstats1-json-schema"
    );
    assert_eq!(
        anchors("# A\n## A\n```\n# not a heading\n```\n#nope\n"),
        BTreeSet::from(["a".to_string(), "a-1".to_string()])
    );
    assert_eq!(
        links("see [x](a.md#b) and `[y](not.md)`, [z](#c)"),
        vec!["a.md#b".to_string(), "#c".to_string()]
    );
}

#[test]
fn the_help_and_every_man_page_point_to_the_guide() {
    assert!(root().join("docs/GUIDE.md").is_file());
    assert!(root().join("docs/REFERENCE.md").is_file());
    let out = Command::new(env!("CARGO_BIN_EXE_ndjq"))
        .arg("--help")
        .env_clear()
        .output()
        .expect("ndjq runs");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("docs/GUIDE.md") && help.contains("docs/REFERENCE.md"),
        "`ndjq --help` names the guide and the reference:\n{help}"
    );
    let mut pages = 0;
    for entry in std::fs::read_dir(root().join("man")).expect("man/ exists") {
        let path = entry.expect("a folder entry").path();
        let page = read(&path);
        assert!(
            page.contains("docs/GUIDE.md"),
            "{} names the guide",
            name_of(&path)
        );
        pages += 1;
    }
    assert!(pages >= 8, "only {pages} man pages");
}

/// The flags named in the first column of the guide's "Every flag" table.
fn flags_in_the_guide_index(guide: &str) -> Vec<String> {
    let (_, index) = guide
        .split_once("\n## Every flag\n")
        .expect("the guide has an `Every flag` section");
    let mut flags = Vec::new();
    for row in index.lines().filter(|l| l.starts_with("| `")) {
        let first = row.split('|').nth(1).unwrap_or_default();
        for word in first.split(['`', ',', ' ']) {
            let is_flag = word.len() > 1
                && word.starts_with('-')
                && word[1..]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-')
                && word != "--";
            if is_flag {
                flags.push(word.to_string());
            }
        }
    }
    flags
}

#[test]
fn every_flag_the_guide_indexes_is_a_flag_of_ndjq() {
    let guide = read(&root().join("docs/GUIDE.md"));
    let flags = flags_in_the_guide_index(&guide);
    assert!(flags.len() >= 40, "only {} flags in the index", flags.len());
    let mut helps = String::new();
    for command in [
        "validate",
        "gaps",
        "filter",
        "events",
        "stats",
        "report",
        "run",
        "statusline",
        "man",
        "completions",
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_ndjq"))
            .args([command, "--help"])
            .env_clear()
            .output()
            .expect("ndjq runs");
        helps.push_str(&String::from_utf8_lossy(&out.stdout));
    }
    let top = Command::new(env!("CARGO_BIN_EXE_ndjq"))
        .arg("--help")
        .env_clear()
        .output()
        .expect("ndjq runs");
    helps.push_str(&String::from_utf8_lossy(&top.stdout));
    for flag in &flags {
        // A flag in a help text is followed by a space, a comma or `=`/`<`.
        let known = [" ", ",", "\n"]
            .iter()
            .any(|after| helps.contains(&format!("{flag}{after}")));
        assert!(known, "the guide indexes `{flag}`, which no --help lists");
    }
}
