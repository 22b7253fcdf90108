//! Command-line surgery shared by the agents' resume rules (each agent's own rule lives in
//! its module).

use std::ffi::{OsStr, OsString};

/// `args` without the options in `valued` (with their value, also as `--opt=value`) and
/// the flags in `flags`.
pub(super) fn without_options(
    args: &[OsString],
    valued: &[&[u8]],
    flags: &[&[u8]],
) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_encoded_bytes();
        if valued.contains(&a) {
            i += 2;
            continue;
        }
        let joined = valued.iter().any(|v| {
            a.len() > v.len() + 1 && a.starts_with(v) && a[v.len()] == b'=' && v.starts_with(b"--")
        });
        if joined || flags.contains(&a) {
            i += 1;
            continue;
        }
        out.push(args[i].clone());
        i += 1;
    }
    out
}

/// The program with its arguments, less the options (`valued`, with their value) and
/// flags that choose another session, and `--resume ID` after them: how Claude Code,
/// Gemini CLI, Qwen Code and Cursor resume.
pub(super) fn with_resume_flag(
    program: &OsStr,
    args: &[OsString],
    valued: &[&[u8]],
    flags: &[&[u8]],
    id: &str,
) -> Vec<OsString> {
    let mut argv = vec![program.to_os_string()];
    argv.extend(without_options(args, valued, flags));
    argv.push("--resume".into());
    argv.push(id.into());
    argv
}

/// `v` as a command line's arguments, for the agents' resume tests.
#[cfg(test)]
pub(super) fn os(v: &[&str]) -> Vec<std::ffi::OsString> {
    v.iter().map(std::ffi::OsString::from).collect()
}
