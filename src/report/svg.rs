//! Minimal SVG charts: bar charts (grouped or stacked, linear or log
//! scale), horizontal bar charts, line charts and heat maps, with titled,
//! labelled axes. Every chart (the report pages' and `sow analyze`'s value
//! graph) places itself by one model: a [`Frame`] (picture size, plot
//! area, title, axis labels, legend) and an [`Axis`] per value direction
//! (range, scale, value → position).

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

/// `text` as XML or HTML character data: `&`, `<` and `>` as entities
/// (the SVG pictures, and names a Markdown viewer would render as HTML).
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The 20 pits of a Kiothi board as rounded cells with their counts and
/// numbers, North's row on top with pit 19 above pit 0 (opposite pits
/// face each other): the pictures of a board on the report pages. Pits in
/// `lifted` are outlined in red; `placed[i] > 0` is written `+n` in green.
pub(crate) fn kiothi_pit_cells(pits: &[u64], lifted: &[u64], placed: &[u64]) -> String {
    const W: usize = 10;
    const CELL: f64 = 60.0;
    let mut s = String::new();
    for (i, &count) in pits.iter().enumerate() {
        let (col, row) = if i < W { (i, 1) } else { (2 * W - 1 - i, 0) };
        let x = 80.0 + CELL * col as f64;
        let y = 70.0 + 90.0 * row as f64;
        let stroke = match lifted.contains(&(i as u64)) {
            true => r##"stroke="#c92a2a" stroke-width="4""##,
            false => r##"stroke="#495057""##,
        };
        let w = CELL - 8.0;
        let _ = writeln!(
            s,
            r##"<rect x="{x}" y="{y}" width="{w}" height="50" rx="20" fill="#f8f0e3" {stroke}/><text x="{cx}" y="{ty}" text-anchor="middle" font-size="18">{count}</text><text x="{cx}" y="{ly}" text-anchor="middle" fill="#868e96">pit {i}</text>"##,
            cx = x + w / 2.0,
            ty = y + 31.0,
            ly = if row == 0 { y - 6.0 } else { y + 66.0 },
        );
        let add = placed.get(i).copied().unwrap_or(0);
        if add > 0 {
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{}" text-anchor="middle" fill="#2b8a3e" font-weight="bold">+{add}</text>"##,
                x + w - 2.0,
                y + 12.0
            );
        }
    }
    s
}

/// Size of a picture and margins of its plot area.
#[derive(Clone, Copy, Debug)]
struct Frame {
    width: f64,
    height: f64,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Frame {
    const STANDARD: Frame = Frame {
        width: WIDTH,
        height: HEIGHT,
        left: LEFT,
        right: RIGHT,
        top: TOP,
        bottom: BOTTOM,
    };

    fn plot_w(&self) -> f64 {
        self.width - self.left - self.right
    }

    fn plot_h(&self) -> f64 {
        self.height - self.top - self.bottom
    }

    /// The bottom edge of the plot area.
    fn bottom_edge(&self) -> f64 {
        self.top + self.plot_h()
    }

    /// The right edge of the plot area.
    fn right_edge(&self) -> f64 {
        self.left + self.plot_w()
    }

    /// Horizontal position of `v` on `axis`.
    fn x(&self, axis: &Axis, v: f64) -> f64 {
        self.left + self.plot_w() * axis.frac(v)
    }

    /// Vertical position of `v` on `axis` (up is more).
    fn y(&self, axis: &Axis, v: f64) -> f64 {
        self.top + self.plot_h() * (1.0 - axis.frac(v))
    }

    /// Legend entry `k`: a colour swatch and the series' name, right of
    /// the plot area (`font` a font-size attribute, or empty).
    fn legend(&self, s: &mut String, k: usize, colour: &str, name: &str, font: &str) {
        let ly = self.top + 10.0 + 18.0 * k as f64;
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="12" height="12" fill="{colour}"/><text x="{}" y="{ly}"{font}>{}</text>"#,
            self.width - self.right + 15.0,
            ly - 10.0,
            self.width - self.right + 32.0,
            escape(name)
        );
    }

