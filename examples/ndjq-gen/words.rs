//! Word lists and line templates the generated texts are made of: code, shell output,
//! prose, prompts and stderr noise, with non-ASCII text, escapes and ANSI colour codes where
//! real agent output has them. A template's `{a}`..`{d}` are words, `{A}`..`{C}` capitalised
//! words, `{n}` and `{m}` numbers; `{{` and `}}` are literal braces.

/// Identifiers and nouns.
pub const WORDS: &[&str] = &[
    "config",
    "parser",
    "buffer",
    "stream",
    "token",
    "session",
    "handler",
    "result",
    "error",
    "value",
    "index",
    "count",
    "reader",
    "writer",
    "line",
    "record",
    "schema",
    "event",
    "message",
    "usage",
    "cache",
    "client",
    "server",
    "request",
    "response",
    "state",
    "model",
    "input",
    "output",
    "path",
    "file",
    "entry",
    "item",
    "node",
    "tree",
    "span",
    "cursor",
    "offset",
    "limit",
    "batch",
    "filter",
    "decoder",
    "encoder",
    "frame",
    "chunk",
    "queue",
    "worker",
    "task",
    "metrics",
    "report",
    "summary",
    "validator",
];

/// Claude models; the first is the most common.
pub const CLAUDE_MODELS: &[&str] = &[
    "claude-sonnet-4-5-20250929",
    "claude-opus-4-1-20250805",
    "claude-haiku-4-5-20251001",
    "claude-sonnet-4-20250514",
];

/// USD per million tokens: input, output, cache write, cache read (same order as
/// [`CLAUDE_MODELS`]).
pub const CLAUDE_PRICES: &[(f64, f64, f64, f64)] = &[
    (3.0, 15.0, 3.75, 0.3),
    (15.0, 75.0, 18.75, 1.5),
    (1.0, 5.0, 1.25, 0.1),
    (3.0, 15.0, 3.75, 0.3),
];

/// The tools a `system/init` line lists.
pub const TOOLS: &[&str] = &[
    "Task",
    "Bash",
    "Glob",
    "Grep",
    "ExitPlanMode",
    "Read",
    "Edit",
    "Write",
    "NotebookEdit",
    "WebFetch",
    "TodoWrite",
    "WebSearch",
    "BashOutput",
    "KillShell",
    "SlashCommand",
    "mcp__github__create_issue",
    "mcp__github__get_pull_request",
];

/// Tool-use weights: how often each tool is called.
pub const TOOL_MIX: &[(&str, u32)] = &[
    ("Read", 30),
    ("Bash", 25),
    ("Edit", 15),
    ("Grep", 10),
    ("Glob", 5),
    ("Write", 4),
    ("TodoWrite", 5),
    ("Task", 2),
    ("WebFetch", 1),
    ("WebSearch", 1),
    ("BashOutput", 1),
    ("mcp__github__create_issue", 1),
];

/// Comment lines in many scripts (2-, 3- and 4-byte UTF-8).
pub const UNICODE_COMMENTS: &[&str] = &[
    "// Überprüfe die Eingabe und die Länge",
    "# 日本語のコメント: 入力を検証する",
    "// проверка длины строки",
    "/* ✓ fixed → see #1234 */",
    "// emoji ok 🚀✨ (4-byte UTF-8)",
    "# café naïve résumé — “smart quotes”",
    "// 中文注释：解析每一行",
    "// ελληνικά: ανάλυση γραμμής",
    "-- العربية: تحليل",
    "// ½ × ¾ ≠ ∞ ≤ ≥ ±",
];

/// Source code lines.
pub const CODE_TEMPLATES: &[&str] = &[
    "    let {a} = {b}.{c}(&{d})?;",
    "    if {a}.len() > {n} {{ return Err(Error::new(format!(\"{a} too long: {{}}\", {a}.len()))); }}",
    "        println!(\"{a}={{:?}} {b}=\\\"{{}}\\\"\", {a}, {b});",
    "    re = re.compile(r\"^(\\d+)\\s+([a-z_]+)\\t(.*)$\")",
    "    path = \"C:\\\\Users\\\\dev\\\\{a}\\\\{b}.txt\"",
    "\tconst {a} = await fetch(`${{base}}/api/{b}?id=${{{c}}}`);",
    "func ({a} *{B}) {C}(ctx context.Context) error {{",
    "}}",
    "",
    "    }}",
    "    assert_eq!({a}, \"héllo wörld 🚀\");",
    "    s = \"tab\\there\\nnewline\"  # {a}",
    "pub fn {a}_{b}(&mut self, {c}: &[u8]) -> Result<{B}, {C}Error> {{",
    "    for (i, {a}) in {b}.iter().enumerate() {{",
    "        self.{a}.insert({b}.clone(), {n});",
    "def {a}_{b}(self, {c}: str = \"{d}\") -> dict[str, int]:",
    "        return {{\"{a}\": {n}, \"{b}\": '{c}', \"ok\": True}}",
    "import {{ {B}, {C} }} from \"./{a}/{b}\";",
    "    #[derive(Debug, Clone, Serialize, Deserialize)]",
    "    match {a} {{ Some(x) => x, None => return Ok(()), }}",
    "        log::debug!(\"{a}: {{}} bytes in {{:?}}\", n, elapsed);",
    "    // {b} the {c} before {d}ing",
    "    if err != nil {{ return fmt.Errorf(\"{a}: %w\", err) }}",
    "        '{a}': r'\\b{b}\\b',",
    "    json_line = '{{\"type\":\"{a}\",\"n\":{n}}}'",
];

