//! The HTML report: one self-contained page (no network, no outside files): a summary table, a
//! table of warning codes with counts, filters by status, by warning code and by text (kept in
//! the URL hash: `report.html#status=warnings&code=no_tail&q=fox`), and per file, failed first,
//! then with warnings, then ok, then skipped (by path within each): its warnings, animated
//! previews of its clips with charts of the measures (see `preview`), its pictures (front and
//! side, before and after, bones coloured by the mapper's confidence, missing required bones
//! named) and its mapping tables with confidence colours.

mod preview;
mod retarget;

use super::{FileReport, Picture, Report, Status};
use crate::model::Warning;
use std::collections::BTreeMap;
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
        Status::Refused => "refused",
        Status::Skipped => "skipped",
    }
}

/// Where a status's cards go: failed first, then refused, warnings, ok, skipped.
fn severity(s: Status) -> u8 {
    match s {
        Status::Failed => 0,
        Status::Refused => 1,
        Status::Warnings => 2,
        Status::Ok => 3,
        Status::Skipped => 4,
    }
}

/// A warning's code (`no_tail`).
fn warning_code(w: &Warning) -> &'static str {
    w.code.as_str()
}

/// A warning's text, without its code.
fn warning_text(w: &Warning) -> String {
    match &w.skeleton {
        Some(s) => format!("`{s}`: {}", w.message),
        None => w.message.clone(),
    }
}

const STYLE: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/report.js");

/// Records script errors in the page (`data-errors` on the root element, the messages in
/// `data-error-text`), so that a test reading the DOM sees them; runs before anything else.
const ERRORS: &str = "(function(){var n=0,r=document.documentElement;function rec(m){n++;\
r.setAttribute('data-errors',n);r.setAttribute('data-error-text',(r.getAttribute('data-error-text')||'')+m+'\\n');}\
window.addEventListener('error',function(e){rec(e.message||'error');});\
window.addEventListener('unhandledrejection',function(e){rec('rejection: '+e.reason);});\
var ce=console.error;console.error=function(){rec([].join.call(arguments,' '));ce.apply(console,arguments);};})();";

/// Renders the whole report as one HTML page.
pub fn render_html(report: &Report) -> String {
    let s = &report.summary;
    let mut out = String::with_capacity(4096 + report.files.len() * 16384);
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>skelnorm report</title>\
         <script>{ERRORS}</script><style>{STYLE}</style></head><body><h1>skelnorm {} report</h1>\
         <p>{}</p><table class=\"summary\" id=\"summary\"><tr><th>files</th><th>ok</th><th>warnings</th>\
         <th>refused</th><th>failed</th><th>skipped</th><th>total time</th><th>wall time</th></tr><tr>\
         <td id=\"n-files\">{}</td><td id=\"n-ok\">{}</td><td id=\"n-warnings\">{}</td><td id=\"n-refused\">{}</td>\
         <td id=\"n-failed\">{}</td><td id=\"n-skipped\">{}</td><td>{:.1} s</td><td>{:.1} s</td></tr></table>",
        esc(&report.command),
        esc(&report.inputs.join(", ")),
        s.files,
        s.ok,
        s.warnings,
        s.refused,
        s.failed,
        s.skipped,
        s.total_ms / 1000.0,
        s.wall_ms / 1000.0,
    );
    code_table(&mut out, &report.files);
    out.push_str(
        "<div id=\"controls\"><label>Show <select id=\"filter\"><option value=\"all\">all</option>\
         <option value=\"failed\">failed</option><option value=\"refused\">refused</option>\
         <option value=\"warnings\">warnings</option>\
         <option value=\"ok\">ok</option><option value=\"skipped\">skipped</option></select></label>\
         <label>Sort by <select id=\"sort\"><option value=\"status\">status</option>\
         <option value=\"path\">path</option><option value=\"time\">time (slowest first)</option>\
         <option value=\"warnings\">warnings (most first)</option>\
         <option value=\"grown\">size change (most grown first)</option></select></label>\
         <label>Search <input id=\"q\" type=\"search\" placeholder=\"path or text\" size=\"30\"></label>\
         <span id=\"shown\"></span><a href=\"#\" id=\"clear\">clear filters</a></div>",
    );
    out.push_str(preview::LEGEND);
    let mut files: Vec<&FileReport> = report.files.iter().collect();
    files.sort_by(|a, b| (severity(a.status), &a.input).cmp(&(severity(b.status), &b.input)));
    for f in files {
        file_section(&mut out, f);
    }
    let _ = writeln!(out, "<script>{SCRIPT}</script></body></html>");
    out
}