    /// The closing tag.
    /// A tick of the x axis at `x` (pixels), labelled below the axis.
    fn x_tick(&self, s: &mut String, x: f64, label: &str) {
        let bottom = self.bottom_edge();
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{bottom}" x2="{x:.1}" y2="{}" stroke="#333"/><text x="{x:.1}" y="{}" text-anchor="middle">{label}</text>"##,
            bottom + 4.0,
            bottom + 16.0,
        );
    }

    fn footer(s: &mut String) {
        s.push_str("</svg>\n");
    }

    /// The opening tag, background, title and both axis labels.
    fn header(&self, title: &str, x_label: &str, y_label: &str) -> String {
        let (w, h) = (self.width, self.height);
        let mut s = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>
"#,
            w / 2.0,
            escape(title)
        );
        let _ = write!(
            s,
            r#"<text class="x-label" x="{}" y="{}" text-anchor="middle">{}</text>
<text class="y-label" transform="translate(18,{}) rotate(-90)" text-anchor="middle">{}</text>
"#,
            self.left + self.plot_w() / 2.0,
            h - 12.0,
            escape(x_label),
            self.top + self.plot_h() / 2.0,
            escape(y_label)
        );
        s
    }
}

/// How an axis maps values: linearly, or by a logarithm (base 10: a value
/// at or below 0 sits at 0; base 2: at most 2^-40 sits at 2^-40).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scale {
    Linear,
    Log10,
    Log2,
}

/// A value axis: its range (in the scale's units: exponents for a log
/// scale) and scale; values outside the range are clamped to it or not.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Axis {
    lo: f64,
    hi: f64,
    scale: Scale,
    clamp: bool,
}

impl Axis {
    fn new(lo: f64, hi: f64, scale: Scale) -> Self {
        Axis {
            lo,
            hi,
            scale,
            clamp: false,
        }
    }

    fn clamped(self) -> Self {
        Axis {
            clamp: true,
            ..self
        }
    }

    /// A value in the scale's units.
    fn unit(&self, v: f64) -> f64 {
        match self.scale {
            Scale::Linear => v,
            Scale::Log10 if v > 0.0 => v.log10(),
            Scale::Log10 => 0.0,
            Scale::Log2 => v.max(1e-12).log2(),
        }
    }

    /// Where `v` lies along the axis, 0 at `lo` and 1 at `hi`.
    fn frac(&self, v: f64) -> f64 {
        let u = self.unit(v);
        let u = if self.clamp {
            u.clamp(self.lo, self.hi)
        } else {
            u
        };
        (u - self.lo) / (self.hi - self.lo)
    }

    /// Round ticks: five linear ones covering the range, or a power of
    /// ten per exponent.
    fn ticks(&self) -> Vec<f64> {
        match self.scale {
            Scale::Log10 => (0..=self.hi as i32).map(|e| 10f64.powi(e)).collect(),
            _ => linear_ticks(self.lo, self.hi),
        }
    }
}

