//! Validated configuration: the raw flags resolved once into plain values (sources,
//! pipeline options, colour, buffering). Terminal detection happens here and nowhere else.

use super::args::{ChildArgs, ColorArg, InputArgs, OutputArgs};
use anyhow::{bail, Result};
use ndjq::dialect::store;
use ndjq::input::follow::FollowOptions;
use ndjq::input::{self, FileId, OwnOutputs, Source};
use ndjq::pipeline::Options;
use ndjq::sink::Painter;
use ndjq::supervisor::ChildOptions;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The default thread count is one per core, up to this many: past it the merge on the
/// calling thread, not the workers, sets the pace, and each worker adds its buffers to the
/// peak memory (as ripgrep caps its default at 12).
const DEFAULT_MAX_THREADS: usize = 8;

/// What every reading command needs, resolved.
#[derive(Debug)]
pub struct Common {
    pub sources: Sources,
    pub options: Options,
    /// Colour on stdout.
    pub painter: Painter,
    /// Colour on stderr.
    pub err_painter: Painter,
    pub stdout_is_tty: bool,
    /// Columns text for people is fit to on stdout.
    pub text_width: usize,
    pub line_buffered: bool,
    pub quiet: bool,
    pub rejects: Option<PathBuf>,
    /// Worker threads for regular files.
    pub threads: usize,
    /// The wrapped command (`-- CMD`), read instead of the sources.
    pub child: Option<ChildOptions>,
    /// `--follow`: keep reading the files as they grow.
    pub follow: Option<FollowOptions>,
}

impl Common {
    pub fn resolve(input: &InputArgs, output: &OutputArgs, child: &ChildArgs) -> Result<Common> {
        let stdin_count = input.paths.iter().filter(|p| p.as_os_str() == "-").count();
        if stdin_count > 1 {
            bail!("`-` (stdin) is given {stdin_count} times; stdin can be read only once");
        }
        let Some(type_field) = ndjq::json::parse_path(&input.type_field) else {
            bail!(
                "--type-field `{}` is not a dotted path like `type` or `event.kind`",
                input.type_field
            );
        };
        let child = child_options(input, child)?;
        if input.follow.follow && child.is_some() {
            bail!("--follow reads files as they grow; a wrapped command's output is read live without it");
        }
        let paths = match child {
            Some(_) => None,
            None if input.paths.is_empty() && std::io::stdin().is_terminal() => {
                Some(agent_folders(output.quiet)?)
            }
            None => Some(input.paths.clone()),
        };
        let own = own_outputs(paths.as_deref().unwrap_or_default(), input, child.as_ref())?;
        let follow = input.follow.follow.then(|| FollowOptions {
            // A poll of 0 would spin.
            poll: input.follow.poll.map(|p| p.max(Duration::from_millis(10))),
            own: own.clone(),
        });
        let sources = Sources { paths, own };
        let reads_stdin = sources.reads_stdin();
        let stdout_is_tty = std::io::stdout().is_terminal();
        let stderr_is_tty = std::io::stderr().is_terminal();
        // A live source: each record is written as it comes.
        let line_buffered = output.line_buffered
            || child.is_some()
            || follow.is_some()
            || (reads_stdin && stdin_is_pipe() && !stdout_is_regular_file());
        Ok(Common {
            sources,
            options: Options {
                max_line_bytes: input.limits.max_line_bytes,
                max_depth: usize::from(input.limits.max_depth),
                dialect: input.limits.dialect.map(|d| d.0),
                type_field,
                recover: input.recover,
                ..Options::default()
            },
            painter: Painter::new(color_enabled(output.color, stdout_is_tty)),
            err_painter: Painter::new(color_enabled(output.color, stderr_is_tty)),
            stdout_is_tty,
            text_width: text_width(stdout_is_tty, std::env::var("COLUMNS").ok().as_deref()),
            line_buffered,
            quiet: output.quiet,
            rejects: input.rejects.clone(),
            threads: match input.threads {
                0 => std::thread::available_parallelism()
                    .map_or(1, |n| n.get().min(DEFAULT_MAX_THREADS)),
                n => n,
            },
            child,
            follow,
        })
    }
}

