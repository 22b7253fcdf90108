//! `--format text`: events as a terminal transcript.

use super::*;

impl EventWriter {
    pub(super) fn paint(&self, text: &str, style: Style) -> String {
        self.painter.paint(text, style)
    }

    pub(super) fn label(&self, name: &str, style: Style) -> String {
        self.paint(&format!("{name:<LABEL_WIDTH$}"), style)
    }

    /// Writes `lines` under a label: the first after it, the others indented to match.
    /// `more` lines left out are noted at the end.
    pub(super) fn block<W: Write + ?Sized>(
        &self,
        out: &mut W,
        label: &str,
        lines: &[String],
        style: Style,
        more: usize,
    ) -> io::Result<()> {
        let indent = " ".repeat(LABEL_WIDTH);
        for (i, line) in lines.iter().enumerate() {
            let head = if i == 0 { label } else { &indent };
            if line.trim().is_empty() {
                writeln!(out, "{}", head.trim_end())?;
            } else {
                writeln!(out, "{head}{}", self.paint(line, style))?;
            }
        }
        if lines.is_empty() {
            writeln!(out, "{}", label.trim_end())?;
        }
        if more > 0 {
            let note = format!(
                "… ({} more {})",
                more,
                if more == 1 { "line" } else { "lines" }
            );
            writeln!(out, "{indent}{}", self.paint(&note, Style::new().dimmed()))?;
        }
        Ok(())
    }

