//! `ndjq filter`: pass through the original bytes of the records that match, like grep.
//! Invalid records are reported on stderr and saved byte for byte with `--rejects`.
//! With `--normalize`, the selected records' normalized events are written instead of
//! their bytes (as `ndjq events` writes them), reading one record at a time; with
//! `--print`, the values the paths name (see [`ndjq::filter::Projection`]).
//!
//! Every expression (`--where`, `--grep`, `--since`, `--until`, `--print`) is parsed here
//! once, before anything is read; a bad one is a usage error (exit 2) that shows the
//! expression with a caret under the character at fault.

use super::events::{format_of, EventStream};
use super::{write_record, Rejects, StderrDiagnostics};
use crate::cli::args::FilterArgs;
use crate::cli::config::Common;
use crate::cli::exit::{exit_code, Outcome};
use crate::cli::Ran;
use anyhow::{bail, Result};
use ndjq::diagnostic::{Code, Diagnostic};
use ndjq::dialect::Dialect;
use ndjq::filter::{Grep, Matcher, Predicates, Projection, Where};
use ndjq::parallel::{Parallel, SpareBuffers};
use ndjq::pipeline::{Consumer, Flow, Record};
use ndjq::sink::events::EventFormat;
use ndjq::sink::Reporter;
use ndjq::summary::Summary;
use ndjq::timestamp::{self, Edge, TimeRange, TimeZone};
use std::io::{self, BufWriter, Write};
use std::sync::Arc;

struct Filter<W: Write, R: Write> {
    matcher: Matcher,
    out: W,
    open_line: bool,
    count_only: bool,
    max_count: Option<u64>,
    line_buffered: bool,
    selected: u64,
    summary: Summary,
    diagnostics: StderrDiagnostics,
    rejects: Option<Rejects<R>>,
    /// The rest of the overlong record being read is selected.
    overlong_selected: bool,
    /// `--normalize`: selected records become events written to `out`.
    events: Option<EventStream>,
    /// `--print`: selected records become the values of these paths.
    projection: Option<Projection>,
    /// Output buffers of merged blocks, handed back to the shards.
    spare: SpareBuffers,
}

impl<W: Write, R: Write> Consumer for Filter<W, R> {
    fn begin_input(&mut self, _file: &Arc<str>) -> io::Result<()> {
        self.summary.files += 1;
        Ok(())
    }

    fn resume_input(&mut self, _file: &Arc<str>) -> io::Result<()> {
        Ok(())
    }

    fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
        self.summary.add_record(record);
        for d in record.diagnostics {
            self.diagnostics.report(d)?;
        }
        if let Some(r) = self.rejects.as_mut() {
            r.offer(record)?;
        }
        let selected = self.matcher.matches(record);
        self.overlong_selected = selected
            && record.overlong
            && !self.count_only
            && self.events.is_none()
            && self.projection.is_none();
        if let Some(events) = self.events.as_mut() {
            if selected {
                events.record(&mut self.out, record)?;
                if self.line_buffered {
                    self.out.flush()?;
                }
            } else {
                events.observe(record);
            }
        }
        if selected {
            self.selected += 1;
            if let (false, Some(p)) = (self.count_only, &self.projection) {
                p.write(&mut self.out, record.value)?;
                if self.line_buffered {
                    self.out.flush()?;
                }
            } else if !self.count_only && self.events.is_none() {
                write_record(&mut self.out, record.raw, &mut self.open_line)?;
                if self.line_buffered && !record.overlong {
                    self.out.flush()?;
                }
            }
            if self.max_count.is_some_and(|m| self.selected >= m) {
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Continue)
    }

    fn end_input(
        &mut self,
        _file: &Arc<str>,
        _dialect: Option<ndjq::dialect::Dialect>,
    ) -> io::Result<()> {
        let Some(events) = self.events.as_mut() else {
            return Ok(());
        };
        events.end_input(&mut self.out)?;
        if self.line_buffered {
            self.out.flush()?;
        }
        Ok(())
    }

