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
        "src/event/mod.rs",
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

/// `code` without its comments (`//`, `///`, `//!` and `/* */`), its string and char
/// literals kept: an agent named in a comment is documentation, named in a literal it is
/// code.
fn code_of(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                i = end;
            }
            b'r' if matches!(b.get(i + 1), Some(b'"' | b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                // A raw string: r"...", r#"..."#, ...
                let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    out.push(b[i]);
                    i += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let body = i + 2 + hashes;
                let end = text[body..]
                    .find(&close)
                    .map_or(b.len(), |e| body + e + close.len());
                out.extend_from_slice(&b[i..end]);
                i = end;
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                out.extend_from_slice(&b[start..i]);
            }
            // A char literal ('"', '\'', 'x'), not a lifetime.
            b'\'' if b.get(i + 1) == Some(&b'\\') => {
                let end = text[i + 2..].find('\'').map_or(b.len(), |e| i + 2 + e + 1);
                out.extend_from_slice(&b[i..end]);
                i = end;
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') => {
                out.extend_from_slice(&b[i..i + 3]);
                i += 3;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether `code` holds `word` as a whole word (not inside a longer identifier: letters,
/// digits and `_` around it end no word), whatever its case.
fn holds_word(code: &str, word: &str) -> bool {
    let lower = code.to_ascii_lowercase();
    let inside = |c: Option<u8>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_');
    lower.match_indices(word).any(|(at, m)| {
        !inside(at.checked_sub(1).map(|p| lower.as_bytes()[p]))
            && !inside(lower.as_bytes().get(at + m.len()).copied())
    })
}

/// Each agent: its name, its distinctive record-type literals, and the most files outside
/// src/dialect/ (and examples/ndjq-gen) whose code may name it. The ceilings are today's
/// counts: they may only go down (docs/DESIGN.md, "Adding an agent": an agent is named in
/// at most two files outside its module). What remains is user-facing text naming the
/// agent a message is about (`stats --merge`'s old-schema error, the statusline's empty
/// stdin) and a provider prefix in the price table (`gemini/`, a model
/// provider's name). Files under src/cli/args/ are not counted: the
/// agents they name are examples in the help, and help text is the user's documentation
/// (the man pages and completions are generated from it). A model name (`claude-opus-4-1`,
/// `gpt-5-codex`) is not the agent: see `without_model_names`.
const AGENTS: &[(&str, &[&str], usize)] = &[
    ("claude", &["\"message_delta\""], 1),
    (
        "codex",
        &[
            "\"response_item\"",
            "\"turn_context\"",
            "\"item.completed\"",
            "\"item.started\"",
            "\"thread.started\"",
            "\"session_meta\"",
        ],
        1,
    ),
    ("gemini", &[], 1),
    ("qwen", &[], 0),
    ("cursor", &[], 0),
    ("opencode", &["\"step_finish\""], 0),
    (
        "copilot",
        &["\"tool.execution_start\"", "\"tool.execution_complete\""],
        0,
    ),
];

/// Whether `path` holds the command line's definitions and help (src/cli/args/): help
/// text is the user's documentation, not code that knows an agent.
fn is_help_text(path: &Path) -> bool {
    path.starts_with("src/cli/args")
}

/// `code` with every model name blanked: a model name is a run of letters, digits, `.`,
/// `_`, `/` and `-` that holds a `-` and a digit (`claude-opus-4-1`, `gpt-5.1-codex`,
/// `gemini-2.5-pro`). An agent's own name (`claude`, `cursor-agent`) holds no digit.
fn without_model_names(code: &str) -> String {
    let part = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '/' | '-');
    let mut out = String::with_capacity(code.len());
    let mut token = String::new();
    let flush = |token: &mut String, out: &mut String| {
        let model = token.contains('-') && token.contains(|c: char| c.is_ascii_digit());
        if !model {
            out.push_str(token);
        }
        token.clear();
    };
    for c in code.chars() {
        if part(c) {
            token.push(c);
        } else {
            flush(&mut token, &mut out);
            out.push(c);
        }
    }
    flush(&mut token, &mut out);
    out
}

/// Each agent is named, by its name or one of its record types, in the code of at most
/// its ceiling of files outside the agent modules: what it means lives in its module
/// (docs/DESIGN.md, "Adding an agent").
#[test]
fn each_agent_is_named_in_few_files_outside_its_module() {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    let code: Vec<(PathBuf, String)> = files
        .into_iter()
        .filter(|p| !p.starts_with("src/dialect") && !p.starts_with("examples/ndjq-gen"))
        .filter(|p| !is_help_text(p))
        // `std::io::Cursor` is not the agent.
        .map(|p| {
            let code = without_model_names(&code_of(&text_of(&p)).replace("io::Cursor", "io::"));
            (p, code)
        })
        .collect();
    let mut over = Vec::new();
    for (agent, literals, ceiling) in AGENTS {
        let naming: Vec<String> = code
            .iter()
            .filter(|(_, c)| holds_word(c, agent) || literals.iter().any(|l| c.contains(l)))
            .map(|(p, _)| p.display().to_string())
            .collect();
        if naming.len() > *ceiling {
            over.push(format!(
                "{agent}: named in {} files (ceiling {ceiling}): {}",
                naming.len(),
                naming.join(", ")
            ));
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
    // The check finds a name in code and a record type, not in a comment.
    assert!(holds_word(
        &code_of("let d = \"Codex\"; // gemini"),
        "codex"
    ));
    assert!(!holds_word(
        &code_of("let d = 1; // gemini\n/// qwen"),
        "gemini"
    ));
    assert!(!holds_word(&code_of("/// qwen\nfn f() {}"), "qwen"));
    assert!(!holds_word("claude_top", "claude"));
    assert!(code_of("r#\"{\"type\":\"turn_context\"}\"# // x").contains("\"turn_context\""));
    assert!(!code_of("let s = \"http://x\"; // codex").contains("codex"));
    // A model name is not its maker's agent; the agent's own name is.
    let models = without_model_names(r#"["claude-opus-4-1", "gpt-5.1-codex", "gemini-2.5-pro"]"#);
    assert!(!["claude", "codex", "gemini"]
        .iter()
        .any(|a| holds_word(&models, a)));
    assert!(holds_word(
        &without_model_names("\"cursor-agent\""),
        "cursor"
    ));
    assert!(holds_word(
        &without_model_names("(\"claude\", 1)"),
        "claude"
    ));
    assert!(is_help_text(Path::new("src/cli/args/run.rs")));
    assert!(!is_help_text(Path::new("src/cli/cmd/run.rs")));
}

/// No file outside src/dialect/ reaches into an agent's module: the engines and the
/// commands use the registry's neutral items (`Dialect`, `RecordInfo`, the stats facts,
/// the store facade), never `dialect::<agent>::...`.
#[test]
fn no_file_outside_the_agent_modules_imports_an_agent_module() {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The agents are the modules of src/dialect/ that have a descriptor.
    let mut agents: Vec<String> = std::fs::read_dir(root.join("src/dialect"))
        .expect("src/dialect")
        .filter_map(|e| {
            let path = e.expect("an entry").path();
            let stem = path.file_stem()?.to_str()?.to_string();
            let text = std::fs::read_to_string(&path).ok()?;
            text.contains("static AGENT: Agent").then_some(stem)
        })
        .collect();
    agents.sort();
    assert!(agents.len() >= 10, "agents found: {agents:?}");
    let mut reaching = Vec::new();
    for file in files.iter().filter(|p| !p.starts_with("src/dialect")) {
        let code = code_of(&text_of(file));
        for agent in &agents {
            if code.contains(&format!("dialect::{agent}::"))
                || code.contains(&format!("dialect::{agent};"))
                || code.contains(&format!("dialect::{{{agent}"))
            {
                reaching.push(format!("{}: {agent}", file.display()));
            }
        }
    }
    assert!(reaching.is_empty(), "{}", reaching.join("\n"));
}
