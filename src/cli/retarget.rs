//! `skelnorm retarget`: normalize source and target in memory, retarget the source's clips
//! onto the target by chains, add them to the target file, report the measures per clip.

use super::map::MapArgs;
use super::Failure;
use skelnorm::gltf_io;
use skelnorm::model::SkeletonId;
use skelnorm::pipeline::{
    retarget, ClipNaming, NormalizeError, OnClash, RetargetJob, RetargetOutput, RetargetRunError,
};
use skelnorm::report::{FileReport, Report, RetargetRun};
use skelnorm::retarget::{
    Contacts, FilterOp, FloorOp, MirrorOp, Op, PinOp, PinSpace, PlantOp, PoleOp, StrideOp,
    Treadmill,
};
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

impl RetargetArgs {
    /// Adds the ops the flags ask for to `ops`, before a `Mirror` op the settings list (it
    /// stays last); `--mirror` adds one at the end.
    fn apply_ops(&self, ops: &mut Vec<Op>) {
        let listed = |ops: &[Op], name: &str| ops.iter().any(|x| x.name() == name);
        let add = |ops: &mut Vec<Op>, op: Op| {
            let at = ops.iter().position(|x| matches!(x, Op::Mirror(_)));
            ops.insert(at.unwrap_or(ops.len()), op);
        };
        for (asked, op) in [
            (self.plant, Op::Plant(PlantOp::default())),
            (self.floor, Op::Floor(FloorOp::default())),
            (self.filter, Op::Filter(FilterOp::default())),
            (self.pole, Op::Pole(PoleOp::default())),
        ] {
            if asked && !listed(ops, op.name()) {
                add(ops, op);
            }
        }
        if self.treadmill.is_some() || self.contacts.is_some() {
            // Set on the `Plant` op the settings list, else on one added with its defaults.
            if !listed(ops, "plant") {
                add(ops, Op::Plant(PlantOp::default()));
            }
            let plant = ops.iter_mut().find_map(|x| match x {
                Op::Plant(p) => Some(p),
                _ => None,
            });
            if let Some(p) = plant {
                if let Some(treadmill) = self.treadmill {
                    p.treadmill = treadmill;
                }
                if let Some(contacts) = &self.contacts {
                    p.contacts = contacts.clone();
                }
            }
        }
        if let Some((forward, sideways)) = self.stride {
            let listed = ops.iter_mut().find_map(|x| match x {
                Op::Stride(w) => Some(w),
                _ => None,
            });
            match listed {
                Some(w) => (w.forward, w.sideways) = (forward, sideways),
                None => add(
                    ops,
                    Op::Stride(StrideOp {
                        forward,
                        sideways,
                        ..StrideOp::default()
                    }),
                ),
            }
        }
        for pin in &self.pins {
            add(ops, Op::Pin(pin.clone()));
        }
        if self.mirror && !listed(ops, "mirror") {
            ops.push(Op::Mirror(MirrorOp::default()));
        }
    }
}

/// A flag's number: finite, or an error quoting the text.
fn number(t: &str) -> Result<f32, String> {
    match t.trim().parse::<f32>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("`{t}` is not a number")),
    }
}

/// `--stride FORWARD[,SIDEWAYS]`: two finite factors, the second 1 when not given.
fn parse_stride(text: &str) -> Result<(f32, f32), String> {
    match text.split_once(',') {
        Some((f, s)) => Ok((number(f)?, number(s)?)),
        None => Ok((number(text)?, 1.0)),
    }
}

/// `--treadmill detect|off|X,Z`: how planting finds the ground of a clip that runs in place.
fn parse_treadmill(text: &str) -> Result<Treadmill, String> {
    match text.trim() {
        "detect" => return Ok(Treadmill::Detect),
        "off" => return Ok(Treadmill::Off),
        _ => {}
    }
    match text.split_once(',') {
        Some((x, z)) => Ok(Treadmill::Velocity([number(x)?, number(z)?])),
        None => Err("expected `detect`, `off` or a velocity X,Z such as `0,-1.2`".into()),
    }
}

/// `--contacts detect|LEFT,RIGHT[,THRESHOLD]`: where planting's contacts come from.
fn parse_contacts(text: &str) -> Result<Contacts, String> {
    if text.trim() == "detect" {
        return Ok(Contacts::Detect);
    }
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let threshold = match parts.get(2) {
        None => 0.5,
        Some(t) => number(t)?,
    };
    match parts[..] {
        [left, right] | [left, right, _] if !left.is_empty() && !right.is_empty() => {
            Ok(Contacts::Curves {
                left: left.into(),
                right: right.into(),
                threshold,
            })
        }
        _ => Err(
            "expected `detect` or two curve names LEFT,RIGHT[,THRESHOLD], such as `FootLock_L,FootLock_R`"
                .into(),
        ),
    }
}

