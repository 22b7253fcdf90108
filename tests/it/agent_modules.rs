//! The engines name no agent: what each agent's records mean is read by its module under
//! src/dialect/ and reached through the registry (docs/DESIGN.md, "Adding an agent").
//! Adding an agent must not need an arm in any file outside src/dialect/.

use std::path::{Path, PathBuf};

/// The text of `file`, a path under the crate's root.
fn text_of(file: &Path) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    std::fs::read_to_string(&path).expect("a source file of the crate")
}

/// Every `.rs` file under `dir` (a path under the crate's root), as paths from the root.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut entries: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
        .expect("a source folder")
        .map(|e| dir.join(e.expect("a folder entry").file_name()))
        .collect();
    entries.sort();
    for path in entries {
        if root.join(&path).is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The `Dialect::<Variant>` names in `code`: a CamelCase name after `Dialect::` (the
/// registry's constants, `Dialect::ALL` and `Dialect::LISTED`, and its functions are not
/// variants).
fn variants_named(code: &str) -> Vec<String> {
    code.match_indices("Dialect::")
        .filter_map(|(at, m)| {
            let rest = &code[at + m.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            (name.starts_with(|c: char| c.is_ascii_uppercase())
                && name.contains(|c: char| c.is_ascii_lowercase()))
            .then_some(name)
        })
        .collect()
}

/// Every source file outside the agent modules (src/dialect/, the registry among them)
/// and the data generator (examples/ndjq-gen, which writes each agent's records on
/// purpose) names no agent's variant, in its code or its tests: a test that needs a
/// dialect asks the registry by name (`Dialect::parse("claude")`).
#[test]
fn no_file_outside_the_agent_modules_names_an_agent() {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    let outside =
        |p: &PathBuf| !p.starts_with("src/dialect") && !p.starts_with("examples/ndjq-gen");
    let checked: Vec<&PathBuf> = files.iter().filter(|p| outside(p)).collect();
    for must in [
        "src/gaps/mod.rs",
        "src/gaps/apply.rs",
        "src/capped.rs",
        "src/filter/grep.rs",
        "src/event.rs",
        "src/cli/args/mod.rs",
    ] {
        assert!(
            checked.iter().any(|p| *p == Path::new(must)),
            "{must} is checked"
        );
    }
    assert!(checked.len() > 40, "only {} files checked", checked.len());
    let mut named = Vec::new();
    for file in checked {
        let found = variants_named(&text_of(file));
        if !found.is_empty() {
            named.push(format!("{}: {}", file.display(), found.join(", ")));
        }
    }
    assert!(
        named.is_empty(),
        "agents named outside src/dialect/:\n{}",
        named.join("\n")
    );
    // The check itself finds a named variant, and not the registry's own names.
    assert_eq!(
        variants_named("match d { Dialect::Codex => 1, _ => Dialect::input_end(d) }"),
        ["Codex"]
    );
    assert_eq!(
        variants_named("Dialect::LISTED.len(); Dialect::ALL; Dialect::JsonRpc"),
        ["JsonRpc"]
    );
}
