//! A batch over one folder: every file skelnorm reads under it normalized (or retargeted onto one
//! character) into a mirrored output tree, with per-folder settings, output names, a shard or a
//! chosen list of files, and one report. `skelnorm batch`, the Python package's `skelnorm.batch`
//! and its Dask runner (one task per file, the reports merged) call this one function.

use super::{Job, Naming, Resolver, Shard};
use crate::io::ReadOptions;
use crate::jobs::{Existing, JobError};
use crate::pipeline::RetargetOutput;
use crate::report::{FileReport, Report};
use crate::settings::Settings;
use std::path::{Path, PathBuf};

/// A batch over one folder.
pub struct BatchFolder<'a> {
    /// The folder whose files are processed (every `.gltf`, `.glb`, `.vrm`, `.vrma`, `.fbx` and
    /// `.bvh` under it; other files are reported as skipped).
    pub input: &'a Path,
    /// Where outputs go, mirroring the input tree; made when there is something to write. It
    /// may not lie inside `input`.
    pub output: &'a Path,
    /// Worker threads.
    pub jobs: usize,
    /// Outputs that exist.
    pub existing: Existing,
    /// Output names.
    pub naming: Naming,
    /// Only the files of this shard.
    pub shard: Option<Shard>,
    /// Only these files, by their paths relative to `input` (a runner that hands out files one
    /// by one); a path that names no file found is an error.
    pub only: Option<Vec<PathBuf>>,
    /// A character that every file's clips are retargeted onto.
    pub retarget_to: Option<PathBuf>,
    /// What the outputs of `retarget_to` hold.
    pub retarget_output: RetargetOutput,
    /// The settings of files under no `skelnorm.ron`.
    pub base: Settings,
    /// Settings to options, per settings file.
    pub resolve: &'a Resolver<'a>,
    /// How inputs are read.
    pub read: ReadOptions,
}

/// A batch over a folder, its files found and its output folder made, ready to run.
pub struct BatchPlan<'a> {
    job: Job<'a>,
    /// The files found under the folder that skelnorm reads, before any shard or list was
    /// applied: 0 is a run with nothing to do.
    pub found: usize,
    /// The files found that skelnorm does not read.
    pub unsupported: usize,
}

impl BatchPlan<'_> {
    /// How many files the run reads (after the shard and the list; files it does not read are
    /// reported as skipped besides).
    pub fn files(&self) -> usize {
        self.job.files.iter().filter(|f| self.job.chosen(f)).count()
    }

    /// Runs it, calling `progress` after each file.
    pub fn run(self, progress: &(dyn Fn(&FileReport) + Sync)) -> Result<Report, JobError> {
        super::run(&self.job, progress).map_err(|e| JobError::Usage(e.to_string()))
    }
}

/// `path` made absolute with every part that exists resolved (links, `..`), the rest kept.
fn absolute(path: &Path) -> Result<PathBuf, JobError> {
    let fail = |e: std::io::Error| JobError::Output(format!("{}: {e}", path.display()));
    let path = std::path::absolute(path).map_err(fail)?;
    let mut existing = path.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        rest.push(
            existing
                .file_name()
                .map(|n| n.to_os_string())
                .unwrap_or_default(),
        );
        existing = existing.parent().unwrap_or(Path::new("/"));
    }
    let mut out = existing.canonicalize().map_err(fail)?;
    out.extend(rest.iter().rev());
    Ok(out)
}

/// Runs a batch over `job.input`, calling `progress` after each file: [`plan_batch`], then
/// [`BatchPlan::run`].
pub fn batch_folder(
    job: &BatchFolder,
    progress: &(dyn Fn(&FileReport) + Sync),
) -> Result<Report, JobError> {
    plan_batch(job)?.run(progress)
}

/// Checks the folders, finds the files and makes the output folder of a batch over `job.input`.
pub fn plan_batch<'a>(job: &BatchFolder<'a>) -> Result<BatchPlan<'a>, JobError> {
    let input = job.input;
    if !input.exists() {
        return Err(JobError::Output(format!(
            "{}: no such folder",
            input.display()
        )));
    }
    if !input.is_dir() {
        return Err(JobError::Usage(format!(
            "{}: not a folder (batch takes a folder; use normalize for one file)",
            input.display()
        )));
    }
    let inp = input
        .canonicalize()
        .map_err(|e| JobError::Output(format!("{}: {e}", input.display())))?;
    if absolute(job.output)?.starts_with(&inp) {
        return Err(JobError::Usage(format!(
            "{}: the output folder is inside the input folder {}",
            job.output.display(),
            input.display()
        )));
    }
    let mut files = super::find_files(&inp);
    let mut unsupported = super::find_unsupported(&inp);
    let (found, unsupported_found) = (files.len(), unsupported.len());
    let out = if found == 0 {
        absolute(job.output)?
    } else {
        std::fs::create_dir_all(job.output).map_err(|e| {
            JobError::Output(format!(
                "{}: cannot create the output folder: {e}",
                job.output.display()
            ))
        })?;
        job.output
            .canonicalize()
            .map_err(|e| JobError::Output(format!("{}: {e}", job.output.display())))?
    };
    let relative = |(root, f): &(PathBuf, PathBuf)| f.strip_prefix(root).unwrap_or(f).to_path_buf();
    if let Some(s) = &job.shard {
        files.retain(|f| s.contains(&relative(f)));
        unsupported.retain(|f| s.contains(&relative(f)));
    }
    if let Some(only) = &job.only {
        for wanted in only {
            let known = files
                .iter()
                .chain(&unsupported)
                .any(|f| relative(f) == *wanted);
            if !known {
                return Err(JobError::Usage(format!(
                    "{}: no such file under {}",
                    wanted.display(),
                    input.display()
                )));
            }
        }
    }
    let run = Job {
        files,
        output: Some(out),
        jobs: job.jobs,
        existing: job.existing,
        naming: job.naming.clone(),
        retarget_to: job.retarget_to.clone(),
        retarget_output: job.retarget_output,
        base: job.base.clone(),
        resolve: job.resolve,
        read: job.read.clone(),
        unsupported,
        only: job.only.clone(),
    };
    Ok(BatchPlan {
        job: run,
        found,
        unsupported: unsupported_found,
    })
}
