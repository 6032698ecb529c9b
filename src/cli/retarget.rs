//! `skelnorm retarget`: normalize source and target in memory, retarget the source's clips
//! onto the target by chains, add them to the target file, report the measures per clip.

use super::map::EXIT_PARTIAL;
use super::Failure;
use serde::Serialize;
use skelnorm::check::retarget::{retarget as measure, RetargetCheck};
use skelnorm::gltf_io::{self, Document};
use skelnorm::mapping::{BoneMap, MapOptions};
use skelnorm::pipeline::{normalize, NormalizeError, NormalizeOptions};
use skelnorm::profile::Profile;
use skelnorm::retarget::{retarget_clip, Plan, RetargetOptions, RetargetPose, Rig};
use skelnorm::tracks::COMPANION_SUFFIX;
use std::io::Write;
use std::path::PathBuf;

/// Everything `retarget` takes.
#[derive(clap::Args, Debug, Clone)]
pub struct RetargetArgs {
    /// The file whose clips are retargeted (a character, or clips only: VRMA, a file without
    /// mesh); raw or normalized.
    #[arg(long, value_name = "SRC")]
    pub source: PathBuf,
    /// The character that receives the clips; raw or normalized.
    #[arg(long, value_name = "TGT")]
    pub target: PathBuf,
    /// The output: the target (normalized) with the retargeted clips added.
    #[arg(short = 'o', long, value_name = "OUT")]
    pub output: PathBuf,
    /// Retarget only this source clip (repeatable); all of them by default.
    #[arg(long = "clip", value_name = "NAME")]
    pub clips: Vec<String>,
    /// Put this before each new clip's name.
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub prefix: String,
    /// Put this after each new clip's name.
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub suffix: String,
    /// A settings file (RON; its `retarget`, `map` and normalize sections apply).
    #[arg(long, value_name = "SETTINGS")]
    pub settings: Option<PathBuf>,
    /// A retarget-pose RON file: rotation offsets of either side's rest.
    #[arg(long, value_name = "POSE")]
    pub pose: Option<PathBuf>,
    /// Write a JSON report: the plan (chains, hips ratio, warnings) and the measures per clip.
    #[arg(long, value_name = "REPORT")]
    pub report: Option<PathBuf>,
    /// Print the JSON report instead of the text summary.
    #[arg(long)]
    pub json: bool,
    /// Skip the root pass (the hips stay at their rest position).
    #[arg(long)]
    pub no_root: bool,
    /// Skip the FK pass (bones keep their rest rotations).
    #[arg(long)]
    pub no_fk: bool,
    /// Skip the IK pass.
    #[arg(long)]
    pub no_ik: bool,
    /// No horizontal travel of the hips.
    #[arg(long)]
    pub in_place: bool,
    /// Move the hips' horizontal travel and yaw to the target's Root bone.
    #[arg(long)]
    pub root_motion: bool,
    /// Factor on the horizontal hips motion (on top of the hips-height ratio).
    #[arg(long, value_name = "X")]
    pub horizontal_scale: Option<f32>,
    /// Factor on the vertical hips motion (on top of the hips-height ratio).
    #[arg(long, value_name = "X")]
    pub vertical_scale: Option<f32>,
    /// Sampling rate of the new clips, frames per second (default 30).
    #[arg(long, value_name = "FPS")]
    pub fps: Option<f32>,
    /// The source skeleton to use (by index, as `inspect` lists them); the first that fits.
    #[arg(long, value_name = "N")]
    pub source_skeleton: Option<usize>,
    /// The target skeleton to use; the first that fits.
    #[arg(long, value_name = "N")]
    pub target_skeleton: Option<usize>,
    /// A profile RON file for both sides; the built-in humanoid by default.
    #[arg(long, value_name = "PROFILE")]
    pub profile: Option<PathBuf>,
    /// Skip measuring the retargeted clips.
    #[arg(long)]
    pub no_check: bool,
}