/// The inputs named on the command line, walked when they are read: a reader starts on
/// the first files of a large tree while the rest of it is unlisted.
#[derive(Debug)]
pub struct Sources {
    /// `None` with a wrapped command (`-- CMD`), the only input then.
    paths: Option<Vec<PathBuf>>,
    /// The files this run writes: never read (see [`own_outputs`]).
    own: OwnOutputs,
}

impl Sources {
    /// The paths as the command line resolved them (none with a wrapped command).
    pub fn paths(&self) -> &[PathBuf] {
        self.paths.as_deref().unwrap_or(&[])
    }

    /// The sources in order (see [`input::Walk`]); each call walks the folders again.
    pub fn iter(&self) -> impl Iterator<Item = Result<Source, ndjq::Error>> {
        let own = self.own.clone();
        self.paths
            .as_deref()
            .map(|p| input::Walk::excluding(p, own))
            .into_iter()
            .flatten()
    }

    /// Records a file this run has just created for writing (`--rejects`), so a walk that
    /// reaches it skips it.
    pub fn add_output(&self, file: &std::fs::File) {
        if let Some(id) = FileId::of(file) {
            self.own.add(id);
        }
    }

    /// Records a file this run will write (`report -o FILE`) that exists already: a walk
    /// skips it, and one the inputs would read is a usage error, as for `--rejects`
    /// (see [`own_outputs`]).
    pub fn add_output_path(&self, flag: &str, path: &Path) -> Result<()> {
        let Some(output) = Output::of_path(flag, path) else {
            return Ok(());
        };
        let id = output.id;
        refuse_as_inputs(self.paths(), true, &[output])?;
        self.own.add(id);
        Ok(())
    }

    /// Whether stdin is among them: no path, or `-`.
    pub fn reads_stdin(&self) -> bool {
        self.paths
            .as_ref()
            .is_some_and(|p| p.is_empty() || p.iter().any(|p| p.as_os_str() == "-"))
    }
}

/// What a reading command reads when it is given no path and stdin is a terminal (a
/// person who types `ndjq stats` wants their agents' logs, not a wait for input): the
/// agents' log folders that exist and hold logs (see [`input::agent_log_folders`]), named
/// on stderr unless quiet. None is a usage error that says where it looked.
pub fn agent_folders(quiet: bool) -> Result<Vec<PathBuf>> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let places = input::agent_log_folders(|k| std::env::var_os(k), home.as_deref());
    let mut found = Vec::new();
    let mut shown = Vec::new();
    for place in &places {
        let folders = place.existing();
        if !folders.is_empty() {
            shown.push(place.shown(home.as_deref()));
            found.extend(folders);
        }
    }
    // OpenCode keeps SQLite, not NDJSON: its stores are named as files.
    let (stores, store_place) = store::default_stores(|k| std::env::var_os(k), home.as_deref());
    let home_relative = |p: &Path| match home.as_deref().and_then(|h| p.strip_prefix(h).ok()) {
        Some(rest) if !rest.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => p.display().to_string(),
    };
    shown.extend(stores.iter().map(|p| home_relative(p)));
    found.extend(stores);
    if found.is_empty() {
        let mut looked: Vec<String> = places.iter().map(|p| p.shown(home.as_deref())).collect();
        looked.extend(store_place.as_deref().map(home_relative));
        bail!(
            "no PATH given and stdin is a terminal, and no agent's log folder was found \
             (looked in {}); give a file or folder, or `-` to read stdin",
            if looked.is_empty() {
                "no folder: HOME is not set".to_string()
            } else {
                looked.join(", ")
            }
        );
    }
    if !quiet {
        let shown: Vec<String> = shown
            .iter()
            .map(|s| ndjq::sink::sanitize(s).into_owned())
            .collect();
        eprintln!("ndjq: reading {}", shown.join(", "));
    }
    Ok(found)
}

/// A file this run writes that exists already, as a refusal names it.
struct Output {
    /// The flag and its path (`--rejects logs/bad.jsonl`), or `stdout`.
    label: String,
    id: FileId,
    /// It was there before this run: a regular file named by a flag, or stdout that holds
    /// bytes (`>> logs/a.jsonl`). Stdout that is empty was just made by the shell's
    /// `>` for this run (`> logs/all.jsonl`): a walk skips it instead.
    was_there: bool,
}

