//! Dialect detection, schema checks, the event normalizer, the gap tracker and the stats
//! accumulator on agent-shaped records (real records edited, objects made from the agents'
//! vocabulary, cut records, text): no panic, every event is a JSON object, the stats
//! invariants hold, and the JSON report survives `--merge`'s round trip unchanged.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use ndjq::dialect::Dialect;
use ndjq::pipeline::Options;
use ndjq::stats::GroupBy;
use ndjq_fuzz::{
    check_stats_invariants, render, report_value, run_inputs, same_json, through_json, Everything,
    Line,
};

#[derive(Debug, Arbitrary)]
struct Input {
    inputs: Vec<Vec<Line>>,
    dialect: Option<u8>,
    recover: bool,
}

fuzz_target!(|input: Input| {
    let inputs: Vec<Vec<u8>> = input.inputs.iter().take(3).map(|l| render(l)).collect();
    let options = Options {
        dialect: input
            .dialect
            .map(|d| Dialect::ALL[d as usize % Dialect::ALL.len()]),
        recover: input.recover,
        ..Options::default()
    };
    let mut all = Everything::new();
    run_inputs(&options, 0, &inputs, &mut all);
    all.check_events();
    let stats = &all.stats;
    check_stats_invariants(stats);
    assert_eq!(stats.summary.files, inputs.len() as u64);
    assert_eq!(stats.summary.records, all.records);
    if !input.recover {
        // With --recover an object taken out of a text line is its bytes and a newline.
        let bytes: usize = inputs.iter().map(Vec::len).sum();
        assert_eq!(stats.summary.bytes, bytes as u64, "bytes = input bytes");
    }
    for by in [
        GroupBy::Session,
        GroupBy::Model,
        GroupBy::Tool,
        GroupBy::Type,
        GroupBy::File,
        GroupBy::Day,
    ] {
        let groups = stats.groups(by);
        assert!(
            groups.windows(2).all(|w| w[0].key < w[1].key),
            "groups sorted by key"
        );
    }
    let back = through_json(stats);
    check_stats_invariants(&back);
    assert!(
        same_json(&report_value(stats), &report_value(&back)),
        "a report read back by --merge is the same report"
    );
});
