//! `skelnorm inspect`: text or JSON view of a file's skeletons and clips.

use super::Failure;
use skelnorm::gltf_io::{Converted, Format};
use skelnorm::inspect::{inspect, Inspection};
use skelnorm::model::Warning;
use skelnorm::report::{FileReport, InspectReport, Report};
use std::io::Write;
use std::path::Path;

struct Output<'a> {
    file: String,
    format: Format,
    /// What a converted file (FBX, BVH) declared: its format, units, axes.
    converted: Option<&'a Converted>,
    extensions_used: Vec<String>,
    warnings: &'a [Warning],
    inspection: Inspection,
}

pub fn run(file: &Path, json: bool) -> Result<(), Failure> {
    let start = std::time::Instant::now();
    let doc = super::read_for_viewing(file)?;
    let extensions_used = doc.json()["extensionsUsed"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e.as_str().map(str::to_string))
        .collect();
    let out = Output {
        file: file.display().to_string(),
        format: doc.format,
        converted: doc.converted.as_ref(),
        extensions_used,
        warnings: &doc.warnings,
        inspection: inspect(&doc.model),
    };
    if json {
        let mut f = FileReport::new(out.file.clone());
        f.add_reader_warnings(out.warnings);
        f.set_inspect(&InspectReport {
            format: out.format,
            converted: out.converted,
            extensions_used: out.extensions_used.clone(),
            inspection: &out.inspection,
        });
        f.size_before = skelnorm::gltf_io::stored_size(file);
        f.time_ms = start.elapsed().as_secs_f64() * 1e3;
        f.settle();
        return super::emit(&Report::single("inspect", f), None, true, |_| Ok(()));
    }
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    print_text(&mut w, &out)?;
    w.flush()?;
    Ok(())
}

fn print_text(w: &mut impl Write, out: &Output) -> std::io::Result<()> {
    match out.converted {
        Some(c) => {
            writeln!(w, "{} ({}, read as glTF)", out.file, c.format)?;
            for (what, value) in &c.facts {
                writeln!(w, "{what}: {value}")?;
            }
        }
        None => writeln!(w, "{} ({:?})", out.file, out.format)?,
    }
    if !out.extensions_used.is_empty() {
        writeln!(w, "extensions: {}", out.extensions_used.join(", "))?;
    }
    for warning in out.warnings {
        writeln!(w, "warning: {warning}")?;
    }
    if out.inspection.skeletons.is_empty() {
        writeln!(w, "no skeleton")?;
    }
    for (i, s) in out.inspection.skeletons.iter().enumerate() {
        let g = &s.glance;
        writeln!(
            w,
            "\nskeleton {i} `{}`: {} bones ({} joints), {} skin(s)",
            s.name, s.bone_count, s.joint_count, s.skin_count
        )?;
        writeln!(
            w,
            "  height {:.3} ({}), up {}, facing {}, {}{}, naming: {}",
            g.height,
            g.units,
            g.up,
            g.facing,
            g.pose,
            g.arm_angle_deg
                .map(|a| format!(" (arms {a:.0}° below horizontal)"))
                .unwrap_or_default(),
            s.naming
        )?;
        if (g.base_scale - 1.0).abs() > 1e-4 || g.authored_up != g.up {
            writeln!(
                w,
                "  authored in {} with {} up; the nodes above the skeleton scale it by {} and turn it to {} up",
                g.offset_units, g.authored_up, g.base_scale, g.up
            )?;
        }
        let m = &s.mapping;
        let missing = if m.missing_required.is_empty() {
            "all required bones".to_string()
        } else {
            format!("missing required {}", m.missing_required.join(", "))
        };
        writeln!(
            w,
            "  {} map: {}/{} bones, {missing} (see `skelnorm map`)",
            m.profile,
            m.bones.len(),
            m.bones.len() + m.unmapped_profile.len()
        )?;
        for b in &s.bones {
            let q = b.rest_rotation;
            let p = b.world_position;
            writeln!(
                w,
                "  {:indent$}{}{}  rot ({:.3}, {:.3}, {:.3}, {:.3})  at ({:.3}, {:.3}, {:.3})",
                "",
                b.name,
                if b.joint { "" } else { " [not a joint]" },
                q[0],
                q[1],
                q[2],
                q[3],
                p[0],
                p[1],
                p[2],
                indent = 2 * b.depth.min(64)
            )?;
        }
    }
    if !out.inspection.clips.is_empty() {
        writeln!(w, "\nclips:")?;
    }
    for c in &out.inspection.clips {
        let interp: Vec<&str> = c.interpolations.iter().map(|i| i.as_gltf()).collect();
        writeln!(
            w,
            "  `{}`: {:.3} s, {} bone channels ({}), {} other channels, skeleton {}",
            c.name,
            c.duration,
            c.bone_channels,
            interp.join("/"),
            c.other_channels,
            c.skeleton
        )?;
    }
    Ok(())
}
