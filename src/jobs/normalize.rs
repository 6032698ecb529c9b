//! `normalize` over files: read the input, map and normalize its skeletons, write the result
//! while the skin is measured, return the report.

use super::{JobError, Outcome};
use crate::check::cores;
use crate::gltf_io::{Displacement, Error};
use crate::io::ReadOptions;
use crate::model::Model;
use crate::pipeline::{
    map_skeletons, normalize_mapped_rereading, Measuring, NormalizeError, NormalizeOptions,
    NormalizeReport,
};
use crate::profile::Profile;
use crate::report::FileReport;
use std::path::Path;

/// One file to normalize.
#[derive(Debug, Clone, Copy)]
pub struct NormalizeFile<'a> {
    /// The input (.gltf, .glb, .vrm, .vrma, .fbx, .bvh); never modified.
    pub input: &'a Path,
    /// The output; its extension picks the container.
    pub output: &'a Path,
    /// How the input is read.
    pub read: &'a ReadOptions,
    /// What to do when the output exists.
    pub existing: super::Existing,
    /// Normalize only this skeleton (by index, as `inspect` lists them); a usage error when the
    /// file has no such skeleton. It replaces `options.skeleton`.
    pub skeleton: Option<usize>,
}

impl NormalizeFile<'_> {
    /// Refuses an output whose extension names no glTF container, or that is the input, before
    /// any work ([`normalize_file`] checks it first too).
    pub fn check(&self) -> Result<(), JobError> {
        super::check_container(self.output)?;
        super::check_not_input(self.input, self.output)
    }
}

/// What [`normalize_file`] wrote: the input's report (read, written; not yet filled with the
/// normalize report, which the caller renders as it needs) and the pipeline's report.
#[derive(Debug)]
pub struct Normalized {
    /// The input as read and the output as written (sizes, reader warnings).
    pub file: FileReport,
    /// What every stage did, with the measured invariants.
    pub report: NormalizeReport,
}

/// Normalizes `job.input` into `job.output` with `profile` and `options`: reads it, maps and
/// normalizes its skeletons ([`crate::pipeline`]), writes the result, and measures the skin
/// beside the write. A refusal names the input; [`Hint::AllowPartial`](super::Hint) is given
/// when no skeleton fits and partial skeletons are not allowed.
///
/// Speed: what writing needs of the JSON as read is readied beside the stages
/// (`Document::change_then_write`), the key values the skin check compares with are read again
/// from the file's bytes clip by clip rather than kept in a copy (`Document::values_again`),
/// and the skin check runs beside the write.
pub fn normalize_file(
    job: &NormalizeFile,
    profile: &Profile,
    options: &NormalizeOptions,
) -> Result<Outcome<Normalized>, JobError> {
    job.check()?;
    let mut doc = super::read(job.input, job.read)?;
    // The stages do not look at the JSON: as text it takes a tenth of the memory meanwhile.
    doc.let_go_of_json();
    let file = FileReport::read(job.input, &doc.warnings);
    if !super::proceed(job.output, job.existing)? {
        return Ok(Outcome::Skipped(file));
    }
    let mut options = options.clone();
    options.skeleton = job
        .skeleton
        .map(|k| super::skeleton_id(job.input, &doc.model, k))
        .transpose()?;
    // Rebinding moves vertices off the exact skin: measured from the mesh data as read.
    let bind_measure = match options.rest.rebind {
        true => Some(doc.bind_measure()?),
        false => None,
    };
    let rereading = doc.values_again();
    doc.change_then_write(
        |model| {
            map_skeletons(&model.skeletons, profile, &options)
                .and_then(|m| normalize_mapped_rereading(model, m, profile, &options, rereading))
        },
        |normalized, model, write| {
            let (mut report, measuring) = refusal(job.input, &options, normalized)?;
            if let Some(m) = &bind_measure {
                put_displacements(&mut report, &m.measure(model)?);
            }
            write_measured(job.output, model, &mut report, measuring, write)?;
            let mut file = file;
            file.wrote(job.output);
            Ok(Outcome::Written(Normalized { file, report }))
        },
    )
}

/// The pipeline's result, or its refusal as a job error naming `input`.
fn refusal(
    input: &Path,
    options: &NormalizeOptions,
    normalized: Result<(NormalizeReport, Measuring), NormalizeError>,
) -> Result<(NormalizeReport, Measuring), JobError> {
    normalized.map_err(|e| match e {
        NormalizeError::NoFit { .. } => JobError::Refused {
            message: format!("{}: {e}", input.display()),
            hint: (!options.allow_partial).then_some(super::Hint::AllowPartial),
        },
        NormalizeError::NoSkeleton(..) => JobError::Usage(format!("{}: {e}", input.display())),
        e => JobError::refused(format!("{}: {e}", input.display())),
    })
}

/// Writes the normalized model (`write`, to `output`) while its skin is measured into `report`.
fn write_measured(
    output: &Path,
    model: &Model,
    report: &mut NormalizeReport,
    measuring: Measuring,
    write: &dyn Fn(&Path) -> Result<(), Error>,
) -> Result<(), Error> {
    measuring.run_beside(model, report, cores(), || write(output))
}

/// Puts the displacements a rebind measured into the rest reports of their skeletons' skins.
fn put_displacements(report: &mut NormalizeReport, found: &[Displacement]) {
    for d in found {
        let skeleton = report.skeletons.iter_mut().find(|s| s.index == d.skeleton);
        let rest = skeleton.and_then(|s| s.rest.as_mut());
        if let Some(bind) = rest.and_then(|r| r.bind.get_mut(d.skin)) {
            bind.displacement = Some(d.max);
        }
    }
}
