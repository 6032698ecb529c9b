//! `skelnorm.batch`, `skelnorm.batch_files` and `skelnorm.merge_reports`: a folder's batch as
//! `skelnorm batch` runs it (the library's `batch::batch_folder`), the files it would take, and
//! reports of parts of a batch joined into one (as `skelnorm report merge`). The Dask runner
//! (`skelnorm.dask`) is built on the three.

use crate::asset::read_options;
use crate::errors::value_error;
use crate::settings::{job_error, overlay, sections, to_dict};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use skelnorm::batch::{batch_folder, find_files, find_unsupported, BatchFolder, Naming, Shard};
use skelnorm::jobs::Existing;
use skelnorm::pipeline::RetargetOutput;
use skelnorm::report::{Report, SCHEMA};
use skelnorm::settings::Settings;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn existing_of(s: &str) -> PyResult<Existing> {
    match s {
        "overwrite" => Ok(Existing::Overwrite),
        "skip" => Ok(Existing::Skip),
        "error" => Ok(Existing::Error),
        _ => Err(value_error(format!(
            "existing={s:?}: one of \"overwrite\", \"skip\", \"error\""
        ))),
    }
}

fn retarget_output_of(s: &str) -> PyResult<RetargetOutput> {
    match s {
        "original" => Ok(RetargetOutput::Original),
        "normalized" => Ok(RetargetOutput::Normalized),
        "animation_only" => Ok(RetargetOutput::AnimationOnly),
        _ => Err(value_error(format!(
            "retarget_output={s:?}: one of \"original\", \"normalized\", \"animation_only\""
        ))),
    }
}

/// Runs `skelnorm batch INPUT -o OUTPUT` and returns its report (`skelnorm/2`, as `--report`
/// writes it). `files`: only these paths relative to `input` (a runner handing out files one by
/// one); `shard`: `"K/N"`. Settings keywords are sections over `settings="file.ron"`, and over
/// each folder's own `skelnorm.ron`, as the command line's flags are.
#[pyfunction]
#[pyo3(signature = (input, output, *, files=None, shard=None, jobs=None, existing="overwrite", prefix="", suffix="", replace=None, retarget_to=None, retarget_output="original", bvh_scale=None, **settings))]
#[allow(clippy::too_many_arguments)]
pub fn batch<'py>(
    py: Python<'py>,
    input: PathBuf,
    output: PathBuf,
    files: Option<Vec<PathBuf>>,
    shard: Option<String>,
    jobs: Option<usize>,
    existing: &str,
    prefix: &str,
    suffix: &str,
    replace: Option<BTreeMap<String, String>>,
    retarget_to: Option<PathBuf>,
    retarget_output: &str,
    bvh_scale: Option<f32>,
    settings: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let shard = shard
        .as_deref()
        .map(str::parse::<Shard>)
        .transpose()
        .map_err(|e| value_error(e.to_string()))?;
    let jobs = match jobs {
        Some(0) => return Err(value_error("jobs=0: at least one job")),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let (file, sections) = sections(settings)?;
    let base = match &file {
        Some(p) => Settings::load(p).map_err(|e| value_error(e.to_string()))?,
        None => Settings::default(),
    };
    let base = overlay(&base, &sections).map_err(value_error)?;
    let resolve = |s: &Settings| {
        let s = if s.folder.is_some() {
            overlay(s, &sections).map_err(skelnorm::settings::ResolveError::Invalid)?
        } else {
            s.clone()
        };
        s.resolve()
    };
    let job = BatchFolder {
        input: &input,
        output: &output,
        jobs,
        existing: existing_of(existing)?,
        naming: Naming {
            prefix: prefix.to_string(),
            suffix: suffix.to_string(),
            replace: replace.unwrap_or_default().into_iter().collect(),
        },
        shard,
        only: files,
        retarget_to,
        retarget_output: retarget_output_of(retarget_output)?,
        base,
        resolve: &resolve,
        read: read_options(bvh_scale)?,
    };
    let report = py
        .detach(|| batch_folder(&job, &|_| {}))
        .map_err(|e| job_error(e, &input))?;
    to_dict(py, &report)
}

/// The files `skelnorm.batch(input, …)` takes, as paths relative to `input` in the order its
/// report lists them: those it reads, then those it reports as skipped (not a format it reads).
#[pyfunction]
pub fn batch_files(py: Python<'_>, input: PathBuf) -> PyResult<Bound<'_, PyList>> {
    if !input.is_dir() {
        return Err(PyOSError::new_err(format!(
            "{}: no such folder",
            input.display()
        )));
    }
    let root = input
        .canonicalize()
        .map_err(|e| PyOSError::new_err(format!("{}: {e}", input.display())))?;
    let rel = |(r, f): (PathBuf, PathBuf)| {
        f.strip_prefix(&r)
            .unwrap_or(&f)
            .to_string_lossy()
            .into_owned()
    };
    let names: Vec<String> = find_files(&root)
        .into_iter()
        .chain(find_unsupported(&root))
        .map(rel)
        .collect();
    PyList::new(py, names)
}

/// Reports of parts of one batch (each a dict, as `skelnorm.batch` returns) joined into one, as
/// `skelnorm report merge` joins shard reports: the files in the order given, the summary
/// counted again. A file in two reports is a ValueError.
#[pyfunction]
pub fn merge_reports<'py>(
    py: Python<'py>,
    reports: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let json = py.import("json")?;
    let mut all = Vec::new();
    for (i, r) in reports.iter().enumerate() {
        let text: String = json.call_method1("dumps", (r,))?.extract()?;
        let report: Report = serde_json::from_str(&text)
            .map_err(|e| value_error(format!("reports[{i}]: not a skelnorm report: {e}")))?;
        if report.schema != SCHEMA {
            return Err(value_error(format!(
                "reports[{i}]: a `{}` report; this skelnorm reads `{SCHEMA}`",
                report.schema
            )));
        }
        all.push(report);
    }
    let merged = Report::merge(all).map_err(|e| value_error(e.to_string()))?;
    to_dict(py, &merged)
}

/// Writes the HTML report of `report` (a dict, as `skelnorm.batch` returns) to `path`, as
/// `skelnorm batch --html` does (a temporary file renamed into place).
#[pyfunction]
pub fn write_html(py: Python<'_>, report: Bound<'_, PyAny>, path: PathBuf) -> PyResult<()> {
    let text: String = py
        .import("json")?
        .call_method1("dumps", (report,))?
        .extract()?;
    let report: Report = serde_json::from_str(&text)
        .map_err(|e| value_error(format!("report: not a skelnorm report: {e}")))?;
    let html = skelnorm::report::render_html(&report);
    skelnorm::jobs::write_file(&path, html.as_bytes())
        .map_err(|e| PyOSError::new_err(format!("{}: cannot write the report: {e}", path.display())))
}
