//! A file's animated previews in the HTML report: per clip one canvas that the page's script
//! draws while it is on screen: both figures side by side, and beside them the charts of the
//! measures over the same frames with a cursor in time with the figures. The data sits in the
//! canvas's `data-p` attribute as compact JSON (positions and chart values as base64 bytes).

use super::esc;
use crate::report::{Chart, Figure, Preview};
use base64::Engine;
use std::fmt::Write;

/// Canvas size, pixels: two figures of 160 × 170, then the charts.
const CANVAS: (u32, u32) = (560, 170);
/// The figures are seen from the front left, this far round (radians) from the front of a
/// character facing +Z: the gait and both sides show.
const YAW: f32 = 0.9;

/// How to read the previews, once per page.
pub(super) const LEGEND: &str = "<p class=\"legend\">Previews: each clip plays on both sides \
    (input and output, or source and target), seen from the front left, following the hips. \
    Charts over the same frames: dashed the first side, solid the second; feet blue (left) and \
    red (right), hands purple (left) and orange (right); the grey line is now.</p>";

/// The previews of one file.
pub(super) fn previews(out: &mut String, previews: &[Preview]) {
    if previews.is_empty() {
        return;
    }
    out.push_str("<div class=\"previews\">");
    for p in previews {
        preview(out, p);
    }
    out.push_str("</div>");
}

fn preview(out: &mut String, p: &Preview) {
    let shown = (p.frames.max(1) - 1) as f32 / p.fps;
    let part = if shown + 0.5 / p.fps < p.duration {
        format!("first {shown:.1} s of {:.1} s", p.duration)
    } else {
        format!("{:.1} s", p.duration)
    };
    let sides: Vec<&str> = p.figures.iter().map(|f| f.label.as_str()).collect();
    let _ = write!(
        out,
        "<div class=\"pv\"><h4>clip `{}`: {} · {part}, {} frames at {} fps</h4>\
         <canvas class=\"anim\" width=\"{}\" height=\"{}\" data-p='{}'></canvas></div>",
        esc(&p.clip),
        esc(&sides.join(" → ")),
        p.frames,
        p.fps,
        CANVAS.0,
        CANVAS.1,
        quote1(&data(p)),
    );
}

/// Escapes text for a single-quoted HTML attribute (JSON keeps its double quotes: a third of
/// the size of `&quot;`).
fn quote1(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('\'', "&#39;")
        .replace('<', "&lt;")
}

/// What the script needs of a preview, as JSON: rate, frames; per figure (`f`) its label, each
/// bone's side (`l`, `r`, `c`), parents (-1 for none), the head's index (-1) and positions
/// ([`projected`]); per
/// chart (`c`) its title, unit, largest value and series (`s`: bone class, dashed or not,
/// values as bytes of the largest).
fn data(p: &Preview) -> String {
    let figures: Vec<_> = p.figures.iter().map(figure).collect();
    let charts: Vec<_> = p.charts.iter().map(chart).collect();
    serde_json::json!({"fps": p.fps, "n": p.frames, "f": figures, "c": charts}).to_string()
}

fn figure(f: &Figure) -> serde_json::Value {
    let sides: String = f
        .bones
        .iter()
        .map(|b| match b.as_str() {
            b if b.starts_with("Left") => 'l',
            b if b.starts_with("Right") => 'r',
            _ => 'c',
        })
        .collect();
    let parents: Vec<i64> = f
        .parents
        .iter()
        .map(|p| p.map_or(-1, |p| p as i64))
        .collect();
    let head = f
        .bones
        .iter()
        .position(|b| b == "Head")
        .map_or(-1, |h| h as i64);
    serde_json::json!({"l": f.label, "k": sides, "p": parents, "h": head, "b": projected(f)})
}

/// The figure's positions seen from [`YAW`]: two bytes (across, up) per joint instead of three,
/// over the projected bounding box (one step on both axes). Empty when they do not decode.
fn projected(f: &Figure) -> String {
    let engine = &base64::engine::general_purpose::STANDARD;
    let Ok(bytes) = engine.decode(&f.positions) else {
        return String::new();
    };
    let (c, s) = (YAW.cos(), YAW.sin());
    let points: Vec<(f32, f32)> = bytes
        .chunks_exact(3)
        .map(|p| {
            let (x, y, z) = (f32::from(p[0]), f32::from(p[1]), f32::from(p[2]));
            (x * c - z * s, y)
        })
        .collect();
    let (mut lo, mut hi) = (
        (f32::INFINITY, f32::INFINITY),
        (f32::NEG_INFINITY, f32::NEG_INFINITY),
    );
    for &(x, y) in &points {
        lo = (lo.0.min(x), lo.1.min(y));
        hi = (hi.0.max(x), hi.1.max(y));
    }
    let span = (hi.0 - lo.0).max(hi.1 - lo.1);
    let step = if span > 0.0 { span / 255.0 } else { 1.0 };
    let out: Vec<u8> = points
        .iter()
        .flat_map(|&(x, y)| [(x - lo.0) / step, (y - lo.1) / step])
        .map(|v| v.round().clamp(0.0, 255.0) as u8)
        .collect();
    engine.encode(out)
}

fn chart(c: &Chart) -> serde_json::Value {
    let top = c
        .series
        .iter()
        .flat_map(|s| s.values.iter().copied())
        .filter(|v| v.is_finite())
        .fold(0.0f32, f32::max);
    let scale = if top > 0.0 { 255.0 / top } else { 0.0 };
    let series: Vec<_> = c
        .series
        .iter()
        .map(|s| {
            let bytes: Vec<u8> = s
                .values
                .iter()
                .map(|v| (v * scale).round().clamp(0.0, 255.0) as u8)
                .collect();
            let class = match s.bone.as_str() {
                "LeftFoot" => "lf",
                "RightFoot" => "rf",
                "LeftHand" => "lh",
                "RightHand" => "rh",
                _ => "",
            };
            serde_json::json!({
                "k": class,
                "d": matches!(s.side.as_str(), "input" | "source") as u8,
                "v": base64::engine::general_purpose::STANDARD.encode(bytes),
            })
        })
        .collect();
    serde_json::json!({"t": c.title, "u": c.unit, "m": significant(top), "s": series})
}

/// A value with 2 significant digits, for a chart's title.
fn significant(v: f32) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let digits = (1 - v.abs().log10().floor() as i32).max(0) as usize;
    format!("{v:.digits$}")
}
