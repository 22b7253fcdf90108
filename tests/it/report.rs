//! Integration tests of `ndjq report`: the page is parsed with `scraper` (html5ever, the
//! HTML parser of Servo, which builds the tree a browser builds) and checked against
//! `ndjq stats -f json` on the same inputs. The hand-made logs of testdata/report/ hold
//! hostile strings (`</script><script>…`, `<img onerror=…>`) in user text, tool input and
//! output, a working directory, a model name and a session id. tests/browser.sh opens the
//! same page in headless Chromium.

use crate::common;

use common::{ndjq_sub, stats_json, testdata};
use scraper::{Html, Selector};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::PathBuf;

const HOSTILE_SCRIPT: &str = "</script><script>alert(1)</script>";
const HOSTILE_IMG: &str = "<img src=x onerror=alert(1)>";

/// The inputs of the page: the hand-made tree, a Claude stream with a reported cost and a
/// `codex exec` stream (neither has timestamps).
fn inputs() -> Vec<PathBuf> {
    vec![
        testdata().join("report"),
        testdata().join("claude/gleam-basic_query.ndjson"),
        testdata().join("codex/codex-tool.ndjson"),
    ]
}

fn page(args: &[&str], paths: &[PathBuf]) -> String {
    let out = ndjq_sub("report")
        .args(["-q", "--timezone", "UTC", "-o", "-"])
        .args(args)
        .args(paths)
        .output()
        .expect("run ndjq report");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 page")
}

fn sel(s: &str) -> Selector {
    Selector::parse(s).expect("a selector")
}

fn embedded(doc: &Html) -> Value {
    let script = doc
        .select(&sel("script#ndjq-stats"))
        .next()
        .expect("the embedded stats");
    assert_eq!(script.value().attr("type"), Some("application/json"));
    serde_json::from_str(&script.text().collect::<String>()).expect("JSON stats")
}

fn number(v: &str) -> f64 {
    v.parse().unwrap_or_else(|_| panic!("not a number: {v}"))
}

