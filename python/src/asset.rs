//! `load`, and the `Asset`, `Skeleton` and `Clip` classes: a file read by `skelnorm::io::read`
//! and views of its model as lists and numpy arrays.

use crate::arrays::{self, Order};
use crate::errors::{file_error, folder_error, value_error};
use crate::motion::Motion;
use numpy::PyArrayDyn;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use skelnorm::gltf_io::Document;
use skelnorm::io::ReadOptions;
use skelnorm::model;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Read options from the `bvh_scale` argument (metres per BVH unit; `None` guesses).
pub fn read_options(bvh_scale: Option<f32>) -> PyResult<ReadOptions> {
    if let Some(s) = bvh_scale {
        if !(s > 0.0 && s.is_finite()) {
            return Err(value_error(format!(
                "bvh_scale {s}: must be a positive number of metres per unit"
            )));
        }
    }
    Ok(ReadOptions { bvh_scale })
}

/// Reads `path` as `skelnorm::io::read` does (the CLI's reader). A folder is an
/// `IsADirectoryError` with the library's message.
pub fn read(path: &Path, bvh_scale: Option<f32>) -> PyResult<Document> {
    skelnorm::io::read(path, &read_options(bvh_scale)?).map_err(|e| match path.is_dir() {
        true => folder_error(e.to_string()),
        false => file_error(e),
    })
}

/// Refuses an output path whose extension names no glTF container (as the CLI does).
pub fn check_output(path: &Path) -> PyResult<()> {
    skelnorm::jobs::check_container(path).map_err(|e| value_error(e.to_string()))
}

/// Reads a glTF, GLB, VRM, VRMA, FBX or BVH file (told by its first bytes).
///
/// `bvh_scale`: metres per BVH unit (guessed from the skeleton's height when None), the CLI's
/// `--bvh-scale`. Raises OSError (FileNotFoundError, PermissionError, IsADirectoryError) when
/// the file cannot be read, ValueError when its content is not valid.
#[pyfunction]
#[pyo3(signature = (path, *, bvh_scale=None))]
pub fn load(path: PathBuf, bvh_scale: Option<f32>) -> PyResult<Asset> {
    let doc = read(&path, bvh_scale)?;
    Ok(Asset {
        doc: Arc::new(doc),
        path,
    })
}

/// A file as skelnorm reads it: its skeletons and clips, and the document to write back.
#[pyclass(module = "skelnorm", frozen)]
pub struct Asset {
    pub doc: Arc<Document>,
    pub path: PathBuf,
}

#[pymethods]
impl Asset {
    /// The file this asset was read from (or written for).
    #[getter]
    fn path(&self) -> String {
        self.path.display().to_string()
    }

    /// The skeletons, in the order `skelnorm inspect` lists them.
    #[getter]
    fn skeletons(&self) -> Vec<Skeleton> {
        self.doc
            .model
            .skeletons
            .iter()
            .map(|s| Skeleton {
                inner: Arc::new(s.clone()),
            })
            .collect()
    }

    /// The clips, in file order; each knows its skeleton.
    #[getter]
    fn clips(&self) -> Vec<Clip> {
        let m = &self.doc.model;
        m.clips
            .iter()
            .filter_map(|c| {
                let s = m.get_skeleton(c.skeleton)?;
                Some(Clip {
                    inner: Arc::new(c.clone()),
                    skeleton: Arc::new(s.clone()),
                })
            })
            .collect()
    }

    /// What reading the file noticed, as `code: message` (the CLI's JSON report has them as
    /// objects under `files[0].warnings`).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.doc.warnings.iter().map(ToString::to_string).collect()
    }

    /// Writes the asset as the CLI writes its outputs: the container by the extension (.gltf is
    /// JSON; .glb, .vrm, .vrma binary); meshes, materials and extensions kept.
    fn save(&self, path: PathBuf) -> PyResult<()> {
        check_output(&path)?;
        self.doc.write(&path).map_err(file_error)
    }

    fn __repr__(&self) -> String {
        let m = &self.doc.model;
        format!(
            "<skelnorm.Asset {:?}: {} skeleton(s), {} clip(s)>",
            self.path.display().to_string(),
            m.skeletons.len(),
            m.clips.len()
        )
    }
}

/// A skeleton: bones stored flat, every parent before its children.
#[pyclass(module = "skelnorm", frozen)]
#[derive(Clone)]
pub struct Skeleton {
    pub inner: Arc<model::Skeleton>,
}