/// The warning codes of the run with how many warnings and files have each (most first);
/// clicking a row filters the cards by its code.
fn code_table(out: &mut String, files: &[FileReport]) {
    let mut codes: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for f in files {
        let mut seen: Vec<&str> = Vec::new();
        for w in &f.warnings {
            let code = warning_code(w);
            let entry = codes.entry(code).or_default();
            entry.0 += 1;
            if !seen.contains(&code) {
                seen.push(code);
                entry.1 += 1;
            }
        }
    }
    if codes.is_empty() {
        out.push_str("<p id=\"codes\">No warnings.</p>");
        return;
    }
    let mut rows: Vec<_> = codes.into_iter().collect();
    rows.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
    out.push_str(
        "<h2>Warnings by code</h2><table id=\"codes\"><tr><th>code (click to filter)</th>\
         <th>warnings</th><th>files</th></tr>",
    );
    for (code, (n, files)) in rows {
        let _ = write!(
            out,
            "<tr data-code=\"{0}\"><td><a href=\"#code={0}\">{0}</a></td><td>{n}</td><td>{files}</td></tr>",
            esc(code)
        );
    }
    out.push_str("</table>");
}

fn file_section(out: &mut String, f: &FileReport) {
    let status = status_name(f.status);
    let mut codes: Vec<&str> = f.warnings.iter().map(|w| warning_code(w)).collect();
    codes.sort_unstable();
    codes.dedup();
    // What the cards can be sorted by (`report.js`): path, time, warnings, growth in bytes.
    let grown = f.size_after as i64 - f.size_before as i64;
    let _ = write!(
        out,
        "<section class=\"file {status}\" data-status=\"{status}\" data-codes=\"{}\" \
         data-path=\"{}\" data-ms=\"{:.3}\" data-warnings=\"{}\" data-grown=\"{}\"><h2>{}</h2>\
         <p class=\"meta\"><span class=\"status\">{status}</span>",
        esc(&codes.join(" ")),
        esc(&f.input),
        f.time_ms,
        f.warnings.len(),
        if f.size_after > 0 { grown } else { 0 },
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
    if !f.warnings.is_empty() {
        let _ = write!(
            out,
            "<details open class=\"warnings\"><summary>{}</summary><ul>",
            super::text::count(f.warnings.len(), "warning", "warnings")
        );
        for w in &f.warnings {
            let _ = write!(
                out,
                "<li><code>{}</code> {}</li>",
                esc(warning_code(w)),
                esc(&warning_text(w))
            );
        }
        out.push_str("</ul></details>");
    }
    preview::previews(out, &f.previews);
    for p in &f.pictures {
        pictures(out, p);
    }
    retarget::table(out, f.retarget.as_ref());
    mapping_table(out, f);
    out.push_str("</section>");
}

/// The CSS class of a confidence cell: `k4` (0.9 and above, green) down to `k0` (below 0.25,
/// red).
fn confidence_class(c: f64) -> &'static str {
    match c {
        c if c >= 0.9 => "k4",
        c if c >= 0.75 => "k3",
        c if c >= 0.5 => "k2",
        c if c >= 0.25 => "k1",
        _ => "k0",
    }
}

/// The mapping of every skeleton as a table: profile bone, source bone, confidence (coloured),
/// reason.
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
        let confidence =
            |m: &serde_json::Value| m.get("confidence").and_then(|v| v.as_f64()).unwrap_or(0.0);
        let lowest = bones
            .iter()
            .map(|(p, m)| (confidence(m), p))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let _ = write!(
            out,
            "<details><summary>mapping of `{}`: {} bones{}</summary><table class=\"mapping\"><tr><th>profile</th>\
             <th>source</th><th>confidence</th><th>reason</th></tr>",
            esc(name),
            bones.len(),
            lowest
                .map(|(c, p)| format!(", lowest confidence {c:.2} ({})", esc(p)))
                .unwrap_or_default()
        );
        for (p, m) in bones {
            let c = confidence(m);
            let _ = write!(
                out,
                "<tr><td>{}<td>{}<td class={}>{c:.2}<td>{}",
                esc(p),
                esc(m.get("source").and_then(|v| v.as_str()).unwrap_or("")),
                confidence_class(c),
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
        "<figure><svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         class=\"{view} {0}\"><title>{view}, {0}: bones coloured by the mapper's confidence</title>",
        if after { "after" } else { "before" }
    );
    // One path per confidence class (unmapped bones `kn`): a few bytes per bone.
    let mut paths: BTreeMap<&str, (String, String)> = BTreeMap::new();
    for (i, b) in p.bones.iter().enumerate() {
        let Some(parent) = b.parent else { continue };
        let ((x1, y1), (x2, y2)) = (map(pts[parent]), map(pts[i]));
        let class = b
            .confidence
            .map_or("kn", |c| confidence_class(f64::from(c)));
        let (start, end) = (format!("{x1:.0} {y1:.0}"), format!("{x2:.0} {y2:.0}"));
        let (d, pen) = paths.entry(class).or_default();
        // A bone that starts where the last one of its class ended continues the line.
        if *pen != start {
            let _ = write!(d, "M{start}");
        }
        let _ = write!(d, "L{end}");
        *pen = end;
    }
    for (class, (d, _)) in paths {
        let _ = write!(out, "<path class=\"{class}\" d=\"{d}\"/>");
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