/// `--pin BONE=FROM[:global|rest]`: the bone, the bone it follows, and the space (bone names
/// may hold colons, as `mixamorig:RightHand` does: only a last `:global` or `:rest` counts).
fn parse_pin(text: &str) -> Result<PinOp, String> {
    let Some((bone, rest)) = text.split_once('=') else {
        return Err("expected BONE=FROM[:global|rest], such as `Sword=RightHand:global`".into());
    };
    let (from, space) = if let Some(f) = rest.strip_suffix(":global") {
        (f, PinSpace::Global)
    } else if let Some(f) = rest.strip_suffix(":rest") {
        (f, PinSpace::RestRelative)
    } else {
        (rest, PinSpace::RestRelative)
    };
    let (bone, from) = (bone.trim(), from.trim());
    if bone.is_empty() || from.is_empty() {
        return Err(format!(
            "`{text}`: both bones are needed, as in BONE=FROM[:global|rest]"
        ));
    }
    Ok(PinOp {
        bone: bone.to_string(),
        from: from.to_string(),
        space,
        ..PinOp::default()
    })
}

/// Runs `retarget`; returns the exit code (0; a [`Failure::Refused`], exit 3, when a side has
/// no skeleton that fits or the pair cannot be retargeted; [`Failure::Nothing`], exit 4, when the
/// source has no clips).
pub fn run(args: &RetargetArgs) -> Result<i32, Failure> {
    let bvh = super::convert::is_bvh(&args.output);
    let ext = |e: &str| {
        args.output
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case(e))
    };
    // A .vrma is a VRM animation: the new clip only, for the VRM target (--animation-only is
    // implied). A .vrm holds a VRM character, which an animation-only file has not.
    let vrma = ext("vrma");
    if args.animation_only && ext("vrm") {
        let mut named = args.output.clone();
        named.set_extension("vrma");
        return Err(Failure::Usage(format!(
            "{}: an animation-only file holds no VRM character: write {} (a VRM animation, \
             which VRM players play on the character) or .glb/.gltf (its skeleton and clips)",
            args.output.display(),
            named.display()
        )));
    }
    if vrma && args.normalized {
        return Err(Failure::Usage(format!(
            "{}: a VRM animation plays on the VRM character as it came: drop --normalized",
            args.output.display()
        )));
    }
    if !bvh {
        super::check_output(&args.output)?;
    }
    super::check_not_input(&args.source, &args.output)?;
    super::check_not_input(&args.target, &args.output)?;
    let mut settings = super::load_settings(args.settings.as_deref())?;
    args.apply(&mut settings)?;
    let resolved = super::resolve(&settings)?;
    let start = std::time::Instant::now();
    let mut source = super::read(&args.source)?;
    let mut target = super::read(&args.target)?;
    if !args.existing.proceed(&args.output)? {
        let mut file = FileReport::new(args.source.display().to_string());
        file.target = Some(args.target.display().to_string());
        return super::skipped(file, "retarget", args.json);
    }
    let source_skeleton = args
        .source_skeleton
        .map(|k| super::skeleton_id(&args.source, &source.model, k))
        .transpose()?;
    // The target's number is checked when the target is normalized, after the source (whose
    // refusal comes first); only a number no id can hold is refused here, with the same message.
    let target_skeleton = args
        .target_skeleton
        .map(|k| match u32::try_from(k) {
            Ok(id) => Ok(SkeletonId(id)),
            Err(_) => super::skeleton_id(&args.target, &target.model, k),
        })
        .transpose()?;
    let mut job = RetargetJob {
        clips: args.clips.clone(),
        naming: ClipNaming {
            prefix: args.prefix.clone(),
            suffix: args.suffix.clone(),
            on_clash: resolved.on_clash,
        },
        output: super::retarget_output(args.normalized, args.animation_only || vrma),
        ..resolved.retarget_job()
    };
    (job.source.skeleton, job.target.skeleton) = (source_skeleton, target_skeleton);
    let report = match retarget(
        &mut source.model,
        &mut target.model,
        &resolved.profile,
        &job,
    ) {
        Ok(r) => r,
        Err(e) => return refused(args, e),
    };
    if bvh {
        let [clip] = report.clips.as_slice() else {
            return Err(Failure::Usage(format!(
                "{}: {} clips were retargeted and a BVH file holds one; choose it with --clip",
                args.output.display(),
                report.clips.len()
            )));
        };
        super::convert::write_bvh(
            &args.target,
            &target.model,
            &args.output,
            Some(&clip.clip),
            &args.bvh,
        )?;
    } else if vrma {
        write_vrma(args, &target.model, &report)?;
    } else if job.output == RetargetOutput::AnimationOnly {
        gltf_io::animation_only(&target.model, &args.output)?.write(&args.output)?;
    } else {
        target.write(&args.output)?;
    }
    let mut file = FileReport::read(&args.source, &source.warnings);
    file.target = Some(args.target.display().to_string());
    file.add_reader_warnings(&target.warnings);
    file.wrote(&args.output);
    file.time_ms = start.elapsed().as_secs_f64() * 1e3;
    let reader = file.warnings.clone();
    let text = RetargetRun {
        source: args.source.display().to_string(),
        target: args.target.display().to_string(),
        output: args.output.display().to_string(),
        retarget: &report,
        size_after: file.size_after,
        reader: &reader,
    };
    let json = || {
        file.set_retarget(&report);
        file.settle();
        Report::single("retarget", file)
    };
    super::emit(json, args.report.as_deref(), args.json, |w| {
        text.write_text(w)
    })?;
    Ok(super::EXIT_OK)
}