impl RetargetArgs {
    /// The retarget options: the settings file's, changed by the flags given.
    fn resolve(&self, base: &RetargetOptions) -> Result<RetargetOptions, Failure> {
        let mut o = base.clone();
        o.root &= !self.no_root;
        o.fk &= !self.no_fk;
        o.ik &= !self.no_ik;
        o.in_place |= self.in_place;
        o.root_motion |= self.root_motion;
        if let Some(x) = self.horizontal_scale {
            o.horizontal_scale = x;
        }
        if let Some(x) = self.vertical_scale {
            o.vertical_scale = x;
        }
        if let Some(f) = self.fps {
            if !(f > 0.0 && f.is_finite() && f <= 1000.0) {
                return Err(Failure::Usage(format!(
                    "--fps {f}: must be above 0 and at most 1000"
                )));
            }
            o.fps = f;
        }
        if let Some(p) = &self.pose {
            o.pose = RetargetPose::load(p).map_err(Failure::Usage)?;
        }
        Ok(o)
    }
}

/// One retargeted clip in the report.
#[derive(Serialize)]
struct ClipOut {
    /// The source clip.
    source_clip: String,
    /// The new clip in the output.
    clip: String,
    /// Keys per track.
    frames: usize,
    /// The measures.
    #[serde(skip_serializing_if = "Option::is_none")]
    measured: Option<RetargetCheck>,
}

#[derive(Serialize)]
struct Report<'a> {
    source: String,
    target: String,
    output: String,
    source_skeleton: String,
    target_skeleton: String,
    plan: &'a Plan,
    clips: Vec<ClipOut>,
    size_after: u64,
}

/// A file normalized in memory, with the skeleton chosen and its map.
struct Side {
    doc: Document,
    index: usize,
    map: BoneMap,
}

fn normalized(
    path: &std::path::Path,
    skeleton: Option<usize>,
    profile: &Profile,
    map: &MapOptions,
) -> Result<Result<Side, i32>, Failure> {
    let mut doc = gltf_io::read(path)?;
    let options = NormalizeOptions {
        map: map.clone(),
        skeleton,
        ..NormalizeOptions::default()
    };
    let report = match normalize(&mut doc.model, profile, &options) {
        Ok(r) => r,
        Err(e @ NormalizeError::NoFit { .. }) => {
            eprintln!("skelnorm: {}: {e}", path.display());
            return Ok(Err(EXIT_PARTIAL));
        }
        Err(e @ NormalizeError::NoSkeleton(..)) => {
            return Err(Failure::Usage(format!("{}: {e}", path.display())))
        }
        Err(e) => return Err(anyhow::anyhow!("{}: {e}", path.display()).into()),
    };
    let chosen = report
        .skeletons
        .into_iter()
        .find(|s| s.skipped.is_none())
        .expect("normalize succeeded, so a skeleton fits");
    Ok(Ok(Side {
        doc,
        index: chosen.index,
        map: chosen.bone_map,
    }))
}