    fn notice(&mut self, d: &Diagnostic) -> io::Result<()> {
        self.summary.add_diagnostic(d);
        self.diagnostics.notice(d)
    }

    fn leftover(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self.rejects.as_mut() {
            Some(r) => r.leftover(bytes),
            None => Ok(()),
        }
    }

    fn overlong_chunk(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.summary.add_bytes(bytes.len());
        if self.overlong_selected {
            self.out.write_all(bytes)?;
            self.open_line = bytes.last() != Some(&b'\n');
        }
        match self.rejects.as_mut() {
            Some(r) => r.chunk(bytes),
            None => Ok(()),
        }
    }
}

/// What a shard of `filter` collected from one block.
struct Part {
    out: Vec<u8>,
    rejects: Option<(Vec<u8>, u64)>,
    selected: u64,
    summary: Summary,
    diagnostics: Vec<Diagnostic>,
}

impl<W: Write, R: Write> Parallel for Filter<W, R> {
    type Shard = Filter<Vec<u8>, Vec<u8>>;
    type Part = Part;

    fn shard(&self) -> Self::Shard {
        Filter {
            matcher: self.matcher.clone(),
            out: Vec::new(),
            open_line: false,
            count_only: self.count_only,
            max_count: None,
            line_buffered: false,
            selected: 0,
            summary: Summary::default(),
            diagnostics: StderrDiagnostics::Collect(Vec::new()),
            rejects: self.rejects.as_ref().map(|_| Rejects::new(Vec::new())),
            overlong_selected: false,
            // --normalize reads one record at a time: shards never normalize.
            events: None,
            projection: self.projection.clone(),
            spare: self.spare.clone(),
        }
    }

    fn take(shard: &mut Self::Shard) -> Part {
        // The `\n` an input's unterminated last line lacks is added by the merge, in input
        // order; the shard's next block (whichever shard takes it) starts afresh.
        shard.open_line = false;
        shard.overlong_selected = false;
        Part {
            // The next block's output is about as large: a used buffer, else the same
            // capacity.
            out: {
                let next = shard.spare.next(shard.out.capacity());
                std::mem::replace(&mut shard.out, next)
            },
            rejects: shard.rejects.as_mut().map(Rejects::take),
            selected: std::mem::take(&mut shard.selected),
            summary: std::mem::take(&mut shard.summary),
            diagnostics: shard.diagnostics.take(),
        }
    }

    fn merge(&mut self, mut part: Part) -> io::Result<Flow> {
        if !part.out.is_empty() {
            write_record(&mut self.out, &part.out, &mut self.open_line)?;
        }
        self.spare.give(std::mem::take(&mut part.out));
        if let (Some(r), Some((bytes, n))) = (self.rejects.as_mut(), part.rejects) {
            r.merge(&bytes, n)?;
        }
        self.selected += part.selected;
        self.summary.merge(&part.summary);
        for d in &part.diagnostics {
            self.diagnostics.report(d)?;
        }
        Ok(Flow::Continue)
    }
}

