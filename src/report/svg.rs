//! Minimal SVG charts: bar charts (grouped or stacked, linear or log
//! scale) and heat maps, with titled, labelled axes.

use std::fmt::Write;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 400.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 150.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;

/// Colours of successive series.
pub const PALETTE: [&str; 6] = [
    "#2b8a3e", "#868e96", "#c92a2a", "#1c7ed6", "#f08c00", "#7048e8",
];

/// A tick label: 203M, 51k, 12.
fn compact(v: f64) -> String {
    match v.abs() {
        a if a >= 1e6 => format!("{:.0}M", v / 1e6),
        a if a >= 1e4 => format!("{:.0}k", v / 1e3),
        _ => format!("{}", v.round()),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn header(title: &str, x_label: &str, y_label: &str) -> String {
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>
"#,
        WIDTH / 2.0,
        escape(title)
    );
    let _ = write!(
        s,
        r#"<text class="x-label" x="{}" y="{}" text-anchor="middle">{}</text>
<text class="y-label" transform="translate(18,{}) rotate(-90)" text-anchor="middle">{}</text>
"#,
        LEFT + (WIDTH - LEFT - RIGHT) / 2.0,
        HEIGHT - 12.0,
        escape(x_label),
        TOP + (HEIGHT - TOP - BOTTOM) / 2.0,
        escape(y_label)
    );
    s
}

/// A bar chart: one bar group per category, one bar (or stacked segment)
/// per series.
pub struct BarChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub categories: Vec<String>,
    pub series: Vec<(String, Vec<f64>)>,
    pub stacked: bool,
    pub log_y: bool,
}