#[test]
fn one_bar_per_day_with_its_value() {
    let paths = inputs();
    let doc = Html::parse_document(&page(&[], &paths));
    let stats: Value = stats_json(&["--by", "day", "--timezone", "UTC"], &paths);
    let days: Vec<&Value> = stats["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .filter(|g| g["key"].as_str().is_some_and(|k| k.len() == 10))
        .collect();
    assert_eq!(days.len(), 4, "{days:?}");
    // Every day from the first to the last, 2025-06-03 (no records) a zero bar.
    let bars: Vec<_> = doc.select(&sel("svg#chart-day-cost g.bar")).collect();
    let keys: Vec<&str> = bars
        .iter()
        .map(|b| b.value().attr("data-key").expect("data-key"))
        .collect();
    assert_eq!(
        keys,
        [
            "2025-06-01",
            "2025-06-02",
            "2025-06-03",
            "2025-06-04",
            "2025-06-05"
        ]
    );
    for bar in &bars {
        let key = bar.value().attr("data-key").unwrap_or_default();
        let value = number(bar.value().attr("data-value").unwrap_or_default());
        let expected = days
            .iter()
            .find(|g| g["key"] == key)
            .map_or(0.0, |g| g["cost_usd"].as_f64().unwrap_or(0.0));
        assert!(
            (value - expected).abs() < 1e-9,
            "{key}: {value} vs {expected}"
        );
        let title: String = bar
            .select(&sel("title"))
            .next()
            .expect("a title")
            .text()
            .collect();
        assert!(title.starts_with(&format!("{key}: $")), "{title}");
    }
    let token_bars: Vec<_> = doc.select(&sel("svg#chart-day-tokens g.bar")).collect();
    assert_eq!(token_bars.len(), 5);
    for bar in token_bars {
        let key = bar.value().attr("data-key").unwrap_or_default();
        let expected = days.iter().find(|g| g["key"] == key).map_or(0, |g| {
            let t = &g["tokens"];
            ["input", "output", "cache_creation", "cache_read"]
                .iter()
                .map(|k| t[k].as_u64().unwrap_or(0))
                .sum::<u64>()
        });
        assert_eq!(
            bar.value().attr("data-value"),
            Some(expected.to_string().as_str()),
            "{key}"
        );
    }
    // Stacked by model: the parts of a bar each have a title naming the model.
    let parts: Vec<String> = doc
        .select(&sel(
            "svg#chart-day-cost g.bar[data-key=\"2025-06-02\"] rect title",
        ))
        .map(|t| t.text().collect())
        .collect();
    assert!(
        parts.iter().any(|t| t.contains("claude-opus-4-1")),
        "{parts:?}"
    );
    assert!(
        parts.iter().any(|t| t.contains("claude-haiku-4-5")),
        "{parts:?}"
    );
}

#[test]
fn totals_equal_stats_json() {
    let paths = inputs();
    let doc = Html::parse_document(&page(&[], &paths));
    let stats: Value = stats_json(&["--timezone", "UTC"], &paths);
    let data = embedded(&doc);
    let drawn = &data["stats"];
    for key in [
        "schema",
        "files",
        "lines",
        "sessions",
        "tokens",
        "cost_usd",
        "cost_usd_reported",
        "cost_usd_estimated",
        "pricing",
        "unpriced_models",
        "tools",
        "models",
        "turns",
        "dialects",
    ] {
        assert_eq!(drawn[key], stats[key], "{key}");
    }
    let attr = |id: &str| -> String {
        doc.select(&sel(&format!("#{id}")))
            .next()
            .and_then(|e| e.value().attr("data-value"))
            .unwrap_or_else(|| panic!("#{id}"))
            .to_string()
    };
    assert_eq!(attr("total-sessions"), stats["sessions"].to_string());
    let cost = stats["cost_usd"].as_f64().expect("a cost");
    assert!((number(&attr("total-cost")) - cost).abs() < 1e-9);
    let estimated = stats["cost_usd_estimated"].as_f64().expect("an estimate");
    assert!((number(&attr("estimated-cost")) - estimated).abs() < 1e-9);
    for kind in ["input", "output", "cache_read", "cache_creation"] {
        assert_eq!(
            attr(&format!("tokens-{kind}")),
            stats["tokens"][kind].to_string()
        );
    }
    // One table row per session; the tool chart's figures are stats' tools.
    let rows = doc.select(&sel("#session-table tbody tr")).count() as u64;
    assert_eq!(Some(rows), stats["sessions"].as_u64());
    for bar in doc.select(&sel("svg#chart-tool-calls g.bar")) {
        let name = bar.value().attr("data-key").unwrap_or_default();
        assert_eq!(
            bar.value().attr("data-value"),
            Some(stats["tools"][name]["calls"].to_string().as_str()),
            "{name}"
        );
    }
    // The agents: each dialect of the inputs.
    let agents: String = doc
        .select(&sel("svg#chart-agent-cost g.bar"))
        .filter_map(|b| b.value().attr("data-key"))
        .collect::<Vec<_>>()
        .join(",");
    assert!(agents.contains("claude-log"), "{agents}");
}

#[test]
fn hostile_strings_are_text() {
    let html = page(&["--transcripts"], &inputs());
    let doc = Html::parse_document(&html);
    // The page's own two scripts, nothing else: no element made from a log's text.
    assert_eq!(doc.select(&sel("script")).count(), 2);
    assert_eq!(doc.select(&sel("img")).count(), 0);
    for el in doc.select(&sel("*")) {
        for (name, _) in el.value().attrs() {
            assert!(!name.starts_with("on"), "event handler attribute {name}");
        }
    }
    // And the strings are there, as text: in the transcript, the table and the charts.
    let text: String = doc.root_element().text().collect();
    assert!(text.contains(&format!("Please print {HOSTILE_SCRIPT}")));
    assert!(text.contains(&format!("echo '{HOSTILE_IMG}'")));
    assert!(text.contains(&format!("error: test failed {HOSTILE_SCRIPT}")));
    let titles: String = doc
        .select(&sel("svg title"))
        .flat_map(|t| t.text())
        .collect();
    assert!(titles.contains(&format!("model{HOSTILE_SCRIPT}")), "model");
    let projects: Vec<String> = doc
        .select(&sel("#session-table td:nth-child(3)"))
        .map(|td| td.text().collect())
        .collect();
    assert!(projects.contains(&HOSTILE_IMG.to_string()), "{projects:?}");
    // The embedded JSON holds them too, and still parses.
    let data = embedded(&doc);
    assert!(data.to_string().contains(HOSTILE_SCRIPT));
    // A hostile session id: its anchor is plain, its name text.
    let ids: Vec<&str> = doc
        .select(&sel("article.transcript"))
        .filter_map(|a| a.value().attr("id"))
        .collect();
    assert!(
        ids.contains(&"session-evil___script_alert_1___script_"),
        "{ids:?}"
    );
    let headings: String = doc
        .select(&sel("article.transcript h3"))
        .flat_map(|h| h.text())
        .collect();
    assert!(headings.contains("evil\"><script>alert(1)</script>"));
}

#[test]
fn no_external_url() {
    let html = page(&["--transcripts"], &inputs());
    let doc = Html::parse_document(&html);
    let ids: std::collections::HashSet<&str> = doc
        .select(&sel("[id]"))
        .filter_map(|e| e.value().attr("id"))
        .collect();
    let mut session_links = 0;
    for el in doc.select(&sel("*")) {
        for (name, value) in el.value().attrs() {
            assert!(
                !matches!(
                    name,
                    "src" | "srcset" | "action" | "formaction" | "xlink:href"
                ),
                "{name}={value}"
            );
            if name == "href" {
                let target = value
                    .strip_prefix('#')
                    .unwrap_or_else(|| panic!("external href {value}"));
                assert!(ids.contains(target), "no element #{target}");
                if target.starts_with("session-") && target != "session-table" {
                    session_links += 1;
                }
            }
        }
    }
    assert!(session_links >= 5, "{session_links}");
    assert!(!html.contains("url("), "a CSS url()");
    assert!(!html.contains("@import"));
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                ABC[((n >> (18 - 6 * i)) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

fn sha256(text: &str) -> String {
    format!("sha256-{}", base64(&Sha256::digest(text.as_bytes())))
}

#[test]
fn csp_allows_its_own_script_and_style_only() {
    let doc = Html::parse_document(&page(&[], &inputs()));
    let meta = doc
        .select(&sel("head meta[http-equiv=\"Content-Security-Policy\"]"))
        .next()
        .expect("a CSP meta");
    let policy = meta.value().attr("content").unwrap_or_default();
    let directive = |name: &str| -> Vec<String> {
        policy
            .split(';')
            .map(str::trim)
            .find_map(|d| d.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in {policy}"))
            .split_whitespace()
            .map(|s| s.trim_matches('\'').to_string())
            .collect()
    };
    assert_eq!(directive("default-src "), ["none"]);
    let script: String = doc
        .select(&sel("script:not([type])"))
        .next()
        .expect("the script")
        .text()
        .collect();
    assert_eq!(directive("script-src "), [sha256(&script)]);
    let style: String = doc
        .select(&sel("style"))
        .next()
        .expect("the style sheet")
        .text()
        .collect();
    assert_eq!(directive("style-src "), [sha256(&style)]);
    // The policy comes before anything it governs.
    let head: Vec<String> = doc
        .select(&sel("head > *"))
        .map(|e| e.value().name().to_string())
        .collect();
    let meta_at = head.iter().position(|n| n == "meta").unwrap_or(usize::MAX);
    let style_at = head.iter().position(|n| n == "style").unwrap_or(0);
    assert!(meta_at < style_at, "{head:?}");
    // No inline style attribute (the policy would refuse it).
    assert_eq!(doc.select(&sel("[style]")).count(), 0);
}

#[test]
fn one_session_has_its_transcript_by_default() {
    let file =
        testdata().join("report/projects/-home-me-web/1a2b3c4d-0000-4000-8000-000000000001.jsonl");
    let doc = Html::parse_document(&page(&[], std::slice::from_ref(&file)));
    let article = doc
        .select(&sel("article#session-1a2b3c4d-0000-4000-8000-000000000001"))
        .next()
        .expect("the transcript");
    // Thinking and tool input collapsed, errors marked, the long output cut and expandable,
    // usage per message.
    assert_eq!(article.select(&sel("details.think")).count(), 4);
    assert_eq!(article.select(&sel("details.tool")).count(), 4);
    assert_eq!(article.select(&sel(".ev.out.err")).count(), 2);
    assert_eq!(article.select(&sel(".ev.out details.more")).count(), 1);
    assert_eq!(article.select(&sel(".ev.usage")).count(), 4);
    assert_eq!(article.select(&sel(".ev.user")).count(), 4);
    let link = doc
        .select(&sel("#session-table a"))
        .next()
        .expect("a link to the transcript");
    assert_eq!(
        link.value().attr("href"),
        Some("#session-1a2b3c4d-0000-4000-8000-000000000001")
    );
    // --no-transcripts leaves it out; a folder of sessions has none unless asked.
    let doc = Html::parse_document(&page(&["--no-transcripts"], &[file]));
    assert_eq!(doc.select(&sel("article")).count(), 0);
    let doc = Html::parse_document(&page(&[], &inputs()));
    assert_eq!(doc.select(&sel("article")).count(), 0);
    assert_eq!(doc.select(&sel("#session-table a")).count(), 0);
}

#[test]
fn since_and_until_are_stats_own() {
    let paths = inputs();
    let args = ["--since", "2025-06-02", "--until", "2025-06-04"];
    let doc = Html::parse_document(&page(&args, &paths));
    let mut stats_args = args.to_vec();
    stats_args.extend(["--timezone", "UTC"]);
    let stats: Value = stats_json(&stats_args, &paths);
    let data = embedded(&doc);
    assert_eq!(data["stats"]["tokens"], stats["tokens"]);
    assert_eq!(data["stats"]["sessions"], stats["sessions"]);
    let keys: Vec<&str> = doc
        .select(&sel("svg#chart-day-cost g.bar"))
        .filter_map(|b| b.value().attr("data-key"))
        .collect();
    assert_eq!(keys, ["2025-06-02", "2025-06-03", "2025-06-04"]);
}

#[test]
fn page_goes_to_a_file_and_its_path_is_printed() {
    let dir = common::tempdir();
    let path = dir.path().join("page.html");
    let out = ndjq_sub("report")
        .args(["-q", "-o"])
        .arg(&path)
        .arg(testdata().join("report"))
        .output()
        .expect("run ndjq report");
    assert!(out.status.success());
    // Not a terminal: nothing on stdout but what was asked.
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let html = std::fs::read_to_string(&path).expect("the page");
    assert!(html.starts_with("<!DOCTYPE html>"));
}

/// On a terminal, never HTML: the page goes to a new file in the temporary folder and its
/// path is printed. `script(1)` (util-linux) gives ndjq a terminal; without it, skipped.
#[test]
fn a_terminal_gets_the_path_not_the_page() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no script(1)");
        return;
    }
    let tmp = common::tempdir();
    let command = format!(
        "'{}' report -q '{}'",
        common::ndjq_path().display(),
        testdata().join("report").display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("TMPDIR", tmp.path())
        .output()
        .expect("run script");
    assert!(out.status.success(), "{out:?}");
    let printed = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(!printed.contains('<'), "HTML on a terminal: {printed}");
    let path = PathBuf::from(&printed);
    assert!(path.starts_with(tmp.path()), "{printed}");
    let html = std::fs::read_to_string(&path).expect("the page");
    assert!(html.starts_with("<!DOCTYPE html>"));
}

/// `report -o` into the folder it reads: the page is written after the reading, so it is
/// never read; once there, a file the walk reads, it is refused (as when named as an
/// input) before it is written over.
#[test]
fn a_page_in_the_folder_it_reads_is_never_an_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).expect("mkdir");
    std::fs::copy(
        testdata().join("claude/claude-tool.ndjson"),
        logs.join("a.jsonl"),
    )
    .expect("copy");
    let page = logs.join("page.jsonl");
    let out = ndjq_sub("report")
        .arg("-o")
        .arg(&page)
        .arg(&logs)
        .output()
        .expect("report");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("PROTO_TEXT_NOISE"), "{stderr}");
    let before = std::fs::read(&page).expect("page");
    // Now a file the walk of the folder reads: refused, not written over.
    let out = ndjq_sub("report")
        .arg("-o")
        .arg(&page)
        .arg(&logs)
        .output()
        .expect("report");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is the same file as -o"));
    assert_eq!(std::fs::read(&page).expect("page"), before);
    let out = ndjq_sub("report")
        .arg("-o")
        .arg(&page)
        .arg(&page)
        .output()
        .expect("report");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is the same file as -o"));
    assert_eq!(std::fs::read(&page).expect("page"), before);
}
