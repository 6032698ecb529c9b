//! `skelnorm normalize`: map → rest fix → strip tracks → rename, write the result, print a
//! summary, optionally write a JSON report with the mapping, the per-bone changes, the removed
//! tracks, the renamed bones, the file sizes and the measured invariants.

use super::map::{MapArgs, EXIT_PARTIAL};
use super::stages::StageFlags;
use super::Failure;
use serde::Serialize;
use skelnorm::gltf_io;
use skelnorm::pipeline::{normalize, NormalizeError, NormalizeReport};
use skelnorm::tracks::StripReason;
use std::io::Write;
use std::path::PathBuf;

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
    pub stages: StageFlags,
}

impl NormalizeArgs {
    /// Writes the flags given into `settings` (they win over the file's).
    pub fn apply(&self, settings: &mut skelnorm::settings::Settings) -> Result<(), Failure> {
        self.map.apply(settings);
        self.stages.apply(settings)?;
        let n = &mut settings.normalize;
        if self.allow_partial {
            (n.allow_partial, n.strict) = (true, false);
        }
        if self.strict {
            (n.allow_partial, n.strict) = (false, true);
        }
        n.check &= !self.no_check;
        Ok(())
    }
}

#[derive(Serialize)]
struct Output<'a> {
    file: String,
    output: String,
    warnings: &'a [String],
    /// Bytes on disk of the input (with the buffers and images it refers to) and the output.
    size_before: u64,
    size_after: u64,
    #[serde(flatten)]
    report: &'a NormalizeReport,
}

/// Runs `normalize`; returns the exit code (0, or 3 when no skeleton fits the profile).
pub fn run(args: &NormalizeArgs) -> Result<i32, Failure> {
    super::check_output(&args.output)?;
    let mut settings = super::load_settings(args.settings.as_deref())?;
    args.apply(&mut settings)?;
    let resolved = super::resolve(&settings)?;
    let (profile, mut options) = (resolved.profile, resolved.normalize);
    options.skeleton = args.skeleton;
    let allow_partial = options.allow_partial;
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
        size_before: gltf_io::stored_size(&args.input),
        size_after: gltf_io::stored_size(&args.output),
        report: &report,
    };
    super::emit(&out, args.report.as_deref(), args.json, |w| summary(w, &out))?;
    Ok(super::EXIT_OK)
}

fn summary(w: &mut dyn Write, out: &Output) -> std::io::Result<()> {
    writeln!(w, "{} → {}", out.file, out.output)?;
    writeln!(w, "size: {} → {} bytes", out.size_before, out.size_after)?;
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
        if let Some(t) = &s.tracks {
            tracks_summary(w, t)?;
        }
        if let Some(r) = &s.rename {
            if !r.bones.is_empty() || r.skeleton.is_some() {
                write!(w, "  renamed {} bones to profile names", r.bones.len())?;
                if let Some(sk) = &r.skeleton {
                    write!(w, ", the skeleton `{}` → `{}`", sk.from, sk.to)?;
                }
                writeln!(w)?;
            }
            for m in &r.moved_aside {
                writeln!(w, "  moved node `{}` aside to `{}`", m.from, m.to)?;
            }
            for warn in &r.warnings {
                writeln!(
                    w,
                    "  warning [name_taken]: {}: {}",
                    warn.message,
                    warn.names.join(", ")
                )?;
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

fn tracks_summary(w: &mut dyn Write, t: &skelnorm::tracks::StripReport) -> std::io::Result<()> {
    if t.removed_tracks > 0 {
        let reasons = [
            (StripReason::UnimportantPosition, "unimportant positions"),
            (StripReason::UnmappedBone, "of unmapped bones"),
            (StripReason::Separated, "moved to companion clips"),
            (StripReason::NotBoneTransform, "not bone transforms"),
            (StripReason::AtRest, "at rest"),
        ];
        let parts: Vec<String> = reasons
            .iter()
            .filter_map(|(r, what)| {
                let n = t
                    .clips
                    .iter()
                    .flat_map(|c| &c.removed)
                    .filter(|x| x.reason == *r)
                    .count();
                (n > 0).then(|| format!("{n} {what}"))
            })
            .collect();
        let clips = t.clips.iter().filter(|c| !c.removed.is_empty()).count();
        writeln!(
            w,
            "  tracks: removed {} channels from {clips} clips ({})",
            t.removed_tracks,
            parts.join(", ")
        )?;
    }
    if !t.companions.is_empty() {
        writeln!(w, "  added {} companion clips (`.unmapped`)", t.companions.len())?;
    }
    for warn in &t.warnings {
        let code = serde_json::to_value(warn.code).ok();
        let code = code.as_ref().and_then(|c| c.as_str()).unwrap_or("warning");
        writeln!(
            w,
            "  warning [{code}]: {}: {}",
            warn.message,
            warn.names.join(", ")
        )?;
    }
    Ok(())
}
