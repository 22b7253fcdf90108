//! Bar charts as inline SVG: columns over time, rows by category. Every bar is a `<g
//! class="bar">` whose `data-key` and `data-value` hold its key and exact figure and
//! whose `<title>` says them (a tooltip on hover, the accessible name for a screen
//! reader); each stacked part has its own `<title>`. Colours are classes (`s0`…), set by
//! the page's style sheet for light, dark and print.

use super::escape::escape_into;
use std::fmt::Write as _;

/// Series beyond this many are drawn as one, "other" (class `s8`); `s9` is the colour of
/// failure (failed tool calls).
pub const MAX_SERIES: usize = 8;
/// The series index drawn in the colour of failure.
pub const BAD_SERIES: usize = 9;

/// One bar: its key, and its parts by series index.
#[derive(Debug, Clone, Default)]
pub struct Bar {
    pub key: String,
    pub parts: Vec<(usize, f64)>,
    /// Extra words for the bar's title (tokens beside a cost, an error rate).
    pub note: Option<String>,
    /// A second figure drawn at the end of a row (an error rate), with the class it takes.
    pub tail: Option<(String, &'static str)>,
}

impl Bar {
    pub fn total(&self) -> f64 {
        self.parts.iter().map(|p| p.1).sum()
    }
}

/// A chart: its id, accessible label, series names and bars.
#[derive(Debug)]
pub struct Chart<'a> {
    pub id: &'a str,
    pub label: &'a str,
    pub series: &'a [String],
    pub bars: &'a [Bar],
    /// Writes a figure as people read it (`$1.23`, `1,234`).
    pub format: fn(f64) -> String,
    /// The figure as written in `data-value` (exact).
    pub exact: fn(f64) -> String,
}

fn bar_title(out: &mut String, chart: &Chart<'_>, bar: &Bar) {
    out.push_str("<title>");
    escape_into(out, &bar.key);
    out.push_str(": ");
    out.push_str(&(chart.format)(bar.total()));
    if bar.parts.len() > 1 {
        out.push_str(" (");
        for (i, (s, v)) in bar.parts.iter().enumerate() {
            if i > 0 {
                out.push_str("; ");
            }
            escape_into(out, chart.series.get(*s).map_or("", String::as_str));
            out.push_str(": ");
            out.push_str(&(chart.format)(*v));
        }
        out.push(')');
    }
    if let Some(n) = &bar.note {
        out.push_str(", ");
        escape_into(out, n);
    }
    out.push_str("</title>");
}

fn part_title(out: &mut String, chart: &Chart<'_>, bar: &Bar, series: usize, value: f64) {
    out.push_str("<title>");
    escape_into(out, &bar.key);
    if let Some(name) = chart.series.get(series) {
        out.push_str(", ");
        escape_into(out, name);
    }
    out.push_str(": ");
    out.push_str(&(chart.format)(value));
    out.push_str("</title>");
}

fn open_bar(out: &mut String, chart: &Chart<'_>, bar: &Bar) {
    out.push_str("<g class=\"bar\" tabindex=\"0\" data-key=\"");
    escape_into(out, &bar.key);
    out.push_str("\" data-value=\"");
    out.push_str(&(chart.exact)(bar.total()));
    out.push_str("\">");
    bar_title(out, chart, bar);
}

fn open_svg(out: &mut String, chart: &Chart<'_>, width: u32, height: u32) {
    let _ = write!(
        out,
        "<svg class=\"chart\" id=\"{}\" role=\"img\" viewBox=\"0 0 {width} {height}\" \
         aria-label=\"",
        chart.id
    );
    escape_into(out, chart.label);
    out.push_str("\">");
}

/// A label cut to `max` characters (the whole key is in the bar's title).
fn short(key: &str, max: usize) -> String {
    if key.chars().count() <= max {
        return key.to_string();
    }
    let keep = max.saturating_sub(1) / 2;
    let head: String = key.chars().take(keep).collect();
    let tail: String = key
        .chars()
        .rev()
        .take(max.saturating_sub(1) - keep)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("{head}…{tail}")
}