impl Output {
    fn of_path(flag: &str, path: &Path) -> Option<Output> {
        // A walk takes regular files only: a device or FIFO output is never met there.
        let is_file = std::fs::metadata(path).is_ok_and(|m| m.is_file());
        Some(Output {
            label: format!("{flag} {}", ndjq::sink::sanitize(&input::path_name(path))),
            id: FileId::of_path(path)?,
            was_there: is_file,
        })
    }

    fn of_stdout() -> Option<Output> {
        use std::os::fd::AsFd;
        let fd = std::io::stdout();
        let id = FileId::of_fd(fd.as_fd())?;
        let len = fd
            .as_fd()
            .try_clone_to_owned()
            .ok()
            .and_then(|o| std::fs::File::from(o).metadata().ok())
            .map_or(0, |m| m.len());
        Some(Output {
            label: "stdout".to_string(),
            id,
            was_there: len > 0,
        })
    }
}

/// The files this run writes that already exist (stdout redirected to a regular file, a
/// `--rejects` or `--tee` file), checked against `paths`, what the run reads (the command
/// line's, or the agents' folders when it names none), by identity (device and inode: a
/// symlink, hard link or `..` path names the same file). One the inputs would read is a
/// usage error, raised here, before anything is opened for writing or truncated
/// ([`refuse_as_inputs`]): `validate --rejects in.jsonl in.jsonl` would otherwise empty
/// its input before reading it. Stdout that a folder walk meets and that holds nothing
/// yet (`> logs/all.jsonl` made it for this run) is skipped with a note ([`input::Walk`]),
/// as is a `--rejects` file the run creates, added when it is made
/// ([`Sources::add_output`]).
fn own_outputs(
    paths: &[PathBuf],
    input: &InputArgs,
    child: Option<&ChildOptions>,
) -> Result<OwnOutputs> {
    let own = OwnOutputs::default();
    let mut named: Vec<Output> = Vec::new();
    named.extend(Output::of_stdout());
    let written = [
        ("--rejects", input.rejects.as_deref()),
        ("--tee", child.and_then(|c| c.tee.as_deref())),
    ];
    for (flag, path) in written {
        named.extend(path.and_then(|p| Output::of_path(flag, p)));
    }
    for output in &named {
        own.add(output.id);
    }
    if named.is_empty() {
        return Ok(own);
    }
    refuse_as_inputs(paths, child.is_none(), &named)?;
    Ok(own)
}

/// The usage error for an input that is one of the `named` outputs: stdin (when
/// `stdin_read` and it is read), a path named on the command line, or a file that was
/// there before the run ([`Output::was_there`]) and that the walk of a named folder would
/// read (docs/REFERENCE.md, "Nothing ndjq writes is read as its input"). One check for
/// every output a run writes (`--rejects`, `--tee`, stdout, `report -o`). The folders are
/// walked only when such an output exists.
fn refuse_as_inputs(paths: &[PathBuf], stdin_read: bool, named: &[Output]) -> Result<()> {
    use std::os::fd::AsFd;
    let output_of = |id: FileId| named.iter().find(|o| o.id == id).map(|o| o.label.clone());
    let reads_stdin = paths.is_empty() || paths.iter().any(|p| p.as_os_str() == "-");
    if reads_stdin && stdin_read {
        if let Some(output) = FileId::of_input_fd(std::io::stdin().as_fd()).and_then(output_of) {
            bail!("stdin is the same file as {output}: an input is never also an output");
        }
    }
    for path in paths.iter().filter(|p| p.as_os_str() != "-") {
        if let Some(output) = FileId::of_path(path).and_then(output_of) {
            bail!(
                "input {} is the same file as {output}: an input is never also an output",
                shown(path)
            );
        }
    }
    if !named.iter().any(|o| o.was_there) {
        return Ok(());
    }
    let with_data = |id: FileId| {
        named
            .iter()
            .find(|o| o.was_there && o.id == id)
            .map(|o| o.label.clone())
    };
    for folder in paths.iter().filter(|p| p.as_os_str() != "-" && p.is_dir()) {
        let found = input::Walk::new(std::slice::from_ref(folder)).filter_map(|s| match s {
            Ok(Source::File(p)) => Some(p),
            _ => None,
        });
        for file in found {
            if let Some(output) = FileId::of_path(&file).and_then(with_data) {
                bail!(
                    "input {} (found in folder {}) is the same file as {output}: an input \
                     is never also an output; nothing was written",
                    shown(&file),
                    shown(folder)
                );
            }
        }
    }
    Ok(())
}

