//! `retarget` over files: read the source and the target, retarget the source's clips onto the
//! target ([`crate::pipeline::retarget()`]), write the target with the new clips (as it came,
//! normalized, or animation only), a VRM animation (.vrma) or one clip as BVH.

use super::{BvhClip, JobError, Outcome};
use crate::bvh_io::BvhWriteOptions;
use crate::gltf_io::{self, VrmaError};
use crate::io::ReadOptions;
use crate::model::{Model, SkeletonId};
use crate::pipeline::{
    retarget, NormalizeError, RetargetJob, RetargetOutput, RetargetReport, RetargetRunError,
};
use crate::profile::Profile;
use crate::report::FileReport;
use std::path::Path;

/// The files of one retarget.
#[derive(Debug, Clone, Copy)]
pub struct RetargetFiles<'a> {
    /// The file whose clips are retargeted; never modified.
    pub source: &'a Path,
    /// The character they are retargeted onto; never modified.
    pub target: &'a Path,
    /// The output: .gltf, .glb, .vrm (the target with the new clips), .vrma (a VRM animation of
    /// the one new clip) or .bvh (one clip).
    pub output: &'a Path,
    /// How the inputs are read.
    pub read: &'a ReadOptions,
    /// What to do when the output exists.
    pub existing: super::Existing,
    /// The source's skeleton (by index, as `inspect` lists them); replaces the job's.
    pub source_skeleton: Option<usize>,
    /// The target's skeleton (by index); replaces the job's.
    pub target_skeleton: Option<usize>,
    /// How a BVH output is written.
    pub bvh: &'a BvhWriteOptions,
}

/// What [`retarget_files`] wrote.
#[derive(Debug)]
pub struct Retargeted {
    /// The source as read (with the target's reader warnings) and the output as written.
    pub file: FileReport,
    /// The measures per clip.
    pub report: RetargetReport,
}

/// Retargets the clips of `files.source` onto `files.target` with `profile` as `job` asks and
/// writes the output. A `.vrma` output is a VRM animation of the new clip only, for the VRM
/// target as it came (animation only is implied).
pub fn retarget_files(
    files: &RetargetFiles,
    profile: &Profile,
    mut job: RetargetJob,
) -> Result<Outcome<Retargeted>, JobError> {
    let output = files.output;
    let vrma = files.check(job.output)?;
    if vrma {
        job.output = RetargetOutput::AnimationOnly;
    }
    let mut source = super::read(files.source, files.read)?;
    let mut target = super::read(files.target, files.read)?;
    if !super::proceed(output, files.existing)? {
        let mut file = FileReport::new(files.source.display().to_string());
        file.target = Some(files.target.display().to_string());
        return Ok(Outcome::Skipped(Box::new(file)));
    }
    job.source.skeleton = files
        .source_skeleton
        .map(|k| super::skeleton_id(files.source, &source.model, k))
        .transpose()?;
    // The target's number is checked when the target is normalized, after the source (whose
    // refusal comes first); only a number no id can hold is refused here, with the same message.
    job.target.skeleton = files
        .target_skeleton
        .map(|k| match u32::try_from(k) {
            Ok(id) => Ok(SkeletonId(id)),
            Err(_) => super::skeleton_id(files.target, &target.model, k),
        })
        .transpose()?;
    let report = retarget(&mut source.model, &mut target.model, profile, &job)
        .map_err(|e| refusal(files, e))?;
    let new: Vec<&str> = report.clips.iter().map(|c| c.clip.as_str()).collect();
    if super::is_bvh(output) {
        super::write_bvh_clip(&BvhClip {
            input: files.target,
            model: &target.model,
            output,
            clip: Some(super::one_clip(output, &new, "retargeted", "a BVH file")?),
            options: files.bvh,
            document: None,
        })?;
    } else if vrma {
        let clip = super::one_clip(output, &new, "retargeted", "a VRM animation")?;
        write_vrma(files, &target.model, clip)?;
    } else if job.output == RetargetOutput::AnimationOnly {
        gltf_io::animation_only(&target.model, output)?.write(output)?;
    } else {
        target.write(output)?;
    }
    let mut file = FileReport::read(files.source, &source.warnings);
    file.target = Some(files.target.display().to_string());
    file.add_reader_warnings(&target.warnings);
    file.wrote(output);
    Ok(Outcome::Written(Retargeted { file, report }))
}

