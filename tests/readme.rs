//! The README's examples are real: every `$ ndjq …` command in its `console` blocks is run
//! (through `sh`, from the repository root, with this build's `ndjq` first on PATH) and its
//! output must be exactly what the README shows.

use std::path::Path;
use std::process::Command;

/// README.md is not edited here (issue 18 moves it into docs/), and one of its examples
/// still reads the corpus of real captures at its old place beside the checkout, which a
/// fresh clone does not have. The corpus is now `testdata/corpus` (the same bytes), so the
/// example runs on that copy, its output compared the same way. Remove this, and its
/// exclusion in `.ci/run`, once the README names `testdata/corpus/`.
const OLD_CORPUS: &str = "../shared/corpus/";
const CORPUS: &str = "testdata/corpus/";

/// One example: the command line and the output shown under it.
struct Example {
    command: String,
    output: String,
}

fn examples(readme: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut in_console = false;
    let mut current: Option<Example> = None;
    for line in readme.lines() {
        if line.starts_with("```") {
            if let Some(ex) = current.take() {
                out.push(ex);
            }
            in_console = !in_console && line == "```console";
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
                command: cmd.replace(OLD_CORPUS, CORPUS),
                output: String::new(),
            });
        } else if let Some(ex) = current.as_mut() {
            ex.output.push_str(&line.replace(OLD_CORPUS, CORPUS));
            ex.output.push('\n');
        }
    }
    out
}

#[test]
fn every_console_example_in_the_readme_prints_what_it_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let examples = examples(&readme);
    assert!(
        examples.len() >= 8,
        "found only {} examples",
        examples.len()
    );
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_ndjq"))
        .parent()
        .expect("binary folder")
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // `echo $?` examples report the status of the command before them.
    let mut script_prefix = String::new();
    for ex in &examples {
        let script = format!("{script_prefix}{}", ex.command);
        let out = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .current_dir(root)
            .env_clear()
            .env("PATH", &path)
            .output()
            .expect("sh runs");
        let got = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert_eq!(got, ex.output, "README example `$ {}`", ex.command);
        script_prefix = format!("{} >/dev/null 2>&1; ", ex.command);
    }
}