impl BarChart {
    pub fn render(&self) -> String {
        let plot_w = WIDTH - LEFT - RIGHT;
        let plot_h = HEIGHT - TOP - BOTTOM;
        let n = self.categories.len().max(1);
        let totals: Vec<f64> = (0..n)
            .map(|i| {
                let vals = self
                    .series
                    .iter()
                    .map(|(_, v)| v.get(i).copied().unwrap_or(0.0));
                if self.stacked {
                    vals.sum()
                } else {
                    vals.fold(0.0, f64::max)
                }
            })
            .collect();
        let mins: Vec<f64> = (0..n)
            .map(|i| {
                self.series
                    .iter()
                    .map(|(_, v)| v.get(i).copied().unwrap_or(0.0))
                    .fold(0.0, f64::min)
            })
            .collect();
        let max = totals.iter().copied().fold(0.0, f64::max);
        let min = if self.stacked || self.log_y {
            0.0
        } else {
            mins.iter().copied().fold(0.0, f64::min)
        };
        let (lo, hi) = if self.log_y {
            (0.0, max.max(10.0).log10().ceil())
        } else if max == min {
            (min - 1.0, max + 1.0)
        } else {
            (min, max)
        };
        let y = |v: f64| {
            let v = if self.log_y {
                if v > 0.0 {
                    v.log10()
                } else {
                    0.0
                }
            } else {
                v
            };
            TOP + plot_h * (1.0 - (v - lo) / (hi - lo))
        };
        let mut s = header(&self.title, &self.x_label, &self.y_label);
        // Axes and ticks.
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{}" stroke="#333"/>"##,
            TOP + plot_h
        );
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{}" x2="{}" y2="{}" stroke="#333"/>"##,
            y(lo.max(0.0).min(hi)),
            LEFT + plot_w,
            y(lo.max(0.0).min(hi))
        );
        let ticks: Vec<f64> = if self.log_y {
            (0..=hi as i32).map(|e| 10f64.powi(e)).collect()
        } else {
            (0..=4).map(|k| lo + (hi - lo) * k as f64 / 4.0).collect()
        };
        for t in ticks {
            let label = if self.log_y {
                format!("1e{}", t.log10().round())
            } else if hi - lo >= 10.0 {
                compact(t)
            } else {
                format!("{}", (t * 100.0).round() / 100.0)
            };
            let (tx, ty, ly, lx) = (LEFT - 8.0, y(t) + 4.0, y(t), LEFT - 4.0);
            let _ = writeln!(
                s,
                r##"<text x="{tx}" y="{ty}" text-anchor="end">{label}</text><line x1="{lx}" y1="{ly}" x2="{LEFT}" y2="{ly}" stroke="#333"/>"##
            );
        }
        let group = plot_w / n as f64;
        let per = if self.stacked {
            1
        } else {
            self.series.len().max(1)
        };
        let bar = group * 0.8 / per as f64;
        let every = n.div_ceil(24);
        for (i, cat) in self.categories.iter().enumerate() {
            let x0 = LEFT + group * i as f64 + group * 0.1;
            let mut base = 0.0;
            for (k, (_, vals)) in self.series.iter().enumerate() {
                let v = vals.get(i).copied().unwrap_or(0.0);
                let colour = PALETTE[k % PALETTE.len()];
                let (top, bottom, x) = if self.stacked {
                    let r = (y(base + v), y(base), x0);
                    base += v;
                    r
                } else {
                    let zero = if self.log_y { y(1.0) } else { y(0.0) };
                    (y(v).min(zero), y(v).max(zero), x0 + bar * k as f64)
                };
                let _ = writeln!(
                    s,
                    r#"<rect x="{x:.1}" y="{top:.1}" width="{bar:.1}" height="{:.1}" fill="{colour}"><title>{}: {v}</title></rect>"#,
                    (bottom - top).max(0.0),
                    escape(cat)
                );
            }
            if i % every == 0 {
                let _ = writeln!(
                    s,
                    r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
                    x0 + group * 0.4,
                    TOP + plot_h + 16.0,
                    escape(cat)
                );
            }
        }
        for (k, (name, _)) in self.series.iter().enumerate() {
            let ly = TOP + 10.0 + 18.0 * k as f64;
            let _ = writeln!(
                s,
                r#"<rect x="{}" y="{}" width="12" height="12" fill="{}"/><text x="{}" y="{}">{}</text>"#,
                WIDTH - RIGHT + 15.0,
                ly - 10.0,
                PALETTE[k % PALETTE.len()],
                WIDTH - RIGHT + 32.0,
                ly,
                escape(name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

/// A heat map of values over a grid; `None` cells are left blank.
pub struct HeatMap {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub columns: Vec<String>,
    pub rows: Vec<String>,
    pub cells: Vec<Vec<Option<f64>>>,
}

impl HeatMap {
    pub fn render(&self) -> String {
        let plot_w = WIDTH - LEFT - RIGHT;
        let plot_h = HEIGHT - TOP - BOTTOM;
        let cw = plot_w / self.columns.len().max(1) as f64;
        let ch = plot_h / self.rows.len().max(1) as f64;
        let span = self
            .cells
            .iter()
            .flatten()
            .flatten()
            .fold(1.0f64, |m, v| m.max(v.abs()));
        let mut s = header(&self.title, &self.x_label, &self.y_label);
        for (r, row) in self.cells.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let (x, y) = (LEFT + cw * c as f64, TOP + ch * r as f64);
                let Some(v) = cell else {
                    let _ = writeln!(
                        s,
                        r##"<rect x="{x:.1}" y="{y:.1}" width="{cw:.1}" height="{ch:.1}" fill="#f1f3f5" stroke="white"/>"##
                    );
                    continue;
                };
                // Green for South wins, red for losses, white for draws.
                let t = (v / span).clamp(-1.0, 1.0);
                let (r_, g, b) = if t >= 0.0 {
                    (255.0 - 212.0 * t, 255.0 - 117.0 * t, 255.0 - 193.0 * t)
                } else {
                    (255.0 + 54.0 * t, 255.0 + 213.0 * t, 255.0 + 213.0 * t)
                };
                let _ = writeln!(
                    s,
                    r#"<rect x="{x:.1}" y="{y:.1}" width="{cw:.1}" height="{ch:.1}" fill="rgb({:.0},{:.0},{:.0})" stroke="white"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{v:+}</text>"#,
                    r_,
                    g,
                    b,
                    x + cw / 2.0,
                    y + ch / 2.0 + 4.0
                );
            }
        }
        for (c, name) in self.columns.iter().enumerate() {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
                LEFT + cw * (c as f64 + 0.5),
                TOP + plot_h + 16.0,
                escape(name)
            );
        }
        for (r, name) in self.rows.iter().enumerate() {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
                LEFT - 8.0,
                TOP + ch * (r as f64 + 0.5) + 4.0,
                escape(name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}