/// Runs `retarget`; returns the exit code (0, or 3 when a side has no skeleton that fits).
pub fn run(args: &RetargetArgs) -> Result<i32, Failure> {
    super::check_output(&args.output)?;
    let settings = super::load_settings(args.settings.as_deref())?;
    let options = args.resolve(&settings.retarget)?;
    let profile_path = args
        .profile
        .clone()
        .or_else(|| settings.map.profile.as_ref().map(PathBuf::from));
    let profile = match &profile_path {
        Some(p) => std::borrow::Cow::Owned(Profile::load(p).map_err(|e| Failure::Usage(e.to_string()))?),
        None => std::borrow::Cow::Borrowed(Profile::humanoid()),
    };
    let map_options = MapOptions {
        overrides: None,
        ignore_declared: settings.map.ignore_vrm,
    };
    let source = match normalized(&args.source, args.source_skeleton, &profile, &map_options)? {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    let mut target = match normalized(&args.target, args.target_skeleton, &profile, &map_options)? {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    let available: Vec<&str> = source
        .doc
        .model
        .clips
        .iter()
        .filter(|c| c.skeleton == source.index && !c.name.ends_with(COMPANION_SUFFIX))
        .map(|c| c.name.as_str())
        .collect();
    if let Some(missing) = args.clips.iter().find(|n| !available.contains(&n.as_str())) {
        return Err(Failure::Usage(format!(
            "{}: no clip `{missing}` (it has: {})",
            args.source.display(),
            available.join(", ")
        )));
    }
    let chosen: Vec<&str> = available
        .iter()
        .copied()
        .filter(|n| args.clips.is_empty() || args.clips.iter().any(|c| c == n))
        .collect();
    if chosen.is_empty() {
        return Err(Failure::Usage(format!(
            "{}: has no clips to retarget",
            args.source.display()
        )));
    }
    let taken: Vec<String> = target.doc.model.clips.iter().map(|c| c.name.clone()).collect();
    let new_name = |n: &str| format!("{}{n}{}", args.prefix, args.suffix);
    if let Some(clash) = chosen.iter().map(|n| new_name(n)).find(|n| taken.contains(n)) {
        return Err(Failure::Usage(format!(
            "{}: already has a clip `{clash}`; use --prefix or --suffix to name the new clips",
            args.target.display()
        )));
    }
    let s_rig = Rig {
        skeleton: &source.doc.model.skeletons[source.index],
        map: &source.map,
        profile: &profile,
    };
    let target_model = target.doc.model.clone();
    let t_rig = Rig {
        skeleton: &target_model.skeletons[target.index],
        map: &target.map,
        profile: &profile,
    };
    let mut outs = Vec::new();
    let mut plan = None;
    for name in &chosen {
        let clip = source
            .doc
            .model
            .clips
            .iter()
            .find(|c| c.skeleton == source.index && c.name == *name)
            .expect("listed above");
        let mut r = retarget_clip(&s_rig, clip, &t_rig, target.index, &options).map_err(|e| {
            Failure::Usage(format!(
                "{} → {}: {e}",
                args.source.display(),
                args.target.display()
            ))
        })?;
        r.clip.name = new_name(name);
        let measured =
            (!args.no_check).then(|| measure((&s_rig, clip), (&t_rig, &r.clip), &r.plan, &options));
        outs.push(ClipOut {
            source_clip: name.to_string(),
            clip: r.clip.name.clone(),
            frames: r
                .clip
                .tracks
                .iter()
                .find_map(|t| t.rotation.as_ref().map(|r| r.len()))
                .unwrap_or(0),
            measured,
        });
        target.doc.model.clips.push(r.clip);
        plan.get_or_insert(r.plan);
    }
    target.doc.write(&args.output)?;
    let plan = plan.expect("at least one clip");
    let report = Report {
        source: args.source.display().to_string(),
        target: args.target.display().to_string(),
        output: args.output.display().to_string(),
        source_skeleton: s_rig.skeleton.name.clone(),
        target_skeleton: t_rig.skeleton.name.clone(),
        plan: &plan,
        clips: outs,
        size_after: gltf_io::stored_size(&args.output),
    };
    super::emit(&report, args.report.as_deref(), args.json, |w| {
        summary(w, &report)
    })?;
    Ok(super::EXIT_OK)
}

fn summary(w: &mut dyn Write, r: &Report) -> std::io::Result<()> {
    writeln!(w, "{} → {} → {}", r.source, r.target, r.output)?;
    writeln!(
        w,
        "skeleton `{}` → `{}`: hips height {:.3} → {:.3} (ratio {:.3}), {} chains",
        r.source_skeleton,
        r.target_skeleton,
        r.plan.source_hips_height,
        r.plan.target_hips_height,
        r.plan.hips_ratio,
        r.plan.chains.len()
    )?;
    for warn in &r.plan.warnings {
        let code = serde_json::to_value(warn.code).ok();
        let code = code.as_ref().and_then(|c| c.as_str()).unwrap_or("warning");
        writeln!(w, "  warning [{code}]: {}", warn.message)?;
    }
    for c in &r.clips {
        write!(w, "clip `{}` → `{}`: {} frames", c.source_clip, c.clip, c.frames)?;
        if let Some(m) = &c.measured {
            let bones = m.chains.iter().filter_map(|c| c.bones_deg).fold(0.0f32, f32::max);
            let end = m.chains.iter().map(|c| c.end_deg).fold(0.0f32, f32::max);
            let feet = m
                .effectors
                .iter()
                .filter(|e| e.bone.ends_with("Foot"))
                .map(|e| e.max_error)
                .fold(0.0f32, f32::max);
            let skate = |f: fn(&skelnorm::check::retarget::SkateCheck) -> f32| {
                m.skate.iter().map(f).fold(0.0f32, f32::max)
            };
            write!(
                w,
                "; directions within {bones:.2}° (ends {end:.2}°) beyond the rests' own difference, feet within {:.2}% of height, skate {:.3}% → {:.3}% per frame, bone lengths kept within {:.1e}",
                feet * 100.0,
                skate(|s| s.source) * 100.0,
                skate(|s| s.target) * 100.0,
                m.length_drift
            )?;
        }
        writeln!(w)?;
    }
    Ok(())
}