#[pymethods]
impl Skeleton {
    /// The skeleton's name (its armature node's, or `skeleton <n>`).
    #[getter]
    fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// Bone names, one per joint J.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.inner.bones.iter().map(|b| b.name.clone()).collect()
    }

    /// Parent index of each bone, int32 (J,); -1 for a root. A parent comes before its children.
    #[getter]
    fn parents<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<i32>> {
        let p: Vec<i32> = self
            .inner
            .bones
            .iter()
            .map(|b| b.parent.map_or(-1, |p| p.0 as i32))
            .collect();
        numpy::PyArray1::from_vec(py, p)
    }

    /// Rest translations local to the parent bone, float32 (J, 3), in the file's units
    /// (metres for glTF).
    #[getter]
    fn rest_translations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let v: Vec<_> = self
            .inner
            .bones
            .iter()
            .map(|b| b.rest.translation)
            .collect();
        arrays::vecs(py, &[v.len()], &v)
    }

    /// Rest rotations local to the parent bone, float32 (J, 4), unit quaternions in
    /// (x, y, z, w) order as glTF; see `rest_rotations_as("wxyz")`.
    #[getter]
    fn rest_rotations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        self.rest_rotations_as(py, "xyzw")
    }

    /// Rest rotations, float32 (J, 4), in `order`: "xyzw" (glTF, the default) or "wxyz".
    #[pyo3(signature = (order="xyzw"))]
    fn rest_rotations_as<'py>(
        &self,
        py: Python<'py>,
        order: &str,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let q: Vec<_> = self.inner.bones.iter().map(|b| b.rest.rotation).collect();
        arrays::quats(py, &[q.len()], &q, Order::parse(order)?)
    }

    /// Rest scales local to the parent bone, float32 (J, 3).
    #[getter]
    fn rest_scales<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let v: Vec<_> = self.inner.bones.iter().map(|b| b.rest.scale).collect();
        arrays::vecs(py, &[v.len()], &v)
    }

    /// World matrix of the space the roots live in (the nodes above the skeleton), float32
    /// (4, 4), row-major (`base[:3, 3]` is the translation).
    #[getter]
    fn base<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        arrays::out(
            py,
            &[4, 4],
            self.inner.base.transpose().to_cols_array().to_vec(),
        )
    }

    /// The glTF node each bone was read from (None for bones made in code), (J,) list.
    #[getter]
    fn nodes(&self) -> Vec<Option<u32>> {
        self.inner.bones.iter().map(|b| b.node).collect()
    }

    fn __len__(&self) -> usize {
        self.inner.bones.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<skelnorm.Skeleton {:?}: {} bones>",
            self.inner.name,
            self.inner.bones.len()
        )
    }
}

/// An animation clip of one skeleton.
#[pyclass(module = "skelnorm", frozen)]
#[derive(Clone)]
pub struct Clip {
    pub inner: Arc<model::Clip>,
    pub skeleton: Arc<model::Skeleton>,
}

#[pymethods]
impl Clip {
    /// The clip's name.
    #[getter]
    fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// Last key time over every track, in seconds.
    #[getter]
    fn duration(&self) -> f32 {
        self.inner.duration()
    }

    /// Index of the skeleton it animates in `Asset.skeletons`.
    #[getter]
    fn skeleton_index(&self) -> u32 {
        self.inner.skeleton.0
    }

    /// The skeleton it animates.
    #[getter]
    fn skeleton(&self) -> Skeleton {
        Skeleton {
            inner: self.skeleton.clone(),
        }
    }

    /// The clip's float curves (an FBX file's animated user properties: Unreal's animation
    /// curves, such as `FootLock_L`), name → `(times, values)`, float32 (K,) each, keyed
    /// linearly; empty when it has none (glTF and BVH files). `sample` samples them with the
    /// bones (`Motion.curves`).
    #[getter]
    fn curves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for c in &self.inner.curves {
            let times = arrays::out(py, &[c.track.times.len()], c.track.times.to_vec())?;
            let values = arrays::out(py, &[c.track.values.len()], c.track.values.to_vec())?;
            out.set_item(&c.name, (times, values))?;
        }
        Ok(out)
    }

    /// Samples the clip into local transforms per frame (the library's `Pose::sample`:
    /// un-animated channels hold the rest value, rotations normalized).
    ///
    /// fps None: at the clip's own key times when every track has the same ones, else at 30
    /// fps; otherwise every 1/fps s from 0 through the duration. Rotations come as (x, y, z, w)
    /// quaternions as glTF, or (w, x, y, z) with `order="wxyz"`.
    #[pyo3(signature = (fps=None, *, order="xyzw"))]
    fn sample(&self, fps: Option<f32>, order: &str) -> PyResult<Motion> {
        let order = Order::parse(order)?;
        if let Some(f) = fps {
            if !(f > 0.0 && f.is_finite() && f <= 1000.0) {
                return Err(value_error(format!(
                    "fps {f}: must be above 0 and at most 1000"
                )));
            }
        }
        if let Some(p) = self.inner.validate(&self.skeleton).into_iter().next() {
            return Err(value_error(format!("clip `{}`: {p}", self.inner.name)));
        }
        let times = self.inner.sample_times(fps);
        Ok(Motion::sampled(&self.skeleton, &self.inner, times, order))
    }

    fn __repr__(&self) -> String {
        format!(
            "<skelnorm.Clip {:?}: {} s, skeleton {}>",
            self.inner.name,
            self.inner.duration(),
            self.inner.skeleton.0
        )
    }
}