/// Five round ticks covering `lo..hi`.
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let raw = (hi - lo) / 4.0;
    let mag = 10f64.powf(raw.abs().max(1e-9).log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A tick label without float noise: 0.0625, 25, -300.
fn tick_label(v: f64) -> String {
    let r = (v * 10_000.0).round() / 10_000.0;
    if r == 0.0 {
        "0".into()
    } else {
        format!("{r}")
    }
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
        let f = Frame::STANDARD;
        let n = self.categories.len().max(1);
        let (lo, hi) = self.value_range(n);
        let scale = if self.log_y {
            Scale::Log10
        } else {
            Scale::Linear
        };
        let axis = Axis::new(lo, hi, scale);
        let mut s = f.header(&self.title, &self.x_label, &self.y_label);
        self.draw_axes(&mut s, &f, &axis);
        self.draw_bars(&mut s, &f, &axis, n);
        for (k, (name, _)) in self.series.iter().enumerate() {
            f.legend(&mut s, k, PALETTE[k % PALETTE.len()], name, "");
        }
        Frame::footer(&mut s);
        s
    }

    /// Series `k`'s value in category `i` (0 where the series is short).
    fn value(&self, k: usize, i: usize) -> f64 {
        self.series[k].1.get(i).copied().unwrap_or(0.0)
    }

    /// The value axis's range over `n` categories: from the lowest value
    /// (0 for stacked or logarithmic bars) to the highest bar or stack; in
    /// powers of ten for a logarithmic axis; widened by one each way when
    /// every value is the same.
    fn value_range(&self, n: usize) -> (f64, f64) {
        let per_category = |i: usize| (0..self.series.len()).map(move |k| self.value(k, i));
        let max = (0..n)
            .map(|i| {
                if self.stacked {
                    per_category(i).sum()
                } else {
                    per_category(i).fold(0.0, f64::max)
                }
            })
            .fold(0.0, f64::max);
        let min = if self.stacked || self.log_y {
            0.0
        } else {
            (0..n)
                .map(|i| per_category(i).fold(0.0, f64::min))
                .fold(0.0, f64::min)
        };
        if self.log_y {
            (0.0, max.max(10.0).log10().ceil())
        } else if max == min {
            (min - 1.0, max + 1.0)
        } else {
            (min, max)
        }
    }

    /// The two axes, and the value axis's ticks: at powers of ten on a
    /// logarithmic axis, else at the quarters of the range (the bars' own
    /// scale, not rounded).
    fn draw_axes(&self, s: &mut String, f: &Frame, axis: &Axis) {
        let (lo, hi) = (axis.lo, axis.hi);
        let y = |v: f64| f.y(axis, v);
        let (left, top) = (f.left, f.top);
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{top}" x2="{left}" y2="{}" stroke="#333"/>"##,
            f.bottom_edge()
        );
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{}" x2="{}" y2="{}" stroke="#333"/>"##,
            y(lo.max(0.0).min(hi)),
            f.right_edge(),
            y(lo.max(0.0).min(hi))
        );
        let ticks: Vec<f64> = if self.log_y {
            axis.ticks()
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
            let (tx, ty, ly, lx) = (left - 8.0, y(t) + 4.0, y(t), left - 4.0);
            let _ = writeln!(
                s,
                r##"<text x="{tx}" y="{ty}" text-anchor="end">{label}</text><line x1="{lx}" y1="{ly}" x2="{left}" y2="{ly}" stroke="#333"/>"##
            );
        }
    }

    /// Each category's bars (side by side, or one stack) and its label
    /// (every category's up to 24 of them, else one in `n / 24`).
    fn draw_bars(&self, s: &mut String, f: &Frame, axis: &Axis, n: usize) {
        let y = |v: f64| f.y(axis, v);
        let group = f.plot_w() / n as f64;
        let per = if self.stacked {
            1
        } else {
            self.series.len().max(1)
        };
        let bar = group * 0.8 / per as f64;
        let every = n.div_ceil(24);
        for (i, cat) in self.categories.iter().enumerate() {
            let x0 = f.left + group * i as f64 + group * 0.1;
            let mut base = 0.0;
            for k in 0..self.series.len() {
                let v = self.value(k, i);
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
                    f.bottom_edge() + 16.0,
                    escape(cat)
                );
            }
        }
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
        let f = Frame::STANDARD;
        let cw = f.plot_w() / self.columns.len().max(1) as f64;
        let ch = f.plot_h() / self.rows.len().max(1) as f64;
        let span = self
            .cells
            .iter()
            .flatten()
            .flatten()
            .fold(1.0f64, |m, v| m.max(v.abs()));
        let mut s = f.header(&self.title, &self.x_label, &self.y_label);
        for (r, row) in self.cells.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let (x, y) = (f.left + cw * c as f64, f.top + ch * r as f64);
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
                f.left + cw * (c as f64 + 0.5),
                f.bottom_edge() + 16.0,
                escape(name)
            );
        }
        for (r, name) in self.rows.iter().enumerate() {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
                f.left - 8.0,
                f.top + ch * (r as f64 + 0.5) + 4.0,
                escape(name)
            );
        }
        Frame::footer(&mut s);
        s
    }
}