fn predicates(args: &FilterArgs) -> Result<Predicates> {
    let wheres = args
        .wheres
        .iter()
        .map(|w| Where::parse(w, args.ignore_case))
        .collect::<Result<Vec<_>, _>>()?;
    let grep = if args.greps.is_empty() {
        None
    } else {
        Some(Grep::new(&args.greps, args.ignore_case)?)
    };
    let time = if args.since.is_some() || args.until.is_some() {
        // Dates and times without an offset are local, as `date` reads them (TZ honoured).
        let tz = TimeZone::try_system().unwrap_or(TimeZone::UTC);
        let bound = |text: &Option<String>, edge, flag| {
            text.as_deref()
                .map(|t| timestamp::parse_bound(t, edge, &tz))
                .transpose()
                .map_err(|e| anyhow::anyhow!("{flag}: {e}"))
        };
        TimeRange {
            since: bound(&args.since, Edge::Start, "--since")?,
            until: bound(&args.until, Edge::End, "--until")?,
        }
    } else {
        TimeRange::default()
    };
    let mut diagnostics = Vec::new();
    for d in &args.diagnostics {
        match Code::parse(d) {
            Some(c) => diagnostics.push(c),
            None => bail!(
                "--diagnostic `{d}` is not a diagnostic code (e.g. PROTO_INVALID_JSON, PROTO_UNKNOWN_TYPE)"
            ),
        }
    }
    Ok(Predicates {
        types: args.types.clone(),
        subtypes: args.subtypes.clone(),
        tools: args.tools.clone(),
        sessions: args.sessions.clone(),
        models: args.models.clone(),
        wheres,
        grep,
        time,
        valid: match (args.valid, args.invalid) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        },
        diagnostics,
        invert: args.invert,
    })
}

pub fn run(args: &FilterArgs) -> Result<i32> {
    let common = Common::resolve(&args.input, &args.output, &args.child)?;
    let predicates = predicates(args)?;
    if !common.quiet {
        let warning = common
            .err_painter
            .paint("warning", owo_colors::Style::new().yellow().bold());
        for hint in type_hints(&args.types) {
            crate::cli::report_error(&format!("{warning}: {hint}"));
        }
    }
    if args.max_count == Some(0) {
        return Ok(exit_code(Outcome::Findings, false));
    }
    let selection = Selection {
        predicates,
        count_only: args.count,
        max_count: args.max_count,
        normalize: args
            .normalize
            .then(|| format_of(args.format, EventFormat::Json)),
    };
    let projection = if args.print.is_empty() {
        None
    } else {
        Some(Projection::new(&args.print, args.null)?)
    };
    let (ran, selected, records) = select_printing(&common, selection, projection)?;
    // Like grep, nothing selected is exit 1; but an empty input is a success (docs/REFERENCE.md,
    // "Exit status").
    let outcome = if selected > 0 || records == 0 {
        Outcome::Success
    } else {
        Outcome::Findings
    };
    Ok(ran.exit_code(outcome))
}

/// What to select and how to write it.
pub struct Selection {
    pub predicates: Predicates,
    pub count_only: bool,
    pub max_count: Option<u64>,
    /// Write the selected records' events in this format instead of their bytes.
    pub normalize: Option<EventFormat>,
}

/// Reads the inputs and writes the selected records; returns how reading went, how many
/// records were selected and how many were read. Shared with `ndjq run`.
pub fn select(common: &Common, selection: Selection) -> Result<(Ran, u64, u64)> {
    select_printing(common, selection, None)
}

