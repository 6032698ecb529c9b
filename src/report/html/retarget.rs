//! The retarget measures of a file's report as a table: per new clip, math.md's directions per
//! segment (mean, worst and where, the segments not measured), each foot's skate in leg lengths
//! over the source's contacts, and the ops' leg cost. Renders what the report holds.

use super::esc;
use serde_json::Value;
use std::fmt::Write;

/// A figure in degrees, or `n/a`.
fn deg(v: &Value) -> String {
    v.as_f64().map_or("n/a".into(), |d| format!("{d:.2}°"))
}

/// A fraction as a percentage, or `n/a`.
fn pct(v: &Value) -> String {
    v.as_f64()
        .map_or("n/a".into(), |d| format!("{:.3}%", d * 100.0))
}

/// The directions cell: `24 segments, mean 0.44°, worst 10.34° (RightUpperLeg)` and the
/// segments not measured with why.
fn directions(m: &Value) -> String {
    let segs = m["segments"].as_array().map_or(&[][..], |v| v.as_slice());
    let mut out = match segs.iter().max_by(|a, b| {
        a["worst_deg"]
            .as_f64()
            .partial_cmp(&b["worst_deg"].as_f64())
            .unwrap_or(std::cmp::Ordering::Equal)
    }) {
        Some(w) => {
            let mean = segs
                .iter()
                .filter_map(|g| g["mean_deg"].as_f64())
                .sum::<f64>()
                / segs.len() as f64;
            format!(
                "{} segments, mean {mean:.2}°, worst {} ({})",
                segs.len(),
                deg(&w["worst_deg"]),
                esc(w["bone"].as_str().unwrap_or("?"))
            )
        }
        None => "n/a (no segment measured on both sides)".into(),
    };
    let gaps = m["segments_not_measured"]
        .as_array()
        .map_or(&[][..], |v| v.as_slice());
    if !gaps.is_empty() {
        let list: Vec<String> = gaps
            .iter()
            .map(|g| {
                format!(
                    "{} ({})",
                    esc(g["bone"].as_str().unwrap_or("?")),
                    esc(&g["reason"].as_str().unwrap_or("?").replace('_', " "))
                )
            })
            .collect();
        let _ = write!(out, "<br><small>not measured: {}</small>", list.join(", "));
    }
    out
}

/// The skate cell: per foot, source → (core passes →) output, or why not.
fn skate(m: &Value) -> String {
    let without = &m["ops"]["skate_without"];
    let feet = m["skate"].as_array().map_or(&[][..], |v| v.as_slice());
    let per: Vec<String> = feet
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let bone = esc(s["bone"].as_str().unwrap_or("?"));
            match s["reason"].as_str() {
                Some("no_contact_in_source") => format!("{bone}: no contact"),
                Some(r) if s["source"].is_null() => {
                    format!("{bone}: n/a ({})", r.replace('_', " "))
                }
                _ => {
                    let core = match &without[k]["target"] {
                        Value::Null => String::new(),
                        v => format!("{} → ", pct(v)),
                    };
                    format!(
                        "{bone}: {} → {core}{}",
                        pct(&s["source"]),
                        pct(&s["target"])
                    )
                }
            }
        })
        .collect();
    per.join("<br>")
}

/// The leg cost cell: core passes → stack, mean and worst.
fn legs(m: &Value) -> String {
    let l = &m["ops"]["legs"];
    if l.is_null() {
        return if m["ops"].is_null() {
            "(no ops)".into()
        } else {
            "n/a".into()
        };
    }
    format!(
        "mean {} → {}, worst {} → {} ({})",
        deg(&l["mean_deg_without"]),
        deg(&l["mean_deg"]),
        deg(&l["worst_deg_without"]),
        deg(&l["worst_deg"]),
        esc(l["worst_bone"].as_str().unwrap_or("?"))
    )
}

/// The table of a file's retarget part, when it has measured clips.
pub(super) fn table(out: &mut String, retarget: Option<&Value>) {
    let Some(clips) = retarget.and_then(|r| r["clips"].as_array()) else {
        return;
    };
    let measured: Vec<&Value> = clips.iter().filter(|c| c["measured"].is_object()).collect();
    if measured.is_empty() {
        return;
    }
    out.push_str(
        "<table class=\"retarget\"><thead><tr><th>clip</th><th>directions (final poses)</th>\
         <th>skate, % of leg length per frame over the source's contacts (source → core \
         passes → output)</th><th>legs (thighs, shins): core passes → with the ops</th></tr>\
         </thead><tbody>",
    );
    for c in measured {
        let m = &c["measured"];
        let _ = write!(
            out,
            "<tr><td>{} → {}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(c["source_clip"].as_str().unwrap_or("?")),
            esc(c["clip"].as_str().unwrap_or("?")),
            directions(m),
            skate(m),
            legs(m)
        );
    }
    out.push_str("</tbody></table>");
}