/// A horizontal bar chart: one labelled bar per category, the category
/// names on the left (room for long labels such as Kiothi moves), the
/// value written at the end of each bar.
pub struct HBarChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub categories: Vec<String>,
    pub values: Vec<f64>,
    /// Text written after each bar (e.g. `+2, depth 9`); empty: the value.
    pub value_labels: Vec<String>,
    /// Value axis range; `None`: from the data, zero included.
    pub range: Option<(f64, f64)>,
}

impl HBarChart {
    const ROW: f64 = 24.0;

    fn frame(&self) -> Frame {
        let longest = self
            .categories
            .iter()
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(0) as f64;
        let left = (longest * 7.0 + 50.0).clamp(LEFT, 420.0);
        Frame {
            width: left + 540.0,
            height: TOP + BOTTOM + Self::ROW * self.categories.len().max(1) as f64,
            left,
            right: 140.0,
            top: TOP,
            bottom: BOTTOM,
        }
    }

    pub fn render(&self) -> String {
        let f = self.frame();
        let (lo, hi) = self.range.unwrap_or_else(|| {
            let finite = self.values.iter().copied().filter(|v| v.is_finite());
            let lo = finite.clone().fold(0.0, f64::min);
            let hi = finite.fold(0.0, f64::max);
            if lo == hi {
                (lo - 1.0, hi + 1.0)
            } else {
                (lo, hi)
            }
        });
        let axis = Axis::new(lo, hi, Scale::Linear).clamped();
        let x = |v: f64| f.x(&axis, v);
        let mut s = f.header(&self.title, &self.x_label, &self.y_label);
        let bottom = f.bottom_edge();
        let _ = writeln!(
            s,
            r##"<line x1="{:.1}" y1="{}" x2="{:.1}" y2="{bottom}" stroke="#333"/>"##,
            x(0.0),
            f.top,
            x(0.0)
        );
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{bottom}" x2="{}" y2="{bottom}" stroke="#333"/>"##,
            f.left,
            f.right_edge()
        );
        for t in axis.ticks() {
            f.x_tick(&mut s, x(t), &tick_label(t));
        }
        for (i, cat) in self.categories.iter().enumerate() {
            let v = self.values.get(i).copied().unwrap_or(0.0);
            let y = f.top + Self::ROW * i as f64;
            let (x0, x1) = (x(0.0).min(x(v)), x(0.0).max(x(v)));
            let colour = if v < 0.0 { PALETTE[2] } else { PALETTE[0] };
            let label = match self.value_labels.get(i) {
                Some(l) if !l.is_empty() => l.clone(),
                _ => tick_label(v),
            };
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text><rect x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"><title>{}: {v}</title></rect><text x="{:.1}" y="{:.1}" font-size="11">{}</text>"#,
                f.left - 8.0,
                y + Self::ROW / 2.0 + 4.0,
                escape(cat),
                y + 3.0,
                (x1 - x0).max(0.5),
                Self::ROW - 6.0,
                escape(cat),
                x1 + 4.0,
                y + Self::ROW / 2.0 + 4.0,
                escape(&label)
            );
        }
        Frame::footer(&mut s);
        s
    }
}

/// A point of a line chart, with an optional interval drawn as a whisker
/// (an infinite bound is drawn to the edge of the plot).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub interval: Option<(f64, f64)>,
}

/// A line chart of several series; points whose `y` is not finite are
/// left out (the line breaks there).
pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<(String, Vec<Point>)>,
    /// Logarithmic x axis, base 2 (ticks at the points' x values).
    pub log2_x: bool,
}