/// Columns, one per key (days, weeks, months, blocks), parts stacked.
pub fn columns(chart: &Chart<'_>) -> String {
    let n = chart.bars.len().max(1) as u32;
    let plot_w = 500u32;
    let step = plot_w / n;
    let (left, top, plot_h, bottom) = (60u32, 10u32, 150u32, 24u32);
    let width = left + plot_w + 12;
    let height = top + plot_h + bottom;
    let max = chart.bars.iter().map(Bar::total).fold(0.0, f64::max);
    let mut out = String::with_capacity(256 + chart.bars.len() * 256);
    open_svg(&mut out, chart, width, height);
    // The scale: zero, half and the top, with their figures.
    for (i, frac) in [0.0, 0.5, 1.0].iter().enumerate() {
        let y = top + plot_h - (f64::from(plot_h) * frac) as u32;
        let _ = write!(
            out,
            "<line class=\"grid\" x1=\"{left}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\"/>\
             <text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            left + plot_w,
            left - 4,
            y + 4,
            if i == 0 {
                "0".to_string()
            } else {
                (chart.format)(max * frac)
            }
        );
    }
    // As many labels as fit side by side (about 6 px a character).
    let longest = chart
        .bars
        .iter()
        .map(|b| b.key.chars().count().min(16) as u32)
        .max()
        .unwrap_or(1);
    let fit = (plot_w / (longest * 6 + 10)).max(1);
    let every = (chart.bars.len() as u32).div_ceil(fit).max(1);
    for (i, bar) in chart.bars.iter().enumerate() {
        let x = left + step * i as u32;
        open_bar(&mut out, chart, bar);
        let mut y = f64::from(top + plot_h);
        let w = (step - step / 5).clamp(2, 56);
        let x = x + (step - w) / 2;
        for (s, v) in &bar.parts {
            let h = if max > 0.0 {
                v / max * f64::from(plot_h)
            } else {
                0.0
            };
            y -= h;
            let _ = write!(
                out,
                "<rect class=\"s{}\" x=\"{x}\" y=\"{y:.1}\" width=\"{w}\" height=\"{h:.1}\">",
                s % 10
            );
            part_title(&mut out, chart, bar, *s, *v);
            out.push_str("</rect>");
        }
        // An empty column still takes the pointer (its title says 0).
        let _ = write!(
            out,
            "<rect class=\"hit\" x=\"{x}\" y=\"{top}\" width=\"{step}\" height=\"{plot_h}\"/>"
        );
        if (i as u32).is_multiple_of(every) {
            let _ = write!(
                out,
                "<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">",
                x + w / 2,
                top + plot_h + 14
            );
            escape_into(&mut out, &short(&bar.key, 16));
            out.push_str("</text>");
        }
        out.push_str("</g>");
    }
    out.push_str("</svg>");
    out
}

/// Rows, one per key (projects, agents, tools), parts stacked, the figure at the end.
pub fn rows(chart: &Chart<'_>) -> String {
    let row_h = 22u32;
    let (label_w, plot_w, figure_w) = (190u32, 330u32, 150u32);
    let n = chart.bars.len().max(1) as u32;
    let width = label_w + plot_w + figure_w;
    let height = row_h * n + 4;
    let max = chart.bars.iter().map(Bar::total).fold(0.0, f64::max);
    let mut out = String::with_capacity(256 + chart.bars.len() * 320);
    open_svg(&mut out, chart, width, height);
    for (i, bar) in chart.bars.iter().enumerate() {
        let y = row_h * i as u32 + 2;
        open_bar(&mut out, chart, bar);
        let _ = write!(
            out,
            "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">",
            label_w - 8,
            y + 15
        );
        escape_into(&mut out, &short(&bar.key, 28));
        out.push_str("</text>");
        let mut x = f64::from(label_w);
        for (s, v) in &bar.parts {
            let w = if max > 0.0 {
                v / max * f64::from(plot_w)
            } else {
                0.0
            };
            let _ = write!(
                out,
                "<rect class=\"s{}\" x=\"{x:.1}\" y=\"{}\" width=\"{w:.1}\" height=\"{}\">",
                s % 10,
                y + 2,
                row_h - 6
            );
            part_title(&mut out, chart, bar, *s, *v);
            out.push_str("</rect>");
            x += w;
        }
        let _ = write!(
            out,
            "<text class=\"figure\" x=\"{:.1}\" y=\"{}\">{}",
            x + 6.0,
            y + 15,
            (chart.format)(bar.total())
        );
        if let Some((tail, class)) = &bar.tail {
            let _ = write!(out, " <tspan class=\"{class}\">");
            escape_into(&mut out, tail);
            out.push_str("</tspan>");
        }
        out.push_str("</text></g>");
    }
    out.push_str("</svg>");
    out
}

/// The legend of a chart's series, as HTML.
pub fn legend(series: &[String]) -> String {
    let mut out = String::from("<ul class=\"legend\">");
    for (i, name) in series.iter().enumerate() {
        let _ = write!(out, "<li><span class=\"sw s{}\"></span>", i % 10);
        escape_into(&mut out, name);
        out.push_str("</li>");
    }
    out.push_str("</ul>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_cut_in_the_middle() {
        assert_eq!(short("abc", 5), "abc");
        assert_eq!(short("/home/me/projects/long-name", 11), "/home…-name");
    }
}
