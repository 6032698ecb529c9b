//! `normalize` over files: read the input, map and normalize its skeletons, write the result
//! while the skin is measured, return the report.

use super::{JobError, Outcome};
use crate::check::cores;
use crate::gltf_io::{Displacement, Document, Error};
use crate::io::ReadOptions;
use crate::model::Model;
use crate::pipeline::{
    normalize_measuring_later, Measuring, NormalizeError, NormalizeOptions, NormalizeReport,
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
/// Speed: the key values the skin check compares with are read again from the file's bytes clip
/// by clip rather than kept in a copy (`Document::rereadable_keys`), and the skin check runs
/// beside the write.
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
        return Ok(Outcome::Skipped(Box::new(file)));
    }
    let mut options = options.clone();
    options.skeleton = job
        .skeleton
        .map(|k| super::skeleton_id(job.input, &doc.model, k))
        .transpose()?;
    let to = NormalizeDocument {
        destination: Destination::File(job.output),
        threads: cores(),
        keep_before: false,
    };
    let report = match normalize_document(&mut doc, &to, profile, &options) {
        Ok(done) => done.report,
        Err(DocumentError::File(e)) => return Err(e.into()),
        Err(DocumentError::Refused { error, .. }) => {
            return Err(refusal(job.input, &options, error))
        }
    };
    let mut file = file;
    file.wrote(job.output);
    Ok(Outcome::Written(Normalized { file, report }))
}

/// Where [`normalize_document`] puts the normalized model.
#[derive(Debug, Clone, Copy)]
pub enum Destination<'a> {
    /// Writes it to this file (its folder must exist).
    File(&'a Path),
    /// Builds what writing it would write, and writes nothing (`validate`).
    Check,
    /// Leaves it in the document (say, to retarget onto it).
    Keep,
}

/// How [`normalize_document`] runs.
#[derive(Debug, Clone, Copy)]
pub struct NormalizeDocument<'a> {
    /// Where the normalized model goes.
    pub destination: Destination<'a>,
    /// The threads the skin check may use in all ([`cores`]: every core).
    pub threads: usize,
    /// Return a copy of the model as read (to picture before and after).
    pub keep_before: bool,
}

/// What [`normalize_document`] did.
#[derive(Debug)]
pub struct DocumentNormalized {
    /// What every stage did, with the measured invariants.
    pub report: NormalizeReport,
    /// The model as read, when asked for.
    pub before: Option<Model>,
}

/// Why [`normalize_document`] failed.
#[derive(Debug)]
pub enum DocumentError {
    /// The pipeline refused the model (the document is unchanged).
    Refused {
        /// Why.
        error: NormalizeError,
        /// The model as read, when asked for.
        before: Option<Box<Model>>,
    },
    /// The output could not be built or written.
    File(Error),
}

/// Normalizes a document read (its model, with `profile` and `options`) and puts it where `to`
/// says; what `normalize` and `batch` share. The skin is measured beside the write, against key
/// values read again from the file's bytes clip by clip rather than kept in a copy
/// (`Document::rereadable_keys`). A rebind's vertex displacements go in the rest reports.
pub fn normalize_document(
    doc: &mut Document,
    to: &NormalizeDocument,
    profile: &Profile,
    options: &NormalizeOptions,
) -> Result<DocumentNormalized, DocumentError> {
    // Rebinding moves vertices off the exact skin: measured from the mesh data as read.
    let bind_measure = match options.rest.rebind {
        true => Some(doc.bind_measure().map_err(DocumentError::File)?),
        false => None,
    };
    let before = to.keep_before.then(|| doc.model.clone());
    let rereading = doc.rereadable_keys();
    let stages = |model: &mut Model| normalize_measuring_later(model, profile, options, rereading);
    let finish = |normalized: Result<(NormalizeReport, Measuring), NormalizeError>,
                  model: &Model,
                  write: &dyn Fn() -> Result<(), Error>| {
        let (mut report, measuring) = normalized.map_err(|error| DocumentError::Refused {
            error,
            before: None,
        })?;
        if let Some(m) = &bind_measure {
            let found = m.measure(model).map_err(DocumentError::File)?;
            put_displacements(&mut report, &found);
        }
        measuring
            .run_beside(model, &mut report, to.threads, write)
            .map_err(DocumentError::File)?;
        Ok(report)
    };
    let done = match to.destination {
        Destination::File(out) => doc.change_then_write(stages, |normalized, model, write| {
            finish(normalized, model, &|| write(out))
        }),
        Destination::Check | Destination::Keep => {
            let done = finish(stages(&mut doc.model), &doc.model, &|| Ok(()));
            match to.destination {
                // What writing would write is built (after the skin check) and dropped.
                Destination::Check => done.and_then(|report| {
                    doc.to_parts(None)
                        .map(|_| report)
                        .map_err(DocumentError::File)
                }),
                _ => done,
            }
        }
    };
    match done {
        Ok(report) => Ok(DocumentNormalized { report, before }),
        Err(DocumentError::Refused { error, .. }) => Err(DocumentError::Refused {
            error,
            before: before.map(Box::new),
        }),
        Err(e) => Err(e),
    }
}

/// The pipeline's refusal as a job error naming `input`.
fn refusal(input: &Path, options: &NormalizeOptions, e: NormalizeError) -> JobError {
    match e {
        NormalizeError::NoFit { .. } => JobError::Refused {
            message: format!("{}: {e}", input.display()),
            hint: (!options.allow_partial).then_some(super::Hint::AllowPartial),
        },
        NormalizeError::NoSkeleton(..) => JobError::Usage(format!("{}: {e}", input.display())),
        e => JobError::refused(format!("{}: {e}", input.display())),
    }
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
