//! Settings as keyword arguments, and `normalize`. Each keyword is a section of the RON settings
//! file (`map`, `normalize`, `rest`, `tracks`, `rename`, `retarget`) given as a dict of its
//! fields, e.g. `rest={"fix_silhouette": False}`; `settings="file.ron"` reads a file first and
//! the keywords win over it field by field. The library's `Settings` type parses them (serde,
//! unknown keys refused) and `Settings::resolve` checks them, as for the CLI.

use crate::asset::{check_output, read_options, Asset};
use crate::errors::{file_error, folder_error, io_error, value_error};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value;
use skelnorm::gltf_io;
use skelnorm::jobs::{
    normalize_file, Existing, Hint, JobError, NormalizeFile, Normalized, Outcome,
};
use skelnorm::report::Report;
use skelnorm::settings::{Resolved, Settings};
use std::path::PathBuf;
use std::sync::Arc;

/// A Python value (None, bool, int, float, str, path, list, tuple, dict) as JSON.
fn to_json(v: &Bound<'_, PyAny>, at: &str) -> PyResult<Value> {
    if v.is_none() {
        return Ok(Value::Null);
    }
    if v.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(Value::from(v.extract::<i64>()?));
    }
    if v.is_instance_of::<PyFloat>() {
        let f: f64 = v.extract()?;
        return serde_json::Number::from_f64(f)
            .map(Value::Number)
            .ok_or_else(|| value_error(format!("{at}: {f} is not a finite number")));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(Value::String(v.extract()?));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut m = serde_json::Map::new();
        for (k, x) in d.iter() {
            let k: String = k
                .extract()
                .map_err(|_| value_error(format!("{at}: keys must be strings")))?;
            let inner = to_json(&x, &format!("{at}.{k}"))?;
            m.insert(k, inner);
        }
        return Ok(Value::Object(m));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'_, PyAny>> = v.extract()?;
        return items
            .iter()
            .enumerate()
            .map(|(i, x)| to_json(x, &format!("{at}[{i}]")))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::Array);
    }
    if let Ok(p) = v.extract::<PathBuf>() {
        return Ok(Value::String(p.to_string_lossy().into_owned()));
    }
    Err(value_error(format!(
        "{at}: a {} is not a settings value",
        v.get_type()
            .name()
            .map(|s| s.to_string())
            .unwrap_or_default()
    )))
}

