//! `ndjq man`: the manual, generated from the clap definition (so it never disagrees with
//! `--help`): ndjq(1), with the commands, exit status and environment, and one page per
//! command, ndjq-COMMAND(1), each closing with the examples of its `--help`. The pages are
//! committed in man/; a test regenerates them and fails when they drift.

use crate::cli::args::{examples_of, Cli, ManArgs};
use anyhow::{Context, Result};
use clap::CommandFactory;
use clap_mangen::roff::{bold, roman, Roff};
use clap_mangen::Man;
use std::io::Write;

pub fn run(args: &ManArgs) -> Result<i32> {
    let pages = pages()?;
    match &args.dir {
        None => {
            let (_, main) = pages.first().context("no manual page was generated")?;
            std::io::stdout().lock().write_all(main)?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create folder {}", dir.display()))?;
            for (name, page) in &pages {
                let path = dir.join(name);
                super::write_whole(&path, page)?;
            }
        }
    }
    Ok(0)
}

/// Every page as (file name, roff): ndjq.1 first, then one per command in help order.
fn pages() -> Result<Vec<(String, Vec<u8>)>> {
    // `ndjq help COMMAND` is what `--help` is for: it gets no page.
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    let commands: Vec<clap::Command> = cli
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .cloned()
        .collect();
    let see_also: Vec<String> = commands.iter().map(page_name).collect();
    let mut pages = vec![page(&cli, "", &see_also, true)?];
    for command in &commands {
        pages.push(page(
            command,
            command.get_name(),
            &["ndjq".to_string()],
            false,
        )?);
    }
    Ok(pages)
}

/// `ndjq` or `ndjq-filter`: the name of a command's page.
fn page_name(command: &clap::Command) -> String {
    command
        .get_display_name()
        .unwrap_or_else(|| command.get_name())
        .to_string()
}

/// One page: clap_mangen's sections, then the examples, (for ndjq(1)) exit status and
/// environment, and the pages to see also.
fn page(
    command: &clap::Command,
    examples_key: &str,
    see_also: &[String],
    main: bool,
) -> Result<(String, Vec<u8>)> {
    let name = page_name(command);
    let man = Man::new(command.clone())
        .title(name.to_uppercase())
        .source(format!("ndjq {}", env!("CARGO_PKG_VERSION")))
        .manual("ndjq manual");
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if command.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut out)?;
    }
    if command.has_subcommands() {
        man.render_subcommands_section(&mut out)?;
    }
    let mut roff = Roff::new();
    examples_section(&mut roff, examples_key);
    if main {
        exit_status_section(&mut roff);
        environment_section(&mut roff);
    }
    roff.control("SH", ["SEE ALSO"]);
    let refs: Vec<String> = see_also.iter().map(|p| format!("{p}(1)")).collect();
    roff.text([roman(refs.join(", "))]);
    roff.control("PP", []);
    roff.text([roman(GUIDE_POINTER)]);
    roff.to_writer(&mut out)?;
    if command.get_version().is_some() {
        man.render_version_section(&mut out)?;
    }
    Ok((man.get_filename(), once_preamble(&out)))
}

/// Each of clap_mangen's sections opens with the same two-line preamble (it defines the
/// apostrophe string): the page needs it once, at the top.
fn once_preamble(page: &[u8]) -> Vec<u8> {
    const PREAMBLE: &[&[u8]] = &[b".ie \\n(.g .ds Aq \\(aq", b".el .ds Aq '"];
    let mut seen = false;
    let mut out = Vec::with_capacity(page.len());
    let mut lines = page.split_inclusive(|&b| b == b'\n').peekable();
    while let Some(line) = lines.next() {
        let next = lines.peek().copied().unwrap_or_default();
        if line.trim_ascii_end() == PREAMBLE[0] && next.trim_ascii_end() == PREAMBLE[1] {
            lines.next();
            if seen {
                continue;
            }
            seen = true;
            out.extend_from_slice(line);
            out.extend_from_slice(next);
            continue;
        }
        out.extend_from_slice(line);
    }
    out
}

/// Where the full documentation is, closing every page's SEE ALSO.
const GUIDE_POINTER: &str = "The guide, a tour of every command and flag with examples: \
     docs/GUIDE.md in ndjq's source repository. Diagnostic codes, exit statuses and the event \
     and stats schemas: docs/REFERENCE.md.";

fn examples_section(roff: &mut Roff, key: &str) {
    let examples = examples_of(key);
    if examples.is_empty() {
        return;
    }
    roff.control("SH", ["EXAMPLES"]);
    for ex in examples {
        roff.control("PP", []);
        roff.text([roman(capitalized(ex.does))]);
        roff.control("PP", []);
        roff.control("RS", ["4"]);
        roff.control("nf", []);
        for line in ex.run.lines() {
            roff.text([bold(line)]);
        }
        roff.control("fi", []);
        roff.control("RE", []);
    }
}

/// The exit-code policy of `crate::cli::exit`, for people.
fn exit_status_section(roff: &mut Roff) {
    roff.control("SH", ["EXIT STATUS"]);
    let rows = [
        (
            "0",
            "Success: validate or gaps found nothing at or above --fail-on; filter selected a \
             record (or the input was empty); events, stats, man and completions did their \
             work.",
        ),
        (
            "1",
            "Findings: validate or gaps found a diagnostic at or above --fail-on (gaps: a \
             warning by default, so any gap fails); filter selected no record.",
        ),
        (
            "2",
            "A usage error (a bad flag or value) or an I/O error (a file that cannot be read, \
             a folder with no logs). It wins over 1. Records that are not valid JSON are data, \
             not errors: they never cause status 2.",
        ),
        (
            "N, 128+N, 124, 126, 127",
            "A wrapped command (-- CMD) failed, as with timeout(1): its own status, 128+N \
             after signal N, 124 after a stall with no restart left, 126 or 127 when it \
             cannot be run or found; 1 when ndjq gave up on its garbage.",
        ),
        (
            "130, 143, 129",
            "ndjq was interrupted (SIGINT, SIGTERM, SIGHUP) while supervising a command, and \
             passed the signal on; with --follow, how a follow ends (output flushed, summary \
             written).",
        ),
    ];
    for (code, meaning) in rows {
        roff.control("TP", []);
        roff.text([bold(code)]);
        roff.text([roman(meaning)]);
    }
    roff.control("PP", []);
    roff.text([roman(
        "A closed standard output (ndjq ... | head) ends ndjq quietly with status 0.",
    )]);
}

fn environment_section(roff: &mut Roff) {
    roff.control("SH", ["ENVIRONMENT"]);
    let rows = [
        (
            "NO_COLOR",
            "When set and not empty, --color auto never colours.",
        ),
        (
            "CLICOLOR_FORCE",
            "When set and not 0, --color auto colours even when the output is not a \
             terminal (it wins over NO_COLOR). --color always and never win over both.",
        ),
        (
            "COLUMNS",
            "When exported and the output is a terminal: the width tool calls and system \
             messages of the events text transcript are cut to (else 100 columns). Help \
             texts fit the terminal, up to 100 columns.",
        ),
    ];
    for (name, meaning) in rows {
        roff.control("TP", []);
        roff.text([bold(name)]);
        roff.text([roman(meaning)]);
    }
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect::<String>() + ".",
        None => String::new(),
    }
}
