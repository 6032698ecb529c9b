//! `map`: each skeleton's bones mapped to the profile, as `skelnorm map FILE --json` reports
//! them (the library's `map_skeleton` and `MapReport`).

use crate::asset::Asset;
use crate::errors::value_error;
use crate::settings::{from_kwargs, to_dict};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use skelnorm::mapping::{map_skeleton, MapReport};
use std::path::PathBuf;

/// What `skelnorm map --json` prints (serialized from the f32s, as the CLI does).
#[derive(serde::Serialize)]
struct Output {
    file: String,
    skeletons: Vec<MapReport>,
}

/// Maps the bones of `asset`'s skeletons (or of skeleton `skeleton` only) to the profile and
/// returns what `skelnorm map FILE --json` prints: `{"file": …, "skeletons": [report, …]}`, each
/// report naming the profile bone of every mapped bone, how it was found, and the required
/// profile bones that are missing (`missing_required`; the CLI's exit 3 when not empty).
///
/// `profile`: a profile RON file instead of the built-in humanoid (`--profile`); `bone_map`: a
/// bone-map RON file whose entries win (`--bone-map`); other settings as keyword arguments, as
/// for `normalize` (`map={"ignore_vrm": True}`).
#[pyfunction]
#[pyo3(signature = (asset, *, skeleton=None, profile=None, bone_map=None, **settings))]
pub fn map<'py>(
    py: Python<'py>,
    asset: PyRef<'py, Asset>,
    skeleton: Option<usize>,
    profile: Option<PathBuf>,
    bone_map: Option<PathBuf>,
    settings: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut s = from_kwargs(settings)?;
    // Absolute, as the CLI makes its flags' paths: not relative to a `settings` file's folder.
    let text = |p: PathBuf| {
        std::path::absolute(&p)
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned()
    };
    s.map.profile = profile.map(text).or(s.map.profile);
    s.map.bone_map = bone_map.map(text).or(s.map.bone_map);
    let (profile, options) = s.resolve_map().map_err(|e| value_error(e.to_string()))?;
    let model = &asset.doc.model;
    let count = model.skeletons.len();
    let chosen: Vec<usize> = match skeleton {
        Some(k) if k < count => vec![k],
        Some(k) => {
            return Err(value_error(format!(
                "{}: there is no skeleton {k} (the file has {count})",
                asset.path.display()
            )))
        }
        None => (0..count).collect(),
    };
    let reports: Vec<MapReport> = chosen
        .iter()
        .map(|&k| {
            let sk = &model.skeletons[k];
            map_skeleton(sk, &profile, &options).report(sk, &profile)
        })
        .collect();
    let out = Output {
        file: asset.path.display().to_string(),
        skeletons: reports,
    };
    to_dict(py, &out)
}