/// Settings from keyword arguments: the `settings` file (if any), then each section's fields
/// over it. Unknown sections or fields are a `ValueError` naming them.
pub fn from_kwargs(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Settings> {
    let (file, sections) = sections(kwargs)?;
    let base = match &file {
        Some(p) => {
            std::fs::File::open(p)
                .map_err(|e| io_error(format!("{}: cannot read: {e}", p.display()), &e))?;
            Settings::load(p).map_err(|e| value_error(e.to_string()))?
        }
        None => Settings::default(),
    };
    overlay(&base, &sections).map_err(value_error)
}

/// The `settings="file.ron"` keyword and the settings sections of `kwargs` as JSON.
pub fn sections(
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<(Option<PathBuf>, Vec<(String, Value)>)> {
    let mut file = None;
    let mut out = Vec::new();
    for (k, v) in kwargs
        .map(|k| k.iter().collect::<Vec<_>>())
        .unwrap_or_default()
    {
        let section: String = k.extract()?;
        if section == "settings" {
            file = (!v.is_none()).then(|| v.extract::<PathBuf>()).transpose()?;
            continue;
        }
        out.push((section.clone(), to_json(&v, &section)?));
    }
    Ok((file, out))
}

/// `base` with the fields of `sections` set over its own: what a call's keywords make of the
/// settings of a file (or of a folder's `skelnorm.ron`, in a batch).
pub fn overlay(base: &Settings, sections: &[(String, Value)]) -> Result<Settings, String> {
    let mut json = serde_json::to_value(base).map_err(|e| e.to_string())?;
    for (section, v) in sections {
        let Value::Object(fields) = v else {
            return Err(format!(
                "{section}: a settings section is a dict of its fields, such as rest={{\"fix_silhouette\": False}}"
            ));
        };
        let Some(Value::Object(all)) = Some(&mut json) else {
            return Err("settings: not an object".into());
        };
        match all.get_mut(section) {
            Some(Value::Object(target)) => target.extend(fields.clone()),
            _ => {
                return Err(format!(
                    "unknown settings section `{section}` (the sections: map, normalize, rest, tracks, rename, retarget; or settings=\"file.ron\")"
                ))
            }
        }
    }
    let mut settings: Settings =
        serde_json::from_value(json).map_err(|e| format!("settings: {e}"))?;
    settings.folder = base.folder.clone();
    Ok(settings)
}

pub fn resolve(settings: &Settings) -> PyResult<Resolved> {
    settings.resolve().map_err(|e| value_error(e.to_string()))
}

/// A report (any serde type) as a Python dict, through JSON.
pub fn to_dict<'py, T: serde::Serialize>(
    py: Python<'py>,
    report: &T,
) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(report).map_err(|e| value_error(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// Normalizes the file `src` into `dst`, writing exactly what `skelnorm normalize src -o dst`
/// writes, and returns the report `--json` prints (a dict).
///
/// Settings: keyword arguments named as the settings file's sections, each a dict of fields
/// (`rest={"fix_silhouette": False}`, `normalize={"allow_partial": True}`,
/// `map={"profile": "my.ron"}`), over `settings="file.ron"` if given; see
/// `skelnorm config --dump-defaults`. `skeleton`: normalize only this skeleton (by index).
/// Raises OSError for unreadable or unwritable files, ValueError for bad content or settings,
/// or when no skeleton fits the profile (the CLI's exit 3).
#[pyfunction]
#[pyo3(signature = (src, dst, *, skeleton=None, bvh_scale=None, **settings))]
pub fn normalize<'py>(
    py: Python<'py>,
    src: PathBuf,
    dst: PathBuf,
    skeleton: Option<usize>,
    bvh_scale: Option<f32>,
    settings: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    check_output(&dst)?;
    let settings = from_kwargs(settings)?;
    let resolved = resolve(&settings)?;
    let job = NormalizeFile {
        input: &src,
        output: &dst,
        read: &read_options(bvh_scale)?,
        existing: Existing::Overwrite,
        skeleton,
    };
    // The library's job, as `skelnorm normalize` runs it.
    let done = normalize_file(&job, &resolved.profile, &resolved.normalize)
        .map_err(|e| job_error(e, &src))?;
    let Outcome::Written(Normalized { mut file, report }) = done else {
        return Err(value_error("the output was left as it is"));
    };
    file.set_normalize(&report);
    file.settle();
    to_dict(py, &Report::single("normalize", file))
}

/// A job's failure as a Python exception: OSError (or a subclass) for a file that cannot be read
/// or written, ValueError for the rest, with the keyword that gets past a refusal named.
pub fn job_error(e: JobError, src: &std::path::Path) -> PyErr {
    match e {
        JobError::File(e) if src.is_dir() && e.file == src => folder_error(e.to_string()),
        JobError::File(e) => file_error(e),
        JobError::Output(m) => PyOSError::new_err(m),
        e @ JobError::Exists(_) => PyOSError::new_err(e.to_string()),
        JobError::Refused {
            message,
            hint: Some(Hint::AllowPartial),
        } => value_error(format!(
            "{message} (use normalize={{\"allow_partial\": True}} to normalize what is mapped)"
        )),
        e => value_error(e.to_string()),
    }
}

/// An asset from a document in memory (written for `path`).
pub fn asset(doc: gltf_io::Document, path: PathBuf) -> Asset {
    Asset {
        doc: Arc::new(doc),
        path,
    }
}
