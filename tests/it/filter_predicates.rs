//! `ndjq filter`'s predicates (`--where` with each operator and `*`, `--grep`,
//! `--since`/`--until`, `--print`, `-0`) on two real Claude Code transcripts
//! (testdata/filter), each against the output of the equivalent jq program.
//!
//! The expected outputs are committed under testdata/expected/filter/ (written by jq:
//! `NDJQ_BLESS=1 cargo test --test it filter_predicates::`), so the test never needs jq; when
//! jq is installed, it is also run and must still agree. A selection is compared as the
//! `file:line` of each selected record (jq's `input_filename` and `input_line_number`; for
//! ndjq, the input line its output line is, byte for byte); `--print` output as text.

use crate::support;

use std::path::PathBuf;
use std::process::Command;
use support::{data, lines, ndjq, read, root, show};

const FILES: [&str; 2] = [
    "testdata/filter/full-session.jsonl",
    "testdata/filter/tool-heavy.jsonl",
];

/// What is compared.
#[derive(Clone, Copy, PartialEq)]
enum Out {
    /// The selected records, as `file:line`; the jq program is a `select` condition.
    Selection,
    /// Text: the jq program is run as it is, with `-r` (`-j` for NUL-separated output).
    Text,
}

struct Case {
    name: &'static str,
    args: &'static [&'static str],
    jq: &'static str,
    out: Out,
}

/// The human text of a Claude record, as `--grep` reads it (src/dialect/claude/texts.rs).
const TEXTS: &str = r#"def texts:
  (.message.content
    | if type == "string" then .
      elif type == "array" then .[] | objects
        | if .type == "text" then .text
          elif .type == "thinking" then .thinking
          elif .type == "tool_use" then (.input | .. | strings)
          elif .type == "tool_result" then
            (.content | if type == "string" then . elif type == "array" then .[] | objects | .text else empty end)
          else empty end
      else empty end),
  (if .type == "result" then .result elif .type == "summary" then .summary else empty end);
"#;