impl LineChart {
    pub fn render(&self) -> String {
        let f = Frame {
            right: 300.0,
            width: WIDTH + 150.0,
            ..Frame::STANDARD
        };
        let x_scale = if self.log2_x {
            Scale::Log2
        } else {
            Scale::Linear
        };
        let xs: Vec<f64> = self
            .points()
            .map(|p| p.x)
            .filter(|x| x.is_finite())
            .collect();
        let (x_lo, x_hi) = x_range(&xs, x_scale);
        let (y_lo, y_hi) = self.y_range();
        let x_axis = Axis::new(x_lo, x_hi, x_scale);
        let y_axis = Axis::new(y_lo, y_hi, Scale::Linear).clamped();
        let px = |x: f64| f.x(&x_axis, x);
        let py = |y: f64| f.y(&y_axis, y);
        let bottom = f.bottom_edge();
        let mut s = f.header(&self.title, &self.x_label, &self.y_label);
        let _ = writeln!(
            s,
            r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{bottom}" stroke="#333"/><line x1="{0}" y1="{bottom}" x2="{2}" y2="{bottom}" stroke="#333"/>"##,
            f.left,
            f.top,
            f.right_edge()
        );
        if y_lo < 0.0 && y_hi > 0.0 {
            let _ = writeln!(
                s,
                r##"<line x1="{}" y1="{2:.1}" x2="{}" y2="{2:.1}" stroke="#ced4da" stroke-dasharray="4 3"/>"##,
                f.left,
                f.right_edge(),
                py(0.0)
            );
        }
        for t in y_axis.ticks() {
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{:.1}" text-anchor="end">{}</text><line x1="{}" y1="{1:.1}" x2="{}" y2="{1:.1}" stroke="#333"/>"##,
                f.left - 8.0,
                py(t),
                tick_label(t),
                f.left - 4.0,
                f.left
            );
        }
        // A log2 axis is ticked at the points themselves (thinking times).
        let mut ticks: Vec<f64> = if self.log2_x {
            xs.clone()
        } else {
            x_axis.ticks()
        };
        ticks.sort_by(f64::total_cmp);
        ticks.dedup();
        for t in ticks {
            f.x_tick(&mut s, px(t), &tick_label(t));
        }
        for (k, (name, pts)) in self.series.iter().enumerate() {
            let colour = PALETTE[k % PALETTE.len()];
            draw_series(&mut s, k, colour, name, pts, &px, &py);
            f.legend(&mut s, k, colour, name, r#" font-size="11""#);
        }
        Frame::footer(&mut s);
        s
    }

    fn points(&self) -> impl Iterator<Item = &Point> + Clone {
        self.series.iter().flat_map(|(_, p)| p.iter())
    }

    /// The y axis's range: every finite value and interval bound, and 0;
    /// widened by one each way when they are all equal.
    fn y_range(&self) -> (f64, f64) {
        let ys = self
            .points()
            .flat_map(|p| {
                let (a, b) = p.interval.unwrap_or((p.y, p.y));
                [p.y, a, b]
            })
            .filter(|y| y.is_finite());
        let (mut y_lo, mut y_hi) = ys.fold((0.0f64, 0.0f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
        if y_hi - y_lo < 1e-9 {
            y_hi += 1.0;
            y_lo -= 1.0;
        }
        (y_lo, y_hi)
    }
}

/// The x axis's range (in the scale's units) over the finite `xs`, padded
/// by 5% each way; one each way around a single value; 0 to 1 for none.
fn x_range(xs: &[f64], scale: Scale) -> (f64, f64) {
    let tx = |x: f64| Axis::new(0.0, 1.0, scale).unit(x);
    let (x_lo, x_hi) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(tx(x)), hi.max(tx(x)))
        });
    if x_lo.is_finite() && x_hi > x_lo {
        let pad = (x_hi - x_lo) * 0.05;
        (x_lo - pad, x_hi + pad)
    } else if x_lo.is_finite() {
        (x_lo - 1.0, x_lo + 1.0)
    } else {
        (0.0, 1.0)
    }
}

