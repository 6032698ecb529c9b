//! One function per command over files: it reads the input, runs the [`pipeline`] (or the
//! stage) the command names, writes the output (a temporary file renamed, as the glTF writer
//! does), and returns the command's report ([`FileReport`] plus what its text summary needs).
//! The command line parses flags, calls one of these and prints what it returns; `batch` and the
//! Python package call the same ones, so a change here reaches every way in.
//!
//! A job never prints. Its error, [`JobError`], carries the row of the exit-code table it
//! belongs to ([`JobError::kind`]). An output that exists is overwritten, left alone
//! ([`Outcome::Skipped`]) or refused, as [`Existing`] says.
//!
//! Imports the readers and writers (`gltf_io`, `io`, `bvh_io`), the [`pipeline`], the stages it
//! names and `report`; `batch`, the binary and the Python package call it.
//!
//! [`pipeline`]: crate::pipeline

mod convert;
mod inspect;
mod mirror;
mod normalize;
mod retarget;

pub use convert::{convert_file, is_bvh, write_bvh_clip, BvhClip, ConvertFile};
pub use inspect::{inspect_file, map_file, BoneMaps, Inspected, MapFile};
pub use mirror::{mirror_file, MirrorFile, Mirrored};
pub use normalize::{
    normalize_document, normalize_file, Destination, DocumentError, DocumentNormalized,
    NormalizeDocument, NormalizeFile, Normalized,
};
pub use retarget::{retarget_files, RetargetFiles, Retargeted};

use crate::gltf_io;
use crate::io::ReadOptions;
use crate::model::{Model, SkeletonId};
use crate::report::{FailureKind, FileReport};
use std::path::{Path, PathBuf};

/// What to do when an output already exists. One default for every command that writes files:
/// overwrite, as an import hook that re-runs on every import expects (and Godot's reimport does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Existing {
    /// Leave it, and report the input as skipped.
    Skip,
    /// Replace it.
    #[default]
    Overwrite,
    /// Refuse: the job fails with [`JobError::Exists`].
    Error,
}

/// What a job did: wrote its output (and returns its report), or left an output that exists
/// alone ([`Existing::Skip`]; the input's report as read).
#[derive(Debug)]
pub enum Outcome<T> {
    /// The output was written.
    Written(T),
    /// The output exists and was left as it is.
    Skipped(Box<FileReport>),
}

/// What a caller can add to a refusal to say how to get past it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// No skeleton has every required bone: allowing partial skeletons normalizes what is
    /// mapped (`--allow-partial`).
    AllowPartial,
}

/// Why a job failed; [`JobError::kind`] is its row of the exit-code table. Every message names
/// the file concerned.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// A file could not be read or written (exit 1).
    #[error(transparent)]
    File(#[from] gltf_io::Error),
    /// An output could not be made or written; the message names it (exit 1).
    #[error("{0}")]
    Output(String),
    /// The output exists and [`Existing::Error`] is in force (exit 1).
    #[error("{}: the output exists", .0.display())]
    Exists(PathBuf),
    /// A bad option, path or settings value for this input (exit 2).
    #[error("{0}")]
    Usage(String),
    /// The input was read but refused: not a humanoid, or a stage refused it (exit 3).
    #[error("{message}")]
    Refused {
        /// What was refused and why, naming the file.
        message: String,
        /// How to get past it, when an option does.
        hint: Option<Hint>,
    },
    /// Nothing to do: no clip to retarget or write (exit 4).
    #[error("{0}")]
    Nothing(String),
}

impl JobError {
    /// The row of the exit-code table.
    pub fn kind(&self) -> FailureKind {
        match self {
            JobError::File(_) | JobError::Output(_) | JobError::Exists(_) => FailureKind::File,
            JobError::Usage(_) => FailureKind::Usage,
            JobError::Refused { .. } => FailureKind::Refused,
            JobError::Nothing(_) => FailureKind::Nothing,
        }
    }

    /// A refusal with no hint.
    fn refused(message: String) -> JobError {
        JobError::Refused {
            message,
            hint: None,
        }
    }
}

/// Writes `bytes` to `path` through a temporary file in its folder, renamed into place.
pub fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    gltf_io::write_file(path, bytes)
}

/// Refuses an output path whose extension names no glTF container, before any work is done.
pub fn check_container(output: &Path) -> Result<(), JobError> {
    if gltf_io::Format::for_path(output).is_none() {
        return Err(JobError::Usage(format!(
            "{}: the output must end in .gltf, .glb, .vrm or .vrma",
            output.display()
        )));
    }
    Ok(())
}

/// Refuses an output that is the input file itself, before any work.
pub fn check_not_input(input: &Path, output: &Path) -> Result<(), JobError> {
    if gltf_io::same_file(input, output) {
        return Err(JobError::Usage(format!(
            "{}: the output is the input file; inputs are never overwritten",
            output.display()
        )));
    }
    Ok(())
}

/// Whether to write `output`: true when it does not exist or is to be overwritten, false when
/// it exists and is to be skipped, an error naming it when it exists and `existing` refuses.
pub fn proceed(output: &Path, existing: Existing) -> Result<bool, JobError> {
    if !output.exists() {
        return Ok(true);
    }
    match existing {
        Existing::Overwrite => Ok(true),
        Existing::Skip => Ok(false),
        Existing::Error => Err(JobError::Exists(output.to_path_buf())),
    }
}

/// Skeleton `k` (as `inspect` numbers them) of `model`, read from `file`: a usage error naming
/// the file when it has no skeleton `k`.
pub fn skeleton_id(file: &Path, model: &Model, k: usize) -> Result<SkeletonId, JobError> {
    match u32::try_from(k) {
        Ok(id) if k < model.skeletons.len() => Ok(SkeletonId(id)),
        _ => Err(JobError::Usage(format!(
            "{}: there is no skeleton {k} (the file has {})",
            file.display(),
            model.skeletons.len()
        ))),
    }
}

/// The one clip of `clips` (the clips a command `made`) that a file holding one (`holder`) is
/// written with at `output`; a usage error naming the output when there are several.
fn one_clip<'a>(
    output: &Path,
    clips: &[&'a str],
    made: &str,
    holder: &str,
) -> Result<&'a str, JobError> {
    match clips {
        [clip] => Ok(clip),
        _ => Err(JobError::Usage(format!(
            "{}: {} clips were {made} and {holder} holds one; choose it with --clip",
            output.display(),
            clips.len()
        ))),
    }
}

/// Reads an input of any supported format.
fn read(path: &Path, options: &ReadOptions) -> Result<gltf_io::Document, JobError> {
    Ok(crate::io::read(path, options)?)
}

#[cfg(test)]
mod tests;
