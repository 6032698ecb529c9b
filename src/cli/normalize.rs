//! `skelnorm normalize`: map → rest fix, write the result, print a summary, optionally write a
//! JSON report with the mapping, the per-bone changes and the measured invariants.

use super::map::{MapArgs, EXIT_PARTIAL};
use super::Failure;
use anyhow::Context;
use serde::Serialize;
use skelnorm::gltf_io;
use skelnorm::pipeline::{normalize, NormalizeError, NormalizeOptions, NormalizeReport};
use skelnorm::rest::RestOptions;
use skelnorm::settings::Settings;
use std::io::Write;
use std::path::PathBuf;

/// Flags of the rest fix; each flips or sets one field of `RestOptions` (defaults there).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct RestArgs {
    /// Leave the nodes above the skeleton (0.01 scales, Z-up rotations) where they are.
    #[arg(long)]
    pub keep_node_transforms: bool,
    /// Do not turn a character that faces −Z or sideways.
    #[arg(long)]
    pub no_facing: bool,
    /// Keep the rest pose's silhouette (no A-pose → T-pose).
    #[arg(long)]
    pub no_silhouette: bool,
    /// Leave bones within this many degrees of the profile's direction alone (default 0:
    /// align exactly; Godot uses 15).
    #[arg(long, value_name = "DEG")]
    pub silhouette_threshold: Option<f32>,
    /// A profile bone the silhouette fix leaves alone (repeatable).
    #[arg(long, value_name = "BONE")]
    pub silhouette_skip: Vec<String>,
    /// Make feet flat (toes forward) instead of keeping their pitch.
    #[arg(long)]
    pub flatten_feet: bool,
    /// Keep mapped bones' global rest rotations instead of the profile's.
    #[arg(long)]
    pub no_overwrite_axes: bool,
    /// Divide root and hips translation keys by the hips height (recorded in the clip).
    #[arg(long)]
    pub motion_scale: bool,
}

impl RestArgs {
    /// The rest options: `base` (defaults or the settings file), changed by the flags given.
    pub fn resolve(&self, base: &RestOptions) -> Result<RestOptions, Failure> {
        let mut o = base.clone();
        o.apply_node_transforms &= !self.keep_node_transforms;
        o.fix_facing &= !self.no_facing;
        o.fix_silhouette &= !self.no_silhouette;
        if let Some(t) = self.silhouette_threshold {
            if !(0.0..=180.0).contains(&t) {
                return Err(Failure::Usage(format!(
                    "--silhouette-threshold {t}: must be between 0 and 180 degrees"
                )));
            }
            o.silhouette_threshold_deg = t;
        }
        o.silhouette_skip.extend(self.silhouette_skip.iter().cloned());
        o.flatten_feet |= self.flatten_feet;
        o.overwrite_axes &= !self.no_overwrite_axes;
        o.motion_scale |= self.motion_scale;
        Ok(o)
    }
}

/// Everything `normalize` takes.
#[derive(clap::Args, Debug, Clone)]
pub struct NormalizeArgs {
    /// The input (.gltf, .glb, .vrm, .vrma); never modified.
    pub input: PathBuf,
    /// The output file; its extension picks the container.
    #[arg(short = 'o', long, value_name = "OUT")]
    pub output: PathBuf,
    /// Write a JSON report: mapping, per-bone rest changes, measured invariants, warnings.
    #[arg(long, value_name = "REPORT")]
    pub report: Option<PathBuf>,
    /// Print the JSON report instead of the text summary.
    #[arg(long)]
    pub json: bool,
    /// Normalize only this skeleton (by index, as `inspect` lists them).
    #[arg(long, value_name = "N")]
    pub skeleton: Option<usize>,
    /// Normalize skeletons that lack any required bones (by default only required end bones,
    /// such as hands or feet, may be missing).
    #[arg(long)]
    pub allow_partial: bool,
    /// Refuse skeletons that lack any required bone (exit 3).
    #[arg(long, conflicts_with = "allow_partial")]
    pub strict: bool,
    /// Skip measuring the invariants (skin, T-pose) for the report.
    #[arg(long)]
    pub no_check: bool,
    /// A settings file (RON; see `skelnorm config --dump-defaults`); flags win over it.
    #[arg(long, value_name = "SETTINGS")]
    pub settings: Option<PathBuf>,
    #[command(flatten)]
    pub map: MapArgs,
    #[command(flatten)]
    pub rest: RestArgs,
}

#[derive(Serialize)]
struct Output<'a> {
    file: String,
    output: String,
    warnings: &'a [String],
    #[serde(flatten)]
    report: &'a NormalizeReport,
}