const CASES: &[Case] = &[
    Case {
        name: "where-gt",
        args: &["--where", "message.usage.output_tokens>100"],
        jq: r#".message.usage.output_tokens | type == "number" and . > 100"#,
        out: Out::Selection,
    },
    Case {
        name: "where-ge",
        args: &["--where", "message.usage.output_tokens >= 25"],
        jq: r#".message.usage.output_tokens | type == "number" and . >= 25"#,
        out: Out::Selection,
    },
    Case {
        name: "where-lt",
        args: &["--where", "message.usage.output_tokens<2"],
        jq: r#".message.usage.output_tokens | type == "number" and . < 2"#,
        out: Out::Selection,
    },
    Case {
        name: "where-le",
        args: &["--where", "message.usage.output_tokens<=4"],
        jq: r#".message.usage.output_tokens | type == "number" and . <= 4"#,
        out: Out::Selection,
    },
    Case {
        name: "where-eq-number",
        args: &["--where", "message.usage.output_tokens=25"],
        jq: r#".message.usage.output_tokens == 25"#,
        out: Out::Selection,
    },
    Case {
        name: "where-eq-string",
        args: &["--where", "message.model=\"claude-sonnet-4-5-20250929\""],
        jq: r#".message.model == "claude-sonnet-4-5-20250929""#,
        out: Out::Selection,
    },
    Case {
        name: "where-ne",
        // A missing value is null, and null is not "assistant": like jq.
        args: &["--where", "message.role!=assistant"],
        jq: r#".message.role != "assistant""#,
        out: Out::Selection,
    },
    Case {
        name: "where-string-order",
        args: &["--where", "timestamp>=2026-02-10T22:59"],
        jq: r#".timestamp | type == "string" and . >= "2026-02-10T22:59""#,
        out: Out::Selection,
    },
    Case {
        name: "where-regex",
        args: &["--where", "message.content.*.input.command~^(ls|find) "],
        jq: r#"[.message.content | arrays | .[] | objects | .input.command]
               | any(type == "string" and test("^(ls|find) "))"#,
        out: Out::Selection,
    },
    Case {
        name: "where-wildcard-eq",
        args: &["--where", "message.content.*.name=Bash"],
        jq: r#"[.message.content | arrays | .[] | objects | .name] | any(. == "Bash")"#,
        out: Out::Selection,
    },
    Case {
        name: "where-wildcard-brackets",
        args: &["--where", ".message.content[].type=tool_result"],
        jq: r#"[.message.content | arrays | .[] | objects | .type] | any(. == "tool_result")"#,
        out: Out::Selection,
    },
    Case {
        name: "where-wildcard-exists",
        args: &["--where", "message.content.*.thinking"],
        jq: r#"[.message.content | arrays | .[] | objects | .thinking] | any(. != null)"#,
        out: Out::Selection,
    },
    Case {
        name: "where-exists",
        args: &["--where", "toolUseResult.stdout"],
        jq: r#".toolUseResult | objects | .stdout != null"#,
        out: Out::Selection,
    },
    Case {
        name: "grep-ignore-case",
        args: &["-i", "--grep", "error|fail"],
        jq: r#"any(texts | strings; test("error|fail"; "i"))"#,
        out: Out::Selection,
    },
    Case {
        name: "grep",
        args: &["--grep", r"package\.json", "--grep", "^Plan"],
        jq: r#"any(texts | strings; test("package\\.json") or test("^Plan"))"#,
        out: Out::Selection,
    },
    Case {
        // Each match lies across escapes of the raw line (`\n`, `\"`) and holds a character
        // that is not ASCII: `--grep` must search the unescaped text, and the prefilter's
        // literal (`1→{`) is not in the raw line once `→` is written `\u2192`, as
        // grep_matches_across_any_escape does.
        name: "grep-across-escapes",
        args: &["--grep", r#"1→\{\n\s+2→  "name": "@sourceborn"#],
        jq: r#"any(texts | strings; test("1→\\{\\n\\s+2→  \"name\": \"@sourceborn"))"#,
        out: Out::Selection,
    },
    Case {
        name: "since-until",
        args: &[
            "--since",
            "2025-10-21T03:22:00Z",
            "--until",
            "2025-10-21T05:22:30+02:00",
        ],
        // Every timestamp here is written `YYYY-MM-DDTHH:MM:SS.mmmZ`: text order is time
        // order. Records without one pass.
        jq: r#"(.timestamp | type) != "string"
               or (.timestamp >= "2025-10-21T03:22:00.000Z" and .timestamp <= "2025-10-21T03:22:30.000Z")"#,
        out: Out::Selection,
    },
    Case {
        name: "since-date",
        args: &["--since", "2026-02-10"],
        jq: r#"(.timestamp | type) != "string" or .timestamp >= "2026-02-10T00:00:00.000Z""#,
        out: Out::Selection,
    },
    Case {
        name: "until-date",
        args: &["--type", "user", "--until", "20251021"],
        jq: r#".type == "user" and ((.timestamp | type) != "string" or .timestamp < "2025-10-22T00:00:00.000Z")"#,
        out: Out::Selection,
    },
    Case {
        name: "print",
        args: &[
            "--type",
            "assistant",
            "--print",
            "timestamp,message.usage.output_tokens,message.content.0.type,message.stop_reason",
        ],
        jq: r#"select(.type == "assistant")
               | [.timestamp, .message.usage.output_tokens, .message.content[0].type, .message.stop_reason]
               | map(if . == null then "" elif type == "string" then . else tojson end)
               | join("\t")"#,
        out: Out::Text,
    },
    Case {
        name: "print-json-values",
        args: &[
            "--where",
            "message.content.*.name=Read",
            "--print",
            "message.usage,message.content.*.input",
        ],
        jq: r#"select([.message.content | arrays | .[] | objects | .name] | any(. == "Read"))
               | [(.message.usage | tojson),
                  ([.message.content | arrays | .[] | objects | .input | select(. != null)] | tojson)]
               | join("\t")"#,
        out: Out::Text,
    },
    Case {
        name: "print-raw-strings-nul",
        args: &[
            "--where",
            "toolUseResult.stdout~total",
            "--print",
            "toolUseResult.stdout",
            "-0",
        ],
        jq: r#"select(.toolUseResult | objects | .stdout | type == "string" and test("total"))
               | .toolUseResult.stdout + "\u0000""#,
        out: Out::Text,
    },
];

fn expected_path(case: &Case) -> PathBuf {
    data(&format!("testdata/expected/filter/{}.out", case.name))
}

/// `file:line` of every record, in the order ndjq reads them.
fn all_records() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for f in FILES {
        for (i, line) in lines(&read(data(f))).into_iter().enumerate() {
            out.push((format!("{f}:{}", i + 1), line.to_vec()));
        }
    }
    out
}