/// [`select`], writing the values `projection` names instead of the records' bytes.
fn select_printing(
    common: &Common,
    selection: Selection,
    projection: Option<Projection>,
) -> Result<(Ran, u64, u64)> {
    // Tool attribution, --max-count and events carry state from record to record.
    let parallel_ok = selection.predicates.tools.is_empty()
        && selection.max_count.is_none()
        && selection.normalize.is_none();
    let rejects = Rejects::for_run(common)?;
    let stderr = (!common.quiet).then(io::stderr);
    let stdout = io::stdout().lock();
    let mut filter = Filter {
        matcher: Matcher::new(selection.predicates),
        out: BufWriter::with_capacity(256 << 10, stdout),
        open_line: false,
        count_only: selection.count_only,
        max_count: selection.max_count,
        line_buffered: common.line_buffered,
        selected: 0,
        summary: Summary::default(),
        diagnostics: StderrDiagnostics::Report(Reporter::new(stderr, common.err_painter)?),
        rejects,
        overlong_selected: false,
        events: selection
            .normalize
            .map(|format| EventStream::new(format, common.painter).with_width(common.text_width)),
        projection,
        spare: SpareBuffers::default(),
    };
    if let Some(events) = filter.events.as_mut() {
        events.start(&mut filter.out)?;
    }
    let ran = crate::cli::run_sources(common, &mut filter, parallel_ok)?;
    if filter.count_only {
        writeln!(filter.out, "{}", filter.selected)?;
    }
    if let Some(events) = filter.events.as_mut() {
        events.finish(&mut filter.out)?;
    }
    filter.out.flush()?;
    if let Some(r) = filter.rejects.as_mut() {
        r.finish()?;
    }
    let s = &filter.summary;
    if s.invalid > 0 || s.warnings > 0 {
        let rejected = match &filter.rejects {
            Some(r) => format!(", {} saved to --rejects", r.written),
            None => String::new(),
        };
        let line = format!(
            "{}: {} selected, {} not selected; {} invalid{rejected}, {} empty; {}, {}",
            plural(s.records, "record"),
            filter.selected,
            s.records - filter.selected,
            s.invalid,
            s.empty,
            plural(s.errors, "error"),
            plural(s.warnings, "warning"),
        );
        filter.diagnostics.finish(Some(&line))?;
    }
    Ok((ran, filter.selected, filter.summary.records))
}

/// For each `--type` value no dialect knows but one is close to (most likely a typo), a
/// hint naming the closest. The filter runs all the same: a generic stream may have any
/// type, and a value close to none is taken as meant.
fn type_hints(types: &[String]) -> Vec<String> {
    let known: Vec<&str> = Dialect::ALL
        .iter()
        .flat_map(|d| d.known_types().iter().copied())
        .collect();
    let mut hints = Vec::new();
    for value in types {
        // `system/init` names a type and a subtype.
        let ty = value.split_once('/').map_or(value.as_str(), |(t, _)| t);
        if ty.is_empty() || known.contains(&ty) {
            continue;
        }
        if let Some(closest) = closest(ty, &known) {
            hints.push(format!(
                "no dialect knows type `{ty}`; did you mean `{closest}`?"
            ));
        }
    }
    hints
}

/// The candidate nearest to `word` by edit distance, if it is near enough to be a typo of
/// it: at most one edit in three characters (and at least one). Ties go to the first.
fn closest<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (edit_distance(&word.to_lowercase(), &c.to_lowercase()), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The optimal string alignment distance: insertions, deletions, substitutions and swaps
/// of two neighbours count one edit each.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the table: two back, one back, and the one being filled.
    let mut two_back = vec![0; b.len() + 1];
    let mut one_back: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (one_back[j] + 1)
                .min(row[j - 1] + 1)
                .min(one_back[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(two_back[j - 2] + 1);
            }
        }
        std::mem::swap(&mut two_back, &mut one_back);
        std::mem::swap(&mut one_back, &mut row);
    }
    one_back[b.len()]
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_typos() {
        assert_eq!(edit_distance("assistant", "assistant"), 0);
        assert_eq!(edit_distance("asistant", "assistant"), 1);
        assert_eq!(edit_distance("assitsant", "assistant"), 1);
        assert_eq!(edit_distance("reslut", "result"), 1);
        assert_eq!(edit_distance("", "user"), 4);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn a_near_miss_of_a_known_type_gets_a_hint_others_do_not() {
        let types = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            type_hints(&types(&["asistant"])),
            ["no dialect knows type `asistant`; did you mean `assistant`?"]
        );
        assert_eq!(
            type_hints(&types(&["Result", "sytem/init"])),
            [
                "no dialect knows type `Result`; did you mean `result`?",
                "no dialect knows type `sytem`; did you mean `system`?",
            ]
        );
        assert!(type_hints(&types(&["assistant", "system/init", "turn.failed"])).is_empty());
        // A type of some other stream, close to nothing known: taken as meant.
        assert!(type_hints(&types(&["heartbeat", "x"])).is_empty());
    }
}