/// Writes the one retargeted clip of `report`, in `target` (the VRM character as it came), as a
/// VRM animation at the output: a usage error when several clips were retargeted (a VRMA holds
/// one) or the target declares no VRM humanoid.
fn write_vrma(
    args: &RetargetArgs,
    target: &skelnorm::model::Model,
    report: &skelnorm::pipeline::RetargetReport,
) -> Result<(), Failure> {
    let [new] = report.clips.as_slice() else {
        return Err(Failure::Usage(format!(
            "{}: {} clips were retargeted and a VRM animation holds one; choose it with --clip",
            args.output.display(),
            report.clips.len()
        )));
    };
    let clip = target
        .clips
        .iter()
        .find(|c| c.name == new.clip)
        .expect("the retargeted clip is in the target");
    match gltf_io::vrm_animation(target, clip, &args.output) {
        Ok(doc) => Ok(doc.write(&args.output)?),
        Err(gltf_io::VrmaError::File(e)) => Err(e.into()),
        Err(e) => Err(Failure::Usage(format!(
            "{}: {e}; write .glb or .gltf for its skeleton and clips",
            args.target.display()
        ))),
    }
}

/// The failure of a refused retarget, naming the file concerned: exit 3 when a side or the pair
/// is unsuitable, 4 when the source has no clips, 2 for a flag (`--clip`, a clip name taken).
fn refused(args: &RetargetArgs, e: RetargetRunError) -> Result<i32, Failure> {
    use skelnorm::retarget::RetargetError;
    let (src, tgt) = (args.source.display(), args.target.display());
    let normalizing = |path: &std::path::Path, e: NormalizeError| match e {
        NormalizeError::NoSkeleton(..) => Failure::Usage(format!("{}: {e}", path.display())),
        e => Failure::Refused(format!("{}: {e}", path.display())),
    };
    Err(match e {
        RetargetRunError::Source(e) => normalizing(&args.source, e),
        RetargetRunError::Target(e) => normalizing(&args.target, e),
        RetargetRunError::ClipTaken(clip) => Failure::Usage(format!(
            "{tgt}: already has a clip `{clip}` (names are compared ignoring case); use --prefix \
             or --suffix to name the new clips, or --on-clash rename or replace"
        )),
        e @ RetargetRunError::NoClip { .. } => Failure::Usage(format!("{src}: {e}")),
        e @ RetargetRunError::NoClips => Failure::Nothing(format!("{src}: {e}")),
        RetargetRunError::Retarget(
            e @ (RetargetError::UnknownChain { .. }
            | RetargetError::UnknownBone { .. }
            | RetargetError::BadOption(_)),
        ) => Failure::Usage(format!("{src} → {tgt}: {e}")),
        RetargetRunError::Retarget(e) => Failure::Refused(format!("{src} → {tgt}: {e}")),
        RetargetRunError::Restore(e) => Failure::Refused(format!("{tgt}: {e}")),
    })
}
