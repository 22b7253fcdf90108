//! The engines name no agent: what each agent's records mean is read by its module under
//! src/dialect/ and reached through the registry (docs/DESIGN.md, "Adding an agent").
//! Adding an agent must not need an arm in these files.

use std::path::Path;

/// The code of `file` (its tests, which may name any dialect, left out).
fn code_of(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(&path).expect("a source file of the crate");
    match text.find("#[cfg(test)]") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// The `Dialect::<Variant>` names in `code`.
fn variants_named(code: &str) -> Vec<String> {
    code.match_indices("Dialect::")
        .filter_map(|(at, m)| {
            let rest = &code[at + m.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            name.starts_with(|c: char| c.is_ascii_uppercase())
                .then_some(name)
        })
        .collect()
}

#[test]
fn gap_trackers_and_grep_search_name_no_agent() {
    for file in ["src/gaps.rs", "src/filter/grep.rs"] {
        let code = code_of(file);
        assert!(code.len() > 1000, "{file} read");
        assert_eq!(variants_named(&code), Vec::<String>::new(), "{file}");
    }
    // The check itself finds a named variant.
    assert_eq!(
        variants_named("match d { Dialect::Codex => 1, _ => Dialect::input_end(d) }"),
        ["Codex"]
    );
}