impl RetargetFiles<'_> {
    /// Refuses an output the retarget cannot write in the `mode` asked for, or that is one of
    /// the inputs, before any work; whether it is a VRM animation (.vrma). A .vrm holds a VRM
    /// character, which an animation-only file has not; a VRM animation plays on the character
    /// as it came, not normalized.
    pub fn check(&self, mode: RetargetOutput) -> Result<bool, JobError> {
        let output = self.output;
        let ext = |e: &str| {
            output
                .extension()
                .is_some_and(|x| x.eq_ignore_ascii_case(e))
        };
        let vrma = ext("vrma");
        if mode == RetargetOutput::AnimationOnly && ext("vrm") {
            let mut named = output.to_path_buf();
            named.set_extension("vrma");
            return Err(JobError::Usage(format!(
                "{}: an animation-only file holds no VRM character: write {} (a VRM animation, \
             which VRM players play on the character) or .glb/.gltf (its skeleton and clips)",
                output.display(),
                named.display()
            )));
        }
        if vrma && mode == RetargetOutput::Normalized {
            return Err(JobError::Usage(format!(
                "{}: a VRM animation plays on the VRM character as it came: drop --normalized",
                output.display()
            )));
        }
        if !super::is_bvh(output) {
            super::check_container(output)?;
        }
        super::check_not_input(self.source, output)?;
        super::check_not_input(self.target, output)?;
        Ok(vrma)
    }
}

/// Writes the retargeted clip `name`, in `target` (the VRM character as it came), as a VRM
/// animation at the output: a usage error when the target declares no VRM humanoid.
fn write_vrma(files: &RetargetFiles, target: &Model, name: &str) -> Result<(), JobError> {
    let output = files.output;
    let clip = target
        .clips
        .iter()
        .find(|c| c.name == name)
        .expect("the retargeted clip is in the target");
    match gltf_io::vrm_animation(target, clip, output) {
        Ok(doc) => Ok(doc.write(output)?),
        Err(VrmaError::File(e)) => Err(e.into()),
        Err(e) => Err(JobError::Usage(format!(
            "{}: {e}; write .glb or .gltf for its skeleton and clips",
            files.target.display()
        ))),
    }
}

/// A refused retarget as a job error naming the file concerned: refused when a side or the pair
/// is unsuitable, nothing to do when the source has no clips, usage for an option (a clip that
/// does not exist, a clip name taken).
fn refusal(files: &RetargetFiles, e: RetargetRunError) -> JobError {
    use crate::retarget::RetargetError;
    let (src, tgt) = (files.source.display(), files.target.display());
    let normalizing = |path: &Path, e: NormalizeError| match e {
        NormalizeError::NoSkeleton(..) => JobError::Usage(format!("{}: {e}", path.display())),
        e => JobError::refused(format!("{}: {e}", path.display())),
    };
    match e {
        RetargetRunError::Source(e) => normalizing(files.source, e),
        RetargetRunError::Target(e) => normalizing(files.target, e),
        RetargetRunError::ClipTaken(clip) => JobError::Usage(format!(
            "{tgt}: already has a clip `{clip}` (names are compared ignoring case); use --prefix \
             or --suffix to name the new clips, or --on-clash rename or replace"
        )),
        e @ RetargetRunError::NoClip { .. } => JobError::Usage(format!("{src}: {e}")),
        e @ RetargetRunError::NoClips => JobError::Nothing(format!("{src}: {e}")),
        RetargetRunError::Retarget(
            e @ (RetargetError::UnknownChain { .. }
            | RetargetError::UnknownBone { .. }
            | RetargetError::BadOption(_)),
        ) => JobError::Usage(format!("{src} → {tgt}: {e}")),
        RetargetRunError::Retarget(e) => JobError::refused(format!("{src} → {tgt}: {e}")),
        RetargetRunError::Restore(e) => JobError::refused(format!("{tgt}: {e}")),
    }
}