    pub(super) fn write_text<W: Write + ?Sized>(
        &mut self,
        out: &mut W,
        ev: &Event<'_>,
    ) -> io::Result<()> {
        if self.file.as_deref() != Some(ev.file) {
            self.file = Some(ev.file.to_string());
            let header = format!("── {}", sanitize(ev.file));
            writeln!(out, "{}", self.paint(&header, Style::new().bold().dimmed()))?;
        }
        let plain = Style::new();
        let dim = Style::new().dimmed();
        let red = Style::new().red();
        match &ev.body {
            Body::Init {
                model,
                cwd,
                tools,
                permission_mode,
            } => {
                let mut parts = Vec::new();
                if let Some(s) = ev.session {
                    parts.push(format!("session {s}"));
                }
                if let Some(m) = model {
                    parts.push(format!("model {m}"));
                }
                if let Some(c) = cwd {
                    parts.push(format!("cwd {c}"));
                }
                if let Some(t) = tools {
                    let mut n = 0u64;
                    t.for_each_element(|_| n += 1);
                    parts.push(plural(n, "tool"));
                }
                if let Some(p) = permission_mode {
                    parts.push(format!("permission {p}"));
                }
                let line = sanitize(&parts.join(" · ")).into_owned();
                let label = self.label("init", Style::new().cyan().bold());
                self.block(out, &label, &[line], plain, 0)
            }
            Body::User { text, .. } => {
                let (lines, more) = excerpt(text.as_str(), TEXT_LINES, TEXT_CHARS);
                let label = self.label("user", Style::new().green().bold());
                self.block(out, &label, &lines, plain, more)
            }
            Body::Text { text, .. } => {
                let (lines, more) = excerpt(text.as_str(), TEXT_LINES, TEXT_CHARS);
                let label = self.label("assistant", Style::new().blue().bold());
                self.block(out, &label, &lines, plain, more)
            }
            Body::Thinking { text } => {
                let (mut lines, more) = excerpt(text.as_str(), THINKING_LINES, THINKING_CHARS);
                if lines.is_empty() {
                    lines.push("(not shown in the log)".to_string());
                }
                let label = self.label("thinking", dim);
                self.block(out, &label, &lines, dim, more)
            }
            Body::ToolUse { name, input, .. } => {
                let name = sanitize(name.unwrap_or("(unnamed)")).into_owned();
                let room = self
                    .width
                    .saturating_sub(LABEL_WIDTH + name.chars().count() + 1);
                let arg = input
                    .as_ref()
                    .and_then(|i| key_argument(i))
                    .map(|a| one_line(&a, room));
                let line = match arg {
                    Some(a) if !a.is_empty() => {
                        format!("{} {a}", self.paint(&name, Style::new().bold()))
                    }
                    _ => self.paint(&name, Style::new().bold()),
                };
                let label = self.label("tool", Style::new().yellow().bold());
                writeln!(out, "{label}{line}")
            }
            Body::ToolResult {
                is_error, content, ..
            } => {
                let text = content.as_ref().map(|c| match c.as_str() {
                    Some(s) => Cow::Borrowed(s),
                    None => Cow::Owned(c.to_compact_string()),
                });
                let shown = text.as_deref().map(command_output).unwrap_or_default();
                let (mut lines, more) = excerpt_compact(shown, RESULT_LINES, RESULT_CHARS);
                let (mark, style) = if *is_error {
                    ("✗ ", red)
                } else {
                    ("↳ ", dim)
                };
                if lines.is_empty() {
                    lines.push(if *is_error { "(failed)" } else { "(no output)" }.to_string());
                }
                for (i, line) in lines.iter_mut().enumerate() {
                    let lead = if i == 0 { mark } else { "  " };
                    *line = format!("{lead}{line}");
                }
                let indent = " ".repeat(LABEL_WIDTH);
                self.block(out, &indent, &lines, style, more)
            }
            Body::Usage(_) => Ok(()),
            Body::Result(r) => {
                let mut parts = Vec::new();
                let status = if r.success {
                    format!("✓ {}", r.subtype.unwrap_or("completed"))
                } else if r.is_error {
                    match r.subtype {
                        Some(st) => format!("✗ error (subtype {st})"),
                        None => "✗ error".to_string(),
                    }
                } else {
                    format!("✗ {}", r.subtype.unwrap_or("not completed"))
                };
                let status_style = if r.success {
                    Style::new().green().bold()
                } else {
                    Style::new().red().bold()
                };
                parts.push(self.paint(&sanitize(&status), status_style));
                if let Some(t) = r.turns {
                    parts.push(plural(t, "turn"));
                }
                if let Some(d) = r.duration_ms {
                    parts.push(duration(d));
                }
                if let Some(c) = r.cost_usd {
                    parts.push(format!("${c:.4}"));
                }
                if r.input.is_some() || r.output.is_some() {
                    parts.push(format!(
                        "{} in / {} out",
                        thousands(r.input.unwrap_or(0)),
                        thousands(r.output.unwrap_or(0))
                    ));
                }
                let label = self.label("result", Style::new().bold());
                writeln!(out, "{label}{}", parts.join(" · "))?;
                // A successful result's text repeats the last answer: shown only for failures.
                match &r.text {
                    Some(text) if !r.success => {
                        let (lines, more) = excerpt(text, RESULT_LINES, RESULT_CHARS);
                        let style = if r.is_error { red } else { plain };
                        let indent = " ".repeat(LABEL_WIDTH);
                        self.block(out, &indent, &lines, style, more)
                    }
                    _ => Ok(()),
                }
            }
            Body::System {
                subtype,
                message,
                model,
            } => {
                let subtype = subtype.unwrap_or("system");
                let mut line = subtype.to_string();
                if let Some(m) = message {
                    line.push_str(": ");
                    line.push_str(m);
                }
                if let Some(m) = model {
                    line.push_str(": model ");
                    line.push_str(m);
                }
                let style = if subtype.contains("error") || subtype.contains("retry") {
                    Style::new().yellow()
                } else {
                    dim
                };
                let line = one_line(&line, self.width - LABEL_WIDTH);
                let label = self.label("system", dim);
                writeln!(out, "{label}{}", self.paint(&line, style))
            }
            Body::Rpc {
                id,
                method,
                direction,
                error,
            } => {
                let id = id.map(|i| format!("#{}", i.to_compact_string()));
                let method = method.unwrap_or("?");
                let (line, style) = match direction {
                    crate::event::Direction::Request => (
                        format!("→ {method} {}", id.unwrap_or_default()),
                        Style::new().cyan(),
                    ),
                    crate::event::Direction::Notification => (format!("· {method}"), dim),
                    crate::event::Direction::Response => match error {
                        Some(e) => {
                            let why = e
                                .str("message")
                                .map(str::to_string)
                                .unwrap_or_else(|| e.to_compact_string());
                            (
                                format!("← {} {method} ✗ {why}", id.unwrap_or_default()),
                                red,
                            )
                        }
                        None => (
                            format!("← {} {method} ✓", id.unwrap_or_default()),
                            Style::new().cyan(),
                        ),
                    },
                };
                let line = one_line(&line, self.width - LABEL_WIDTH);
                let label = self.label("rpc", Style::new().cyan().bold());
                writeln!(out, "{label}{}", self.paint(&line, style))
            }
            Body::Unknown { ty, raw } => {
                let line = format!("{} {}", ty.unwrap_or("(no type)"), raw.to_compact_string());
                let line = one_line(&line, self.width - LABEL_WIDTH);
                let label = self.label("unknown", Style::new().magenta());
                writeln!(out, "{label}{}", self.paint(&line, dim))
            }
        }
    }
}

