//! The HTML report: one self-contained page (no network): a summary table, a filter by status,
//! and per file its pictures (front and side, before and after, bones coloured by the mapper's
//! confidence, missing required bones named), its mapping table and its warnings.

use super::{FileReport, Picture, Report, Status};
use std::fmt::Write;

/// Escapes text for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Ok => "ok",
        Status::Warnings => "warnings",
        Status::Failed => "failed",
        Status::Skipped => "skipped",
    }
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}\
.summary td{font-size:1.3em}section.file{border:1px solid #bbb;border-radius:6px;margin:1em 0;padding:.5em 1em}\
section.failed{border-color:#c33;background:#fff5f5}section.warnings{border-color:#d90}\
.status{font-weight:bold;text-transform:uppercase}.failed .status{color:#c33}.warnings .status{color:#b70}\
.ok .status{color:#282}.skipped .status{color:#777}.pics{display:flex;gap:1em;flex-wrap:wrap}\
figure{margin:0}figcaption{font-size:.8em;color:#555;text-align:center}svg{background:#fafafa;border:1px solid #ddd}\
details{margin:.3em 0}.missing{color:#c33;font-weight:bold}.mapping td{font-size:.85em}";

const SCRIPT: &str = "function show(v){for(const s of document.querySelectorAll('section.file'))\
{s.style.display=(v==='all'||s.dataset.status===v)?'':'none';}}";

/// Renders the whole report as one HTML page.
pub fn render_html(report: &Report) -> String {
    let s = &report.summary;
    let mut out = String::with_capacity(4096 + report.files.len() * 4096);
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>skelnorm report</title>\
         <style>{STYLE}</style><script>{SCRIPT}</script></head><body><h1>skelnorm {} report</h1>\
         <p>{}</p><table class=\"summary\" id=\"summary\"><tr><th>files</th><th>ok</th><th>warnings</th>\
         <th>failed</th><th>skipped</th><th>total time</th><th>wall time</th></tr><tr>\
         <td id=\"n-files\">{}</td><td id=\"n-ok\">{}</td><td id=\"n-warnings\">{}</td><td id=\"n-failed\">{}</td>\
         <td id=\"n-skipped\">{}</td><td>{:.1} s</td><td>{:.1} s</td></tr></table>\
         <p><label>Show <select id=\"filter\" onchange=\"show(this.value)\"><option value=\"all\">all</option>\
         <option value=\"failed\">failed</option><option value=\"warnings\">warnings</option>\
         <option value=\"ok\">ok</option><option value=\"skipped\">skipped</option></select></label></p>",
        esc(&report.command),
        esc(&report.inputs.join(", ")),
        s.files,
        s.ok,
        s.warnings,
        s.failed,
        s.skipped,
        s.total_ms / 1000.0,
        s.wall_ms / 1000.0,
    );
    for f in &report.files {
        file_section(&mut out, f);
    }
    out.push_str("</body></html>\n");
    out
}

fn file_section(out: &mut String, f: &FileReport) {
    let status = status_name(f.status);
    let _ = write!(
        out,
        "<section class=\"file {status}\" data-status=\"{status}\"><h2>{}</h2><p><span class=\"status\">{status}</span>",
        esc(&f.input)
    );
    if let Some(o) = &f.output {
        let _ = write!(out, " → {}", esc(o));
    }
    let _ = write!(out, " · {:.0} ms", f.time_ms);
    if f.size_after > 0 {
        let _ = write!(out, " · {} → {} bytes", f.size_before, f.size_after);
    }
    out.push_str("</p>");
    if let Some(e) = &f.error {
        let _ = write!(out, "<p class=\"error\">{}</p>", esc(e));
    }
    for p in &f.pictures {
        pictures(out, p);
    }
    if !f.warnings.is_empty() {
        let _ = write!(
            out,
            "<details open><summary>{}</summary><ul>",
            super::text::count(f.warnings.len(), "warning", "warnings")
        );
        for w in &f.warnings {
            let _ = write!(out, "<li>{}</li>", esc(&w.to_string()));
        }
        out.push_str("</ul></details>");
    }
    mapping_table(out, f);
    out.push_str("</section>");
}

/// The mapping of every skeleton as a table: profile bone, source bone, confidence, reason.
fn mapping_table(out: &mut String, f: &FileReport) {
    let Some(skeletons) = f
        .normalize
        .as_ref()
        .and_then(|n| n.get("skeletons"))
        .and_then(|s| s.as_array())
    else {
        return;
    };
    for s in skeletons {
        let Some(bones) = s.pointer("/mapping/bones").and_then(|b| b.as_object()) else {
            continue;
        };
        let name = s.get("skeleton").and_then(|n| n.as_str()).unwrap_or("");
        let _ = write!(
            out,
            "<details><summary>mapping of `{}`: {} bones</summary><table class=\"mapping\"><tr><th>profile</th>\
             <th>source</th><th>confidence</th><th>reason</th></tr>",
            esc(name),
            bones.len()
        );
        for (p, m) in bones {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{:.2}</td><td>{}</td></tr>",
                esc(p),
                esc(m.get("source").and_then(|v| v.as_str()).unwrap_or("")),
                m.get("confidence").and_then(|v| v.as_f64()).unwrap_or(0.0),
                esc(m.get("reason").and_then(|v| v.as_str()).unwrap_or(""))
            );
        }
        out.push_str("</table></details>");
    }
}

/// Four pictures of one skeleton: front and side, before and after.
fn pictures(out: &mut String, p: &Picture) {
    let _ = write!(out, "<div class=\"skeleton\"><h3>{}</h3>", esc(&p.skeleton));
    if !p.missing.is_empty() {
        let _ = write!(
            out,
            "<p class=\"missing\">missing: {}</p>",
            esc(&p.missing.join(", "))
        );
    }
    out.push_str("<div class=\"pics\">");
    let after = p.bones.iter().any(|b| b.after.is_some());
    for (view, axis) in [("front", 0usize), ("side", 2)] {
        svg(out, p, view, axis, false);
        if after {
            svg(out, p, view, axis, true);
        }
    }
    out.push_str("</div></div>");
}

/// One SVG: bones as lines from parent joint to joint, projected on (axis, y).
fn svg(out: &mut String, p: &Picture, view: &str, axis: usize, after: bool) {
    let (w, h) = (180.0f32, 220.0f32);
    let at = |b: &super::PictureBone| {
        if after {
            b.after.unwrap_or(b.before)
        } else {
            b.before
        }
    };
    let pts: Vec<(f32, f32)> = p.bones.iter().map(|b| (at(b)[axis], at(b)[1])).collect();
    let (mut lo, mut hi) = (
        (f32::INFINITY, f32::INFINITY),
        (f32::NEG_INFINITY, f32::NEG_INFINITY),
    );
    for &(x, y) in &pts {
        lo = (lo.0.min(x), lo.1.min(y));
        hi = (hi.0.max(x), hi.1.max(y));
    }
    let span = (hi.0 - lo.0).max(hi.1 - lo.1).max(1e-6);
    let scale = (h - 20.0) / span;
    let cx = (lo.0 + hi.0) / 2.0;
    let map = |(x, y): (f32, f32)| (w / 2.0 + (x - cx) * scale, h - 10.0 - (y - lo.1) * scale);
    let _ = write!(
        out,
        "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         class=\"{view} {}\">",
        if after { "after" } else { "before" }
    );
    for (i, b) in p.bones.iter().enumerate() {
        let Some(parent) = b.parent else { continue };
        let ((x1, y1), (x2, y2)) = (map(pts[parent]), map(pts[i]));
        let colour = match b.confidence {
            Some(c) => format!("hsl({:.0},75%,40%)", 120.0 * c.clamp(0.0, 1.0)),
            None => "#bbb".into(),
        };
        let _ = write!(
            out,
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"{colour}\" stroke-width=\"2\"><title>{}</title></line>",
            esc(b.profile.as_deref().unwrap_or(&b.name))
        );
    }
    if !p.missing.is_empty() {
        let _ = write!(
            out,
            "<text x=\"4\" y=\"14\" font-size=\"10\" fill=\"#c33\">missing {}</text>",
            p.missing.len()
        );
    }
    let _ = write!(
        out,
        "</svg><figcaption>{view}, {}</figcaption></figure>",
        if after { "after" } else { "before" }
    );
}
