//! `stats --merge` on partial stats: no panic on any report; merging is associative, has
//! the empty stats as identity, adds counters commutatively, and merging the stats of
//! inputs equals the stats of one run over all of them.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use ndjq::pipeline::Options;
use ndjq::stats::{Report, Stats};
use ndjq_fuzz::{
    check_stats_invariants, render, report_value, run_inputs, same_json, through_json, Everything,
    Line,
};

#[derive(Debug, Arbitrary)]
enum Input {
    /// Three partial stats computed from agent-shaped inputs.
    Parts([Vec<Vec<Line>>; 3]),
    /// Any bytes, read as a report.
    Raw(Vec<u8>),
}

fn stats_of(first: usize, inputs: &[Vec<u8>]) -> Stats {
    let mut all = Everything::new();
    run_inputs(&Options::default(), first, inputs, &mut all);
    all.stats
}

fn merged(a: &Stats, b: &Stats) -> Stats {
    let mut m = a.clone();
    m.merge(b.clone());
    m
}

fn assert_same(what: &str, x: &Stats, y: &Stats) {
    let (vx, vy) = (report_value(x), report_value(y));
    assert!(same_json(&vx, &vy), "{what}:\n{vx}\n!=\n{vy}");
}

fuzz_target!(|input: Input| {
    match input {
        Input::Parts(parts) => {
            let parts: Vec<Vec<Vec<u8>>> = parts
                .iter()
                .map(|p| p.iter().take(2).map(|l| render(l)).collect())
                .collect();
            // Each part's inputs are files of their own: in0, in1 | in2, in3 | in4, in5.
            let direct: Vec<Stats> = parts
                .iter()
                .enumerate()
                .map(|(i, p)| stats_of(2 * i, p))
                .collect();
            // Partial stats reach --merge as JSON.
            let [a, b, c] = [0, 1, 2].map(|i| through_json(&direct[i]));
            let left = merged(&merged(&a, &b), &c);
            let right = merged(&a, &merged(&b, &c));
            check_stats_invariants(&left);
            assert_same("(a+b)+c = a+(b+c)", &left, &right);
            let empty = Stats::new();
            assert_same("a+0 = a", &merged(&a, &empty), &a);
            assert_same("0+a = a", &merged(&empty, &a), &a);
            let (ab, ba) = (merged(&a, &b), merged(&b, &a));
            assert_eq!(ab.summary, ba.summary, "record tallies add commutatively");
            assert_eq!(ab.types, ba.types);
            assert_eq!(ab.dialects, ba.dialects);
            assert_eq!(ab.totals().sessions, ba.totals().sessions, "sessions unite");
            // One run over every input equals the merge of the parts.
            let mut whole = Everything::new();
            for (i, p) in parts.iter().enumerate() {
                run_inputs(&Options::default(), 2 * i, p, &mut whole);
            }
            assert_same("stats(a ++ b ++ c) = merge", &whole.stats, &left);
            let direct_merge = merged(&merged(&direct[0], &direct[1]), &direct[2]);
            assert_same(
                "merge without JSON = merge through JSON",
                &direct_merge,
                &left,
            );
        }
        Input::Raw(bytes) => {
            let Ok(report) = serde_json::from_slice::<Report>(&bytes) else {
                return;
            };
            let Ok(stats) = Stats::from_report(report) else {
                return;
            };
            let mut twice = stats.clone();
            twice.merge(stats.clone());
            let _ = report_value(&twice);
            let _ = twice.groups(ndjq::stats::GroupBy::Session);
            let _ = through_json(&stats);
        }
    }
});