/// A path in a message: non-UTF-8 bytes as `\xNN`, terminal controls escaped.
fn shown(path: &Path) -> String {
    ndjq::sink::sanitize(&input::path_name(path)).into_owned()
}

/// The wrapped command and how to watch it, when `-- CMD` is given.
fn child_options(input: &InputArgs, c: &ChildArgs) -> Result<Option<ChildOptions>> {
    let Some((program, args)) = input.command.split_first() else {
        return Ok(None);
    };
    if !input.paths.is_empty() {
        bail!("give PATHs or `-- CMD`, not both: a wrapped command is the only input");
    }
    Ok(Some(ChildOptions {
        program: program.clone(),
        args: args.to_vec(),
        restart_errors: c.restart_after.errors,
        restart_window: c.restart_after.window,
        max_restarts: c.max_restarts,
        grace: c.grace,
        idle_timeout: c.idle_timeout,
        restart_cmd: c.restart_cmd.clone(),
        tee: c.tee.clone(),
        stderr: c.stderr_file.clone(),
        report_no_result: true,
        // The trampoline that ties the child's life to ndjq's; without it (no known path
        // to this binary), the child is started directly.
        launcher: std::env::current_exe().ok(),
    }))
}

/// `--color auto` colours a terminal unless NO_COLOR is set; CLICOLOR_FORCE forces colour
/// (it wins over NO_COLOR, as in the clicolors convention). Explicit choices win over both.
pub fn color_enabled(arg: ColorArg, is_tty: bool) -> bool {
    let env_set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty() && v != "0");
    match arg {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto if env_set("CLICOLOR_FORCE") => true,
        ColorArg::Auto if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) => false,
        ColorArg::Auto => is_tty,
    }
}

/// The width of text for people on stdout: on a terminal, `COLUMNS` when it holds a
/// number (shells keep it at the terminal's width, but export it only when told to);
/// otherwise, and always in pipes and files, the fixed width that keeps output the same.
fn text_width(stdout_is_tty: bool, columns: Option<&str>) -> usize {
    let from_env = columns.and_then(|c| c.trim().parse::<usize>().ok());
    match from_env {
        Some(w) if stdout_is_tty && w > 0 => w,
        _ => ndjq::sink::events::DEFAULT_WIDTH,
    }
}

/// The kind of file behind a standard stream, if it can be told.
fn file_type_of(fd: std::os::fd::BorrowedFd<'_>) -> Option<std::fs::FileType> {
    let owned = fd.try_clone_to_owned().ok()?;
    std::fs::File::from(owned)
        .metadata()
        .ok()
        .map(|m| m.file_type())
}

fn stdin_is_pipe() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    file_type_of(std::io::stdin().as_fd())
        .is_some_and(|t| t.is_fifo() || t.is_socket() || t.is_char_device())
}

/// Whether stdin is a regular file (`ndjq validate < file`): it can be read in batches.
pub fn stdin_is_file() -> bool {
    use std::os::fd::AsFd;
    file_type_of(std::io::stdin().as_fd()).is_some_and(|t| t.is_file())
}

fn stdout_is_regular_file() -> bool {
    use std::os::fd::AsFd;
    file_type_of(std::io::stdout().as_fd()).is_some_and(|t| t.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_fits_the_terminal_only_on_a_terminal() {
        assert_eq!(text_width(true, Some("132")), 132);
        assert_eq!(text_width(true, Some(" 80\n")), 80);
        assert_eq!(text_width(true, None), 100);
        assert_eq!(text_width(true, Some("wide")), 100);
        assert_eq!(text_width(true, Some("0")), 100);
        assert_eq!(text_width(false, Some("132")), 100);
    }
}
