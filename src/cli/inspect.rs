//! `skelnorm inspect`: text or JSON view of a file's skeletons and clips.

use super::Failure;
use serde::Serialize;
use skelnorm::gltf_io::{self, Format};
use skelnorm::inspect::{inspect, Inspection};
use std::path::Path;

#[derive(Serialize)]
struct Output<'a> {
    file: String,
    format: Format,
    extensions_used: Vec<String>,
    warnings: &'a [String],
    #[serde(flatten)]
    inspection: Inspection,
}

pub fn run(file: &Path, json: bool) -> Result<(), Failure> {
    let doc = gltf_io::read(file)?;
    let extensions_used = doc.json()["extensionsUsed"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e.as_str().map(str::to_string))
        .collect();
    let out = Output {
        file: file.display().to_string(),
        format: doc.format,
        extensions_used,
        warnings: &doc.warnings,
        inspection: inspect(&doc.model),
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_text(&out);
    }
    Ok(())
}

fn print_text(out: &Output) {
    println!("{} ({:?})", out.file, out.format);
    if !out.extensions_used.is_empty() {
        println!("extensions: {}", out.extensions_used.join(", "));
    }
    for w in out.warnings {
        println!("warning: {w}");
    }
    if out.inspection.skeletons.is_empty() {
        println!("no skeleton");
    }
    for (i, s) in out.inspection.skeletons.iter().enumerate() {
        let g = &s.glance;
        println!(
            "\nskeleton {i} `{}`: {} bones ({} joints), {} skin(s)",
            s.name, s.bone_count, s.joint_count, s.skin_count
        );
        println!(
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
        );
        if (g.base_scale - 1.0).abs() > 1e-4 || g.authored_up != g.up {
            println!(
                "  authored in {} with {} up; the nodes above the skeleton scale it by {} and turn it to {} up",
                g.offset_units, g.authored_up, g.base_scale, g.up
            );
        }
        for b in &s.bones {
            let q = b.rest_rotation;
            let p = b.world_position;
            println!(
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
                indent = 2 * b.depth
            );
        }
    }
    if !out.inspection.clips.is_empty() {
        println!("\nclips:");
    }
    for c in &out.inspection.clips {
        let interp: Vec<&str> = c.interpolations.iter().map(|i| i.as_gltf()).collect();
        println!(
            "  `{}`: {:.3} s, {} bone channels ({}), {} other channels, skeleton {}",
            c.name,
            c.duration,
            c.bone_channels,
            interp.join("/"),
            c.other_channels,
            c.skeleton
        );
    }
}