/// Shell output lines, some with ANSI colour codes.
pub const BASH_TEMPLATES: &[&str] = &[
    "   Compiling {a} v0.{n}.{m}",
    "\u{1b}[1m\u{1b}[32m    Finished\u{1b}[0m `test` profile [unoptimized + debuginfo] target(s) in {n}.{m}s",
    "test {a}::tests::{b}_{c} ... \u{1b}[32mok\u{1b}[0m",
    "test {a}::tests::{b} ... \u{1b}[31mFAILED\u{1b}[0m",
    "\u{1b}[0m\u{1b}[1m\u{1b}[38;5;9merror[E0308]\u{1b}[0m\u{1b}[0m\u{1b}[1m: mismatched types\u{1b}[0m",
    "  --> src/{a}.rs:{n}:{m}",
    "thread 'main' panicked at src/{a}.rs:{n}:{m}:",
    "called `Result::unwrap()` on an `Err` value: Os {{ code: 2, kind: NotFound, message: \"No such file or directory\" }}",
    "{a}.py:{n}: AssertionError: assert '{b}' == \"{c}\"",
    "drwxr-xr-x  5 dev dev  4096 Mar 14 10:2{m} {a}",
    "-rw-r--r--  1 dev dev {n} Mar 14 10:2{m} {a}.rs",
    "npm WARN deprecated {a}@{n}.{m}.0: This package is no longer supported.",
    " {n} files changed, {m} insertions(+), {m} deletions(-)",
    "M  src/{a}.rs",
    "✓ {a} › {b} ({n} ms)",
    "✗ {a} › {b} — expected \"{c}\" got \"{d}\"",
    "warning: unused variable: `{a}`",
    "\tmodified:   src/{a}/{b}.rs",
    "FAILED tests/test_{a}.py::test_{b}_{c} - KeyError: '{d}'",
    "{{\"level\":\"info\",\"msg\":\"{a} {b}\",\"n\":{n}}}",
];

/// Assistant prose, Markdown included.
pub const PROSE_TEMPLATES: &[&str] = &[
    "I'll start by reading `src/{a}.rs` to understand how the {b} is handled.",
    "The test failure is caused by `{a}` returning `None` when the {b} is empty.",
    "Let me check the `{a}` function — it looks like it doesn't handle the \"{b}\" case.",
    "Now I need to update the {a} so that it streams lines instead of buffering the whole {b}.",
    "**Summary:**\n\n- Fixed `{a}` in `src/{b}.rs`\n- Added a test for the {c}\n- All {n} tests pass ✓",
    "Here's the plan:\n1. Parse each {a}\n2. Dispatch on `type`\n3. Aggregate the {b} per {c}",
    "The user wants me to fix the {a}. I should first look at the existing {b} implementation, then decide whether the {c} needs to change.",
    "Hmm, the error says `expected struct {A}, found enum Option<{A}>`. That means the {b} lookup can fail here.",
    "Let me run the tests again to confirm the fix works.",
    "Das sollte jetzt funktionieren — bitte prüfen. これで動作するはずです。",
    "```rust\nfn {a}(&self) -> Option<&{B}> {{\n    self.{b}.get(\"{c}\")\n}}\n```",
    "Wait, the {a} is read twice: once in `{b}()` and again in `{c}()`. I'll cache it in a field.",
    "Good — {n} passed, 0 failed. The {a} change is complete.",
];

/// User prompts.
pub const USER_PROMPTS: &[&str] = &[
    "Fix the failing test in {a}",
    "Add a --{a} flag to the CLI that filters by {b}",
    "why does `cargo build` fail with E0308 in src/{a}.rs?",
    "refactor the {a} module, keep the public API",
    "Please review this diff and tell me if the {a} handling is correct:\n```diff\n- let {a} = {b};\n+ let {a} = {b}.clone();\n```",
    "continue",
    "yes",
    "run the tests",
    "Écris un test pour {a} — merci !",
];

/// Non-JSON lines a merged stdout/stderr log holds.
pub const NOISE_LINES: &[&str] = &[
    "Warning: NODE_TLS_REJECT_UNAUTHORIZED is set to 0",
    "(node:48213) ExperimentalWarning: The Fetch API is an experimental feature.",
    "Error: spawn rg ENOENT",
    "[DEBUG] MCP server \"github\": connection established",
    "Warning: no stdin data received in 3s, proceeding without it",
    "Killed",
    "npm notice New minor version of npm available! 10.2.4 -> 10.9.0",
];