/// The argument that says what a tool call does: a command, a file, a pattern, a URL, a
/// query; else a short compact JSON of the input.
pub(super) fn key_argument(input: &Nested<'_>) -> Option<String> {
    if let Some(s) = input.as_str() {
        return Some(s.to_string());
    }
    if let Some(argv) = input.strings_at("command") {
        return Some(match argv.as_slice() {
            [shell, flag, script]
                if ["bash", "sh", "zsh"].iter().any(|s| shell.ends_with(s))
                    && matches!(*flag, "-c" | "-lc") =>
            {
                script.to_string()
            }
            _ => argv.join(" "),
        });
    }
    let keys = [
        "command",
        "cmd",
        "file_path",
        "notebook_path",
        "pattern",
        "path",
        "url",
        "query",
        "description",
        "prompt",
    ];
    if let Some(s) = keys.iter().find_map(|k| input.str_at(k)) {
        return Some(s.to_string());
    }
    let paths = input.changed_paths();
    if !paths.is_empty() {
        let list: Vec<String> = paths
            .iter()
            .map(|(kind, path)| match kind {
                Some(k) => format!("{k} {path}"),
                None => path.to_string(),
            })
            .collect();
        return Some(list.join(", "));
    }
    Some(input.to_compact_string())
}

/// The part of a command's output worth showing: Codex prefixes it with a few lines of
/// bookkeeping (`Exit code`, `Wall time`, ...) closed by `Output:`.
pub(super) fn command_output(text: &str) -> &str {
    let mut offset = 0;
    for line in text.split_inclusive('\n').take(8) {
        offset += line.len();
        if line.trim_end() == "Output:" {
            return &text[offset..];
        }
    }
    text
}

/// The first `max_lines` lines of `text`, with at most `max_chars` characters in all, made
/// safe for a terminal, and how many lines were left out.
pub(super) fn excerpt(text: &str, max_lines: usize, max_chars: usize) -> (Vec<String>, usize) {
    excerpt_lines(text.lines(), max_lines, max_chars)
}

/// Like [`excerpt`], leaving out blank lines (tool output is read for its content).
pub(super) fn excerpt_compact(
    text: &str,
    max_lines: usize,
    max_chars: usize,
) -> (Vec<String>, usize) {
    excerpt_lines(
        text.lines().filter(|l| !l.trim().is_empty()),
        max_lines,
        max_chars,
    )
}

pub(super) fn excerpt_lines<'t>(
    all: impl Iterator<Item = &'t str>,
    max_lines: usize,
    max_chars: usize,
) -> (Vec<String>, usize) {
    let mut lines: Vec<String> = Vec::new();
    let mut budget = max_chars;
    let mut total: usize = 0;
    let mut trailing_blank: usize = 0;
    let mut cut = false;
    // Blank lines at the start are skipped, at the end not counted.
    for line in all.skip_while(|l| l.trim().is_empty()) {
        if line.trim().is_empty() {
            trailing_blank += 1;
        } else {
            trailing_blank = 0;
        }
        total += 1;
        if cut || lines.len() >= max_lines {
            continue;
        }
        let n = line.chars().count();
        if n <= budget {
            lines.push(sanitize(line).into_owned());
            budget -= n;
        } else {
            let head: String = line.chars().take(budget).collect();
            lines.push(format!("{}…", sanitize(&head)));
            cut = true;
        }
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    let shown = lines.len();
    (lines, (total - trailing_blank).saturating_sub(shown))
}

/// The first line of `text`, fit to `width` characters, made safe for a terminal.
pub(super) fn one_line(text: &str, width: usize) -> String {
    let mut lines = text.trim().lines();
    let first = lines.next().unwrap_or_default();
    let more = lines.next().is_some();
    let first = sanitize(first);
    let n = first.chars().count();
    if n <= width && !more {
        first.into_owned()
    } else {
        let keep = width.saturating_sub(1).min(n);
        let head: String = first.chars().take(keep).collect();
        format!("{head}…")
    }
}

pub(super) fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{} {word}s", thousands(n))
    }
}

pub(super) fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}