/// The `file:line` of each output line of a selection (each is an input line, in order).
fn locate(stdout: &[u8]) -> Vec<u8> {
    let records = all_records();
    let mut at = 0;
    let mut out = Vec::new();
    for line in lines(stdout) {
        let found = records[at..]
            .iter()
            .position(|(_, l)| l.as_slice() == line)
            .unwrap_or_else(|| panic!("not an input line, or out of order: {}", show(line)));
        at += found;
        out.extend_from_slice(records[at].0.as_bytes());
        out.push(b'\n');
        at += 1;
    }
    out
}

fn run_ndjq(case: &Case) -> (Vec<u8>, i32) {
    let out = ndjq()
        .arg("filter")
        .args(case.args)
        .args(FILES)
        .current_dir(root())
        .env("TZ", "UTC")
        .output()
        .expect("ndjq runs");
    assert!(
        out.stderr.is_empty(),
        "{}: stderr {}",
        case.name,
        show(&out.stderr)
    );
    let stdout = match case.out {
        Out::Selection => locate(&out.stdout),
        Out::Text => out.stdout,
    };
    (stdout, out.status.code().expect("an exit code"))
}

/// jq's output for the case, or `None` when jq is not installed.
fn run_jq(case: &Case) -> Option<Vec<u8>> {
    let mut cmd = Command::new("jq");
    cmd.current_dir(root());
    match case.out {
        Out::Selection => {
            let program = format!(
                "{TEXTS}select({}) | \"\\(input_filename):\\(input_line_number)\"",
                case.jq
            );
            cmd.arg("-r").arg(program);
        }
        Out::Text if case.args.contains(&"-0") => {
            cmd.arg("-j").arg(case.jq);
        }
        Out::Text => {
            cmd.arg("-r").arg(case.jq);
        }
    }
    let out = cmd.args(FILES).output().ok()?;
    assert!(
        out.status.success(),
        "{}: jq failed: {}",
        case.name,
        show(&out.stderr)
    );
    Some(out.stdout)
}

#[test]
fn each_predicate_gives_what_the_equivalent_jq_program_gives() {
    let bless = std::env::var_os("NDJQ_BLESS").is_some();
    let mut jq_ran = 0;
    for case in CASES {
        let jq = run_jq(case);
        if bless {
            let jq = jq
                .as_ref()
                .expect("NDJQ_BLESS needs jq: the expected outputs are jq's");
            std::fs::write(expected_path(case), jq).expect("write the expected output");
        }
        let expected = read(expected_path(case));
        assert!(
            !expected.is_empty(),
            "{}: a case that selects nothing shows nothing",
            case.name
        );
        if let Some(jq) = &jq {
            jq_ran += 1;
            assert!(
                jq == &expected,
                "{}: jq no longer gives the committed output\n--- committed\n{}--- jq\n{}",
                case.name,
                show(&expected),
                show(jq)
            );
        }
        let (actual, code) = run_ndjq(case);
        assert!(
            actual == expected,
            "{}: ndjq filter {:?}\n--- expected (jq)\n{}--- ndjq\n{}",
            case.name,
            case.args,
            show(&expected),
            show(&actual)
        );
        assert_eq!(code, 0, "{}: something selected is exit 0", case.name);
    }
    eprintln!("jq agreed on {jq_ran} of {} cases", CASES.len());
}

#[test]
fn every_case_selects_some_but_not_all_records() {
    let total = all_records().len();
    for case in CASES.iter().filter(|c| c.out == Out::Selection) {
        let n = lines(&read(expected_path(case))).len();
        assert!(
            n > 0 && n < total,
            "{}: {n} of {total} records: a test that cannot fail",
            case.name
        );
    }
}

/// `filter ARGS FILES` with TZ=UTC: (stdout, stderr, exit code).
fn filter(args: &[&str]) -> (String, String, i32) {
    let out = ndjq()
        .arg("filter")
        .args(args)
        .args(FILES)
        .current_dir(root())
        .env("TZ", "UTC")
        .output()
        .expect("ndjq runs");
    (
        show(&out.stdout),
        show(&out.stderr),
        out.status.code().expect("an exit code"),
    )
}

