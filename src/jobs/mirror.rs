//! `mirror` over files: read the input, mirror its clips left ↔ right, write the file with the
//! mirrored clips (glTF), or the one mirrored clip (BVH).

use super::{BvhClip, JobError, Outcome};
use crate::bvh_io::BvhWriteOptions;
use crate::io::ReadOptions;
use crate::mirror::MirrorError;
use crate::pipeline::{mirror, MirrorJob, MirrorRunError, MirrorRunReport};
use crate::profile::Profile;
use crate::report::FileReport;
use std::path::Path;

/// One file to mirror.
#[derive(Debug, Clone, Copy)]
pub struct MirrorFile<'a> {
    /// The input: .gltf, .glb, .vrm, .vrma, .fbx or .bvh; never modified.
    pub input: &'a Path,
    /// The output: .gltf or .glb (.vrm/.vrma are GLB) with every clip, or .bvh with one.
    pub output: &'a Path,
    /// How the input is read.
    pub read: &'a ReadOptions,
    /// What to do when the output exists.
    pub existing: super::Existing,
    /// How a BVH output is written.
    pub bvh: &'a BvhWriteOptions,
}

impl MirrorFile<'_> {
    /// Refuses an output that is neither a glTF container nor BVH, or that is the input, before
    /// any work ([`mirror_file`] checks it first too).
    pub fn check(&self) -> Result<(), JobError> {
        if !super::is_bvh(self.output) {
            super::check_container(self.output)?;
        }
        super::check_not_input(self.input, self.output)
    }
}

/// What [`mirror_file`] wrote.
#[derive(Debug)]
pub struct Mirrored {
    /// The input as read and the output as written.
    pub file: FileReport,
    /// Per skeleton, the bone pairs, the plane and the clips.
    pub report: MirrorRunReport,
}

/// Mirrors the clips of `file.input` as `job` asks, with `profile`, into `file.output`. Errors:
/// usage for a clip that does not exist or a mirrored name taken, refused when a skeleton has
/// no left/right pair to find the plane from (give the axis), nothing to do without clips.
pub fn mirror_file(
    file: &MirrorFile,
    profile: &Profile,
    job: &MirrorJob,
) -> Result<Outcome<Mirrored>, JobError> {
    file.check()?;
    let bvh = super::is_bvh(file.output);
    let mut doc = super::read(file.input, file.read)?;
    let mut report_file = FileReport::read(file.input, &doc.warnings);
    if !super::proceed(file.output, file.existing)? {
        return Ok(Outcome::Skipped(Box::new(report_file)));
    }
    let input = file.input.display();
    let report = mirror(&mut doc.model, profile, job).map_err(|e| match e {
        MirrorRunError::NoClips => JobError::Nothing(format!("{input}: {e}")),
        MirrorRunError::NoClip { .. }
        | MirrorRunError::Mirror(MirrorError::ClipTaken(_) | MirrorError::BadOption(_)) => {
            JobError::Usage(format!("{input}: {e}"))
        }
        MirrorRunError::Mirror(MirrorError::NoPlane { .. }) => {
            JobError::refused(format!("{input}: {e} with --axis"))
        }
        e => JobError::refused(format!("{input}: {e}")),
    })?;
    if bvh {
        let outputs: Vec<&str> = report
            .skeletons
            .iter()
            .flat_map(|s| s.clips.iter().map(|c| c.output.as_str()))
            .collect();
        super::write_bvh_clip(&BvhClip {
            input: file.input,
            model: &doc.model,
            output: file.output,
            clip: Some(super::one_clip(
                file.output,
                &outputs,
                "mirrored",
                "a BVH file",
            )?),
            options: file.bvh,
            document: None,
        })?;
    } else {
        doc.write(file.output)?;
    }
    report_file.wrote(file.output);
    Ok(Outcome::Written(Mirrored {
        file: report_file,
        report,
    }))
}
