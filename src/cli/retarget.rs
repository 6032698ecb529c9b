//! `skelnorm retarget`: its flags, resolved into a retarget job; [`skelnorm::jobs::retarget_files`]
//! normalizes source and target in memory, retargets the source's clips onto the target by chains
//! and writes the target with them; this prints the measures per clip.

use super::map::MapArgs;
use super::retarget_flags::{parse_contacts, parse_pin, parse_stride, parse_treadmill};
use super::Failure;
use skelnorm::jobs::{retarget_files, Outcome, RetargetFiles, Retargeted};
use skelnorm::pipeline::{ClipNaming, OnClash, RetargetJob};
use skelnorm::report::{retarget_text, Report};
use skelnorm::retarget::{Contacts, PinOp, Treadmill};
use skelnorm::settings::{load_pose, Settings};
use std::path::PathBuf;

/// Everything `retarget` takes.
/// `--on-clash`: [`OnClash`] on the command line.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnClashArg {
    /// Keep the target's clip; the new one becomes `NAME (retargeted)`.
    Rename,
    /// Drop the target's clip; the new one keeps the name.
    Replace,
    /// Change nothing and exit 2.
    Refuse,
}

impl From<OnClashArg> for OnClash {
    fn from(a: OnClashArg) -> OnClash {
        match a {
            OnClashArg::Rename => OnClash::Rename,
            OnClashArg::Replace => OnClash::Replace,
            OnClashArg::Refuse => OnClash::Refuse,
        }
    }
}

#[derive(clap::Args, Debug, Clone)]
pub struct RetargetArgs {
    /// The file whose clips are retargeted (a character, or clips only: VRMA, a file without
    /// mesh); raw or normalized.
    #[arg(long, value_name = "SRC")]
    pub source: PathBuf,
    /// The character that receives the clips; raw or normalized.
    #[arg(long, value_name = "TGT")]
    pub target: PathBuf,
    /// The output: the target as it came (its names, rests and scene) with the retargeted
    /// clips added in its own rests; or, ending in .bvh, the target's skeleton with the one
    /// retargeted clip; or, ending in .vrma, the one retargeted clip as a VRM animation for a
    /// VRM target.
    #[arg(short = 'o', long, value_name = "OUT")]
    pub output: PathBuf,
    /// Write the target normalized (profile names, T-pose rests, facing +Z) with the new
    /// clips, instead of the target as it came.
    #[arg(long, conflicts_with = "animation_only")]
    pub normalized: bool,
    /// Write only the target's skeleton (its nodes and rests, no meshes) and the new clips:
    /// an animation-only file. Onto a VRM character, write it as a VRM animation: OUT ends in
    /// .vrma (implied by such an OUT).
    #[arg(long)]
    pub animation_only: bool,
    /// Retarget only this source clip (repeatable); all of them by default.
    #[arg(long = "clip", value_name = "NAME")]
    pub clips: Vec<String>,
    /// Put this before each new clip's name.
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub prefix: String,
    /// Put this after each new clip's name.
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub suffix: String,
    /// When a new clip's name is a clip of the target's (or another new clip's), ignoring
    /// case: keep the target's and rename the new one `NAME (retargeted)` (the default), replace
    /// the target's, or refuse (exit 2). Settings key `clips.on_clash`.
    #[arg(long, value_enum, value_name = "POLICY")]
    pub on_clash: Option<OnClashArg>,
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
    /// The legs' direction budget of the IK pass, degrees (0 to 180): a foot goes toward its
    /// IK goal only as far as its thigh and shin stay within this of the source's; 180 puts it
    /// at its goal whatever it costs the legs. Settings key `retarget.ik_max_leg_deg`
    /// (default 2). While planting runs, its `ik_max_leg_deg` (default 0) is used instead.
    #[arg(long, value_name = "DEG")]
    pub ik_max_leg_deg: Option<f32>,
    /// Add speed planting to the op stack (its defaults), unless the settings list it: feet
    /// held while the source's are planted.
    #[arg(long)]
    pub plant: bool,
    /// Plant on the treadmill of a source clip that runs in place: `detect` (found from each
    /// whole clip), `off`, or the ground's velocity X,Z (source units per second, in the
    /// source's skeleton space). Adds speed planting (its defaults) unless the settings list
    /// it, or sets the treadmill of the one they list.
    #[arg(long, value_name = "detect|off|X,Z", value_parser = parse_treadmill)]
    pub treadmill: Option<Treadmill>,
    /// Where planting's contacts come from: `detect` (the source's foot height and speed) or
    /// two float curves of the clip, LEFT,RIGHT[,THRESHOLD] (such as `FootLock_L,FootLock_R`:
    /// a foot is in contact where its curve is at least THRESHOLD, 0.5 when not given; FBX
    /// files carry them as animated user properties). Adds speed planting (its defaults) unless
    /// the settings list it, or sets the contacts of the one they list.
    #[arg(long, value_name = "detect|LEFT,RIGHT[,THRESHOLD]", value_parser = parse_contacts)]
    pub contacts: Option<Contacts>,
    /// Add the floor constraint to the op stack (its defaults), unless the settings list it:
    /// feet and hips never below the floor.
    #[arg(long)]
    pub floor: bool,
    /// Add the One-Euro filter to the op stack (its defaults), unless the settings list it.
    #[arg(long)]
    pub filter: bool,
    /// Add pole-vector matching to the op stack (its defaults), unless the settings list it:
    /// knees and elbows bend toward the side the source's do.
    #[arg(long)]
    pub pole: bool,
    /// Stride warping: scale each foot's motion from its stance below the pelvis by FORWARD
    /// (along the hips' heading) and SIDEWAYS (across it; 1 when not given). Adds the op, or
    /// sets the factors of the one the settings list.
    #[arg(long, value_name = "FORWARD[,SIDEWAYS]", value_parser = parse_stride)]
    pub stride: Option<(f32, f32)>,
    /// Pin a target bone (a weapon, a prop, an IK helper) to another: BONE takes FROM's
    /// transform keeping their rest offset (`:rest`, the default) or onto FROM's own (`:global`).
    /// Bones by their name in the target or a profile bone they map. Repeatable; adds a `Pin`
    /// op per flag.
    #[arg(long = "pin", value_name = "BONE=FROM[:global|rest]", value_parser = parse_pin)]
    pub pins: Vec<PinOp>,
    /// Add mirroring to the op stack (its defaults), unless the settings list it: the
    /// retargeted clips mirrored left ↔ right across the target's sagittal plane, as
    /// `skelnorm mirror` would (root motion mirrored). It runs last.
    #[arg(long)]
    pub mirror: bool,
    /// No horizontal travel of the hips.
    #[arg(long)]
    pub in_place: bool,
    /// Move the hips' horizontal travel and yaw to the target's Root bone.
    #[arg(long)]
    pub root_motion: bool,
    /// Factor on the horizontal hips motion (on top of the legs' length ratio).
    #[arg(long, value_name = "X")]
    pub horizontal_scale: Option<f32>,
    /// Factor on the vertical hips motion (on top of the legs' length ratio).
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
    #[command(flatten)]
    pub map: MapArgs,
    /// A bone-map RON file for the source only (it replaces --bone-map there).
    #[arg(long, value_name = "MAP")]
    pub source_bone_map: Option<PathBuf>,
    /// A bone-map RON file for the target only (it replaces --bone-map there).
    #[arg(long, value_name = "MAP")]
    pub target_bone_map: Option<PathBuf>,
    #[command(flatten)]
    pub bvh: super::convert::BvhOutArgs,
    /// Skip measuring the retargeted clips.
    #[arg(long)]
    pub no_check: bool,
    #[command(flatten)]
    pub existing: super::ExistingFlag,
}