#[test]
fn bad_expressions_are_usage_errors_with_a_caret_under_the_fault() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--where", "message.usage.output_tokens=>100"],
            "ndjq: --where \"message.usage.output_tokens=>100\": unknown operator `=>`\n    \
             message.usage.output_tokens=>100\n                               ^^\n",
        ),
        (
            &["--where", "message..model=x"],
            "ndjq: --where \"message..model=x\": empty key (two dots in a row)\n    \
             message..model=x\n            ^\n",
        ),
        (
            &["--where", "message.content.*.name~Bash("],
            "ndjq: --where \"message.content.*.name~Bash(\": bad regex: unclosed group\n    \
             message.content.*.name~Bash(\n                               ^\n",
        ),
        (
            &["--grep", "a[b"],
            "ndjq: --grep \"a[b\": bad regex: unclosed character class\n    a[b\n     ^\n",
        ),
        (
            &["--where", "message.usage.output_tokens>true"],
            "ndjq: --where \"message.usage.output_tokens>true\": `>` compares numbers or strings\n    \
             message.usage.output_tokens>true\n                                ^^^^\n",
        ),
        (
            &["--print", "message.content[x]"],
            "ndjq: --print \"message.content[x]\": expected `[]`, `[*]`, `[N]` or `[\"key\"]`\n    \
             message.content[x]\n                   ^^^\n",
        ),
    ];
    for (args, want) in cases {
        let (stdout, stderr, code) = filter(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: nothing is read: {stdout}");
        assert!(
            stderr.starts_with(want),
            "{args:?}\n--- want\n{want}--- got\n{stderr}"
        );
    }
    let (_, stderr, code) = filter(&["--since", "last tuesday"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("ndjq: --since: `last tuesday` is not a time"),
        "{stderr}"
    );
}

#[test]
fn print_conflicts_and_null_needs_print() {
    for args in [
        &["--print", "type", "--count"][..],
        &["--print", "type", "--normalize"][..],
        &["-0"][..],
    ] {
        let (_, stderr, code) = filter(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
    }
}

#[test]
fn grep_and_where_agree_with_invert_and_count() {
    // -v selects exactly the records the predicate does not (valid ones).
    let (all, _, _) = filter(&["-c"]);
    let (hit, _, _) = filter(&["-c", "-i", "--grep", "error|fail"]);
    let (miss, _, _) = filter(&["-c", "-v", "-i", "--grep", "error|fail"]);
    let n = |s: &str| s.trim().parse::<usize>().expect("a count");
    assert_eq!(n(&hit) + n(&miss), n(&all));
    assert_eq!(
        n(&hit),
        lines(&read(data("testdata/expected/filter/grep-ignore-case.out"))).len()
    );
    // Several threads give the same selection as one.
    let (one, _, _) = filter(&["-j", "1", "--where", "message.content.*.name=Bash"]);
    let (four, _, _) = filter(&["-j", "4", "--where", "message.content.*.name=Bash"]);
    assert_eq!(one, four);
}

/// `line` with every character outside ASCII written as a `\u` escape (a UTF-16
/// surrogate pair above U+FFFF), as Python's `json.dumps` writes by default: the same
/// JSON. Characters outside ASCII are only ever inside strings.
fn ascii_escaped(line: &[u8]) -> Vec<u8> {
    let text = std::str::from_utf8(line).expect("the captures are UTF-8");
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out.into_bytes()
}

#[test]
fn grep_matches_across_any_escape() {
    let case = CASES
        .iter()
        .find(|c| c.name == "grep-across-escapes")
        .expect("the case");
    let records = all_records();
    let escaped: Vec<Vec<u8>> = records.iter().map(|(_, l)| ascii_escaped(l)).collect();
    let arrows = escaped
        .iter()
        .filter(|l| l.windows(6).any(|w| w == b"\\u2192"))
        .count();
    assert!(arrows > 0, "the captures hold `→`, now written `\\u2192`");
    let out = ndjq()
        .arg("filter")
        .args(case.args)
        .write_stdin(escaped.concat())
        .output()
        .expect("ndjq runs");
    // Each output line is one of the escaped input lines: its `file:line`.
    let mut at = 0;
    let mut got = String::new();
    for line in lines(&out.stdout) {
        let found = escaped[at..]
            .iter()
            .position(|l| l.as_slice() == line)
            .unwrap_or_else(|| panic!("not an input line, or out of order: {}", show(line)));
        at += found;
        got.push_str(&records[at].0);
        got.push('\n');
        at += 1;
    }
    assert_eq!(got, show(&read(expected_path(case))));
}