/// Runs `normalize`; returns the exit code (0, or 3 when no skeleton fits the profile).
pub fn run(args: &NormalizeArgs) -> Result<i32, Failure> {
    if gltf_io::Format::for_path(&args.output).is_none() {
        return Err(Failure::Usage(format!(
            "{}: the output must end in .gltf, .glb, .vrm or .vrma",
            args.output.display()
        )));
    }
    let settings = match &args.settings {
        Some(path) => Settings::load(path).map_err(|e| Failure::Usage(e.to_string()))?,
        None => Settings::default(),
    };
    let (profile, map) = args.map.resolve(&settings.map)?;
    if let Some(bad) = args
        .rest
        .silhouette_skip
        .iter()
        .find(|n| profile.find(n).is_none())
    {
        return Err(Failure::Usage(format!(
            "--silhouette-skip {bad}: the `{}` profile has no such bone",
            profile.name
        )));
    }
    let n = &settings.normalize;
    let allow_partial = (args.allow_partial || n.allow_partial) && !args.strict;
    let options = NormalizeOptions {
        map,
        rest: args.rest.resolve(&settings.rest)?,
        skeleton: args.skeleton,
        allow_partial,
        require_all: args.strict || (n.strict && !args.allow_partial),
        measure: n.check && !args.no_check,
    };
    let mut doc = gltf_io::read(&args.input)?;
    let report = match normalize(&mut doc.model, &profile, &options) {
        Ok(r) => r,
        Err(e @ NormalizeError::NoFit { .. }) => {
            eprintln!(
                "skelnorm: {}: {e}{}",
                args.input.display(),
                if allow_partial {
                    ""
                } else {
                    " (use --allow-partial to normalize what is mapped)"
                }
            );
            return Ok(EXIT_PARTIAL);
        }
        Err(e @ NormalizeError::NoSkeleton(..)) => {
            return Err(Failure::Usage(format!("{}: {e}", args.input.display())))
        }
        Err(e) => return Err(anyhow::anyhow!("{}: {e}", args.input.display()).into()),
    };
    doc.write(&args.output)?;
    let out = Output {
        file: args.input.display().to_string(),
        output: args.output.display().to_string(),
        warnings: &doc.warnings,
        report: &report,
    };
    if let Some(path) = &args.report {
        let text = serde_json::to_vec_pretty(&out)?;
        gltf_io::write_file(path, &text)
            .with_context(|| format!("{}: cannot write the report", path.display()))?;
    }
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    if args.json {
        serde_json::to_writer_pretty(&mut w, &out)?;
        writeln!(w)?;
    } else {
        summary(&mut w, &out)?;
    }
    w.flush()?;
    Ok(super::EXIT_OK)
}

fn summary(w: &mut impl Write, out: &Output) -> std::io::Result<()> {
    writeln!(w, "{} → {}", out.file, out.output)?;
    for s in &out.report.skeletons {
        let total = s.mapping.bones.len() + s.mapping.unmapped_profile.len();
        write!(
            w,
            "skeleton `{}`: {}/{} bones mapped",
            s.skeleton,
            s.mapping.bones.len(),
            total
        )?;
        if let Some(why) = &s.skipped {
            writeln!(w, ", left alone ({why})")?;
            continue;
        }
        writeln!(w)?;
        if !s.mapping.missing_required.is_empty() {
            writeln!(
                w,
                "  warning: lacks required bones {}",
                s.mapping.missing_required.join(", ")
            )?;
        }
        if let Some(r) = &s.rest {
            if r.base.folded {
                writeln!(
                    w,
                    "  folded the nodes above it (scale {}, rotation {:.1}°)",
                    r.base.scale, r.base.rotation_deg
                )?;
            }
            if r.facing_turn_deg != 0.0 {
                writeln!(
                    w,
                    "  turned {}° to face +Z (the scene is unchanged)",
                    r.facing_turn_deg
                )?;
            }
            let moved = r.bones.iter().filter(|b| b.silhouette_deg > 0.01).count();
            let most = r
                .bones
                .iter()
                .max_by(|a, b| a.silhouette_deg.total_cmp(&b.silhouette_deg));
            if let Some(m) = most.filter(|m| m.silhouette_deg > 0.01) {
                writeln!(
                    w,
                    "  silhouette: {moved} bones turned at rest, most {:.1}° ({})",
                    m.silhouette_deg, m.bone
                )?;
            }
            if r.complemented_tracks > 0 {
                writeln!(
                    w,
                    "  {} one-key rotation tracks added to keep clips' poses",
                    r.complemented_tracks
                )?;
            }
            if let Some(h) = r.motion_scale {
                writeln!(w, "  motion scale {h:.4} m")?;
            }
            for warn in &r.warnings {
                let code = serde_json::to_value(warn.code).ok();
                let code = code.as_ref().and_then(|c| c.as_str()).unwrap_or("warning");
                writeln!(w, "  warning [{code}]: {}", warn.message)?;
            }
        }
        if let Some(m) = &s.measured {
            writeln!(
                w,
                "  skin: max error {:.1e} of height over {} frames of {} clips",
                m.skin.max_error, m.skin.frames, m.skin.clips
            )?;
            writeln!(
                w,
                "  rest: directions within {:.3}°, +Y to tail within {:.4}°, faces {}",
                m.rest.max_direction_deg,
                m.rest.max_tail_deg,
                if m.rest.faces_plus_z { "+Z" } else { "not +Z" }
            )?;
        }
    }
    Ok(())
}