/// One series of a line chart: its lines (broken where `y` is not finite),
/// each point's interval as a whisker (shifted by 3 pixels a series, so
/// that equal intervals stay apart) and the point itself.
fn draw_series(
    s: &mut String,
    k: usize,
    colour: &str,
    name: &str,
    pts: &[Point],
    px: &dyn Fn(f64) -> f64,
    py: &dyn Fn(f64) -> f64,
) {
    for run in pts.split(|p| !p.y.is_finite()).filter(|r| r.len() > 1) {
        let path: Vec<String> = run
            .iter()
            .map(|p| format!("{:.1},{:.1}", px(p.x), py(p.y)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="2" points="{}"/>"#,
            path.join(" ")
        );
    }
    for p in pts.iter().filter(|p| p.y.is_finite()) {
        if let Some((a, b)) = p.interval {
            let _ = writeln!(
                s,
                r#"<line x1="{0:.1}" y1="{1:.1}" x2="{0:.1}" y2="{2:.1}" stroke="{colour}" stroke-opacity="0.5"/>"#,
                px(p.x) + 3.0 * k as f64,
                py(a),
                py(b)
            );
        }
        let _ = writeln!(
            s,
            r#"<circle cx="{:.1}" cy="{:.1}" r="4" fill="{colour}"><title>{}: {} at {}</title></circle>"#,
            px(p.x),
            py(p.y),
            escape(name),
            tick_label(p.y),
            tick_label(p.x)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bars(series: Vec<(&str, Vec<f64>)>, stacked: bool, log_y: bool) -> BarChart {
        let n = series.iter().map(|s| s.1.len()).max().unwrap_or(0);
        BarChart {
            title: "T".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            categories: (0..n).map(|i| format!("c<{i}>")).collect(),
            series: series
                .into_iter()
                .map(|(name, v)| (name.to_string(), v))
                .collect(),
            stacked,
            log_y,
        }
    }

    #[test]
    fn bar_ranges_reach_the_highest_stack_or_bar_and_the_lowest_value() {
        let two = vec![("a", vec![1.0, 5.0]), ("b", vec![-2.0, 4.0])];
        assert_eq!(bars(two.clone(), false, false).value_range(2), (-2.0, 5.0));
        assert_eq!(bars(two, true, false).value_range(2), (0.0, 9.0));
        // Powers of ten on a logarithmic axis, at least up to 10.
        let big = vec![("a", vec![3.0, 250.0])];
        assert_eq!(bars(big, false, true).value_range(2), (0.0, 3.0));
        let flat = vec![("a", vec![3.0, 3.0])];
        assert_eq!(bars(flat, false, false).value_range(2), (0.0, 3.0));
        assert_eq!(bars(vec![], false, false).value_range(1), (-1.0, 1.0));
    }

    #[test]
    fn a_bar_chart_draws_one_bar_per_value_and_escapes_names() {
        let svg = bars(vec![("a", vec![1.0, 5.0]), ("b", vec![2.0])], false, false).render();
        // The short series counts 0 in the category it lacks (a bar's
        // rectangle carries its title; the legend's do not).
        assert_eq!(svg.matches("</title></rect>").count(), 4);
        assert!(svg.contains("c&lt;1&gt;"));
        assert!(!svg.contains("c<1>"));
    }

    #[test]
    fn x_ranges_are_padded_and_never_empty() {
        let (lo, hi) = x_range(&[0.0, 10.0], Scale::Linear);
        assert!(
            (lo + 0.5).abs() < 1e-9 && (hi - 10.5).abs() < 1e-9,
            "{lo} {hi}"
        );
        assert_eq!(x_range(&[3.0], Scale::Linear), (2.0, 4.0));
        assert_eq!(x_range(&[], Scale::Linear), (0.0, 1.0));
        // Base 2: 1 to 16 is 0 to 4 in the scale's units.
        let (lo, hi) = x_range(&[1.0, 16.0], Scale::Log2);
        assert!(
            (lo + 0.2).abs() < 1e-9 && (hi - 4.2).abs() < 1e-9,
            "{lo} {hi}"
        );
    }

    #[test]
    fn a_line_breaks_where_a_value_is_missing() {
        let p = |x: f64, y: f64| Point {
            x,
            y,
            interval: None,
        };
        let chart = LineChart {
            title: "L".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            series: vec![(
                "s".into(),
                vec![
                    p(1.0, 1.0),
                    p(2.0, 2.0),
                    p(3.0, f64::NAN),
                    p(4.0, 1.0),
                    p(5.0, 0.0),
                ],
            )],
            log2_x: false,
        };
        let svg = chart.render();
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<circle").count(), 4);
        assert_eq!(chart.y_range(), (0.0, 2.0));
    }
}
