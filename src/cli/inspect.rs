//! `skelnorm inspect`: text or JSON view of a file's skeletons and clips.

use super::Failure;
use skelnorm::jobs::{inspect_file, Inspected};
use skelnorm::model::Warning;
use skelnorm::report::{InspectReport, Report};
use std::io::Write;
use std::path::Path;

pub fn run(file: &Path, json: bool) -> Result<(), Failure> {
    let start = std::time::Instant::now();
    let Inspected {
        file: mut report,
        report: out,
    } = inspect_file(file, &super::read_options())?;
    if json {
        report.set_inspect(&out);
        report.time_ms = start.elapsed().as_secs_f64() * 1e3;
        report.settle();
        return super::print_json(&Report::single("inspect", report));
    }
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    print_text(&mut w, file, &report.warnings, &out)?;
    w.flush()?;
    Ok(())
}

fn print_text(
    w: &mut impl Write,
    file: &Path,
    warnings: &[Warning],
    out: &InspectReport,
) -> std::io::Result<()> {
    match &out.converted {
        Some(c) => {
            writeln!(w, "{} ({}, read as glTF)", file.display(), c.format)?;
            for (what, value) in &c.facts {
                writeln!(w, "{what}: {value}")?;
            }
        }
        None => writeln!(w, "{} ({:?})", file.display(), out.format)?,
    }
    if !out.extensions_used.is_empty() {
        writeln!(w, "extensions: {}", out.extensions_used.join(", "))?;
    }
    for warning in warnings {
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
        if !c.curves.is_empty() {
            writeln!(w, "    float curves: {}", c.curves.join(", "))?;
        }
    }
    Ok(())
}