impl RetargetArgs {
    /// Writes the flags given into `settings` (they win over the file's).
    fn apply(&self, settings: &mut Settings) -> Result<(), Failure> {
        self.map.apply(settings);
        let from_file = settings.folder.is_some();
        if let Some(p) = &self.source_bone_map {
            settings.map.source_bone_map = Some(super::flag_path(p, from_file));
        }
        if let Some(p) = &self.target_bone_map {
            settings.map.target_bone_map = Some(super::flag_path(p, from_file));
        }
        settings.normalize.check &= !self.no_check;
        if let Some(c) = self.on_clash {
            settings.clips.on_clash = c.into();
        }
        let o = &mut settings.retarget;
        o.root &= !self.no_root;
        o.fk &= !self.no_fk;
        o.ik &= !self.no_ik;
        if let Some(d) = self.ik_max_leg_deg {
            if !(0.0..=180.0).contains(&d) {
                return Err(Failure::Usage(format!(
                    "--ik-max-leg-deg {d}: must be between 0 and 180"
                )));
            }
            o.ik_max_leg_deg = d;
        }
        self.apply_ops(&mut o.ops);
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
            o.pose = load_pose(p).map_err(|e| Failure::Usage(e.to_string()))?;
        }
        Ok(())
    }
}

/// Runs `retarget`; returns the exit code (0; a [`Failure::Refused`], exit 3, when a side has
/// no skeleton that fits or the pair cannot be retargeted; [`Failure::Nothing`], exit 4, when the
/// source has no clips).
pub fn run(args: &RetargetArgs) -> Result<i32, Failure> {
    let files = RetargetFiles {
        source: &args.source,
        target: &args.target,
        output: &args.output,
        read: &super::read_options(),
        existing: args.existing.existing.into(),
        source_skeleton: args.source_skeleton,
        target_skeleton: args.target_skeleton,
        bvh: &args.bvh.options(),
    };
    let mode = super::retarget_output(args.normalized, args.animation_only);
    files.check(mode)?;
    let mut settings = super::load_settings(args.settings.as_deref())?;
    args.apply(&mut settings)?;
    let resolved = super::resolve(&settings)?;
    let start = std::time::Instant::now();
    let job = RetargetJob {
        clips: args.clips.clone(),
        naming: ClipNaming {
            prefix: args.prefix.clone(),
            suffix: args.suffix.clone(),
            on_clash: resolved.on_clash,
        },
        output: mode,
        ..resolved.retarget_job()
    };
    let Retargeted { mut file, report } = match retarget_files(&files, &resolved.profile, job)? {
        Outcome::Written(done) => done,
        Outcome::Skipped(file) => {
            return super::skipped(*file, "retarget", &args.output, args.json)
        }
    };
    file.time_ms = start.elapsed().as_secs_f64() * 1e3;
    let summary = file.clone(); // as read and written, before the report fills it
    let json = || {
        file.set_retarget(&report);
        file.settle();
        Report::single("retarget", file)
    };
    super::emit(json, args.report.as_deref(), args.json, |w| {
        retarget_text(w, &summary, &report)
    })?;
    Ok(super::EXIT_OK)
}
