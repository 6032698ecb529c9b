//! `Retargeter` (the library's runtime retargeter, per frame or per batch of frames) and
//! `retarget` (the CLI's `skelnorm retarget`: both files normalized in memory, clips retargeted
//! by `skelnorm::pipeline::retarget`).

use crate::arrays::{self, Order};
use crate::asset::{check_output, read, Skeleton};
use crate::errors::{file_error, value_error};
use crate::settings::{asset, from_kwargs, resolve, to_dict};
use glam::{Quat, Vec3};
use numpy::{PyArrayDyn, PyReadonlyArrayDyn, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use skelnorm::mapping::map_skeleton;
use skelnorm::model::{self, Pose, SkeletonId};
use skelnorm::pipeline::{self, ClipNaming, RetargetJob, RetargetOutput};
use skelnorm::retarget::Rig;
use std::path::PathBuf;
use std::sync::Arc;

/// Retargets poses of one skeleton onto another (the library's `Retargeter`): built once per
/// pair, then `retarget` per frame or per batch.
///
/// Both skeletons should be normalized (T-pose facing +Z: load files written by
/// `skelnorm.normalize`); each is mapped to the profile as `skelnorm map` maps it. A skeleton
/// whose kept nodes above turn its up axis (its `base`) is read with that turn folded into its
/// root bones; poses in and out stay in each skeleton's own space. Settings:
/// keyword arguments named as the settings file's sections (`map`, `retarget`), as for
/// `normalize`. The op stack is the `retarget` section's `ops`, a list of one-key dicts as the
/// settings file's ops: `retarget={"ops": [{"Plant": {}}, {"Floor": {"height": 0.0}},
/// {"Mirror": {}}]}`.
#[pyclass(module = "skelnorm")]
pub struct Retargeter {
    inner: skelnorm::retarget::Retargeter,
    source: Arc<model::Skeleton>,
    target: Arc<model::Skeleton>,
}

#[pymethods]
impl Retargeter {
    #[new]
    #[pyo3(signature = (source_skeleton, target_skeleton, **settings))]
    fn new(
        source_skeleton: PyRef<'_, Skeleton>,
        target_skeleton: PyRef<'_, Skeleton>,
        settings: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let r = resolve(&from_kwargs(settings)?)?;
        let (s, t) = (source_skeleton.inner.clone(), target_skeleton.inner.clone());
        let sm = map_skeleton(&s, &r.profile, &r.source_map);
        let tm = map_skeleton(&t, &r.profile, &r.target_map);
        let inner = skelnorm::retarget::Retargeter::new(
            &Rig {
                skeleton: &s,
                map: &sm,
                profile: &r.profile,
            },
            &Rig {
                skeleton: &t,
                map: &tm,
                profile: &r.profile,
            },
            &r.retarget,
        )
        .map_err(|e| value_error(format!("{} → {}: {e}", s.name, t.name)))?;
        Ok(Retargeter {
            inner,
            source: s,
            target: t,
        })
    }

    /// Index of the source bone whose local translation `root_translation` gives (the hips).
    #[getter]
    fn source_hips(&self) -> u32 {
        self.inner.plan().source_hips().0
    }

    /// Index of the target bone whose local translation `retarget` returns as `root` (the hips).
    #[getter]
    fn target_hips(&self) -> u32 {
        self.inner.plan().target_hips().0
    }

    /// The plan (chain pairing, hips ratio, warnings) as a dict.
    #[getter]
    fn plan<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_dict(py, self.inner.plan())
    }

    /// Retargets one frame or a batch: `rotations` are the source's local rotations, (J, 4) or
    /// (N, J, 4), unit quaternions in (x, y, z, w) order as glTF or (w, x, y, z) with
    /// `order="wxyz"`; `root_translation` is the local translation of the source hips
    /// (`source_hips`), (3,) or (N, 3), the rest translation when None. Other source bones keep
    /// their rest translations. float32 or float64.
    ///
    /// Returns `(rotations, root)`: the target's local rotations (J, 4) or (N, J, 4) in the same
    /// order, and the local translation of the target hips (`target_hips`), (3,) or (N, 3); with
    /// `all_translations=True`, every target bone's local translation (J, 3) or (N, J, 3)
    /// instead (root motion and `Body` carriers move bones other than the hips).
    ///
    /// `contacts`: each foot's contact per frame, a bool array (2,) or (N, 2), (left, right)
    /// (a clip's foot-lock curves: `Motion.curves`): frame k is retargeted as after
    /// `set_contacts(contacts[k])`, as the offline retarget takes them from the clip's curves
    /// frame by frame; after the call (or an error) the contacts set before are back. None: the
    /// ones set (`set_contacts`), or detection.
    #[pyo3(signature = (rotations, root_translation=None, *, order="xyzw", all_translations=false, contacts=None))]
    fn retarget<'py>(
        &mut self,
        py: Python<'py>,
        rotations: &Bound<'py, PyAny>,
        root_translation: Option<&Bound<'py, PyAny>>,
        order: &str,
        all_translations: bool,
        contacts: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        self.run(
            py,
            rotations,
            root_translation,
            None,
            order,
            all_translations,
            contacts,
        )
    }

    /// `retarget` with `dt`, the seconds since the previous frame (above 0; between the
    /// frames of a batch too), which planting's speeds and the filter use (`retarget` takes
    /// 1 / `retarget.fps`, 1/30 s by default). Ops that keep state across frames (planting, the
    /// filter) keep it in the retargeter: call `reset` before an unrelated pose (a new clip).
    /// `contacts` as for `retarget`.
    #[pyo3(signature = (rotations, root_translation=None, dt=None, *, order="xyzw", all_translations=false, contacts=None))]
    #[allow(
        clippy::too_many_arguments,
        reason = "the keyword arguments of a Python method"
    )]
    fn retarget_at<'py>(
        &mut self,
        py: Python<'py>,
        rotations: &Bound<'py, PyAny>,
        root_translation: Option<&Bound<'py, PyAny>>,
        dt: Option<f32>,
        order: &str,
        all_translations: bool,
        contacts: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let Some(dt) = dt else {
            return Err(value_error(
                "dt: the seconds since the previous frame are needed",
            ));
        };
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(value_error(format!("dt {dt}: must be above 0")));
        }
        self.run(
            py,
            rotations,
            root_translation,
            Some(dt),
            order,
            all_translations,
            contacts,
        )
    }

    /// Forgets what the ops that keep state (planting, the filter) saw: the next frame starts
    /// afresh, as the first after construction (the treadmill and contacts set stay).
    fn reset(&mut self) {
        self.inner.reset();
    }

    /// Sets the ground planting plants on: the horizontal velocity `(x, z)` (or `(x, y, z)`,
    /// y ignored), source units per second in the source's skeleton space (Y up: a kept turn
    /// above it folded), of the treadmill a clip that runs in place is played on; `None` for a
    /// ground that stands still. Feet are in contact, and held, relative to it. It stays until
    /// set again.
    #[pyo3(signature = (velocity=None))]
    fn set_treadmill(&mut self, velocity: Option<Vec<f32>>) -> PyResult<()> {
        let v = match velocity.as_deref() {
            None => None,
            Some(&[x, z]) => Some(Vec3::new(x, 0.0, z)),
            Some(&[x, y, z]) => Some(Vec3::new(x, y, z)),
            Some(other) => {
                return Err(value_error(format!(
                    "velocity: {} numbers, expected (x, z) or (x, y, z)",
                    other.len()
                )))
            }
        };
        if v.is_some_and(|v| !v.is_finite()) {
            return Err(value_error("velocity: must be finite"));
        }
        self.inner.set_treadmill(v);
        Ok(())
    }

    /// The treadmill's velocity `(x, 0, z)` planting plants on, or None.
    #[getter]
    fn treadmill(&self) -> Option<(f32, f32, f32)> {
        self.inner.treadmill().map(|v| (v.x, v.y, v.z))
    }

    /// Sets each foot's contact for the frames to come, `(left, right)` (a clip's foot-lock
    /// curves, say `FootLock_L >= 0.5`): planting holds a foot while its flag is set instead of
    /// detecting contacts from the source's foot height and speed; `None` goes back to
    /// detecting them. It stays until set again (`reset` keeps it): call it before each
    /// frame's `retarget`.
    #[pyo3(signature = (contacts=None))]
    fn set_contacts(&mut self, contacts: Option<(bool, bool)>) {
        self.inner.set_contacts(contacts.map(|(l, r)| [l, r]));
    }

    /// The contacts planting takes, `(left, right)`, or None when it detects them.
    #[getter]
    fn contacts(&self) -> Option<(bool, bool)> {
        self.inner.contacts().map(|[l, r]| (l, r))
    }

    fn __repr__(&self) -> String {
        format!(
            "<skelnorm.Retargeter {:?} → {:?}>",
            self.source.name, self.target.name
        )
    }
}

impl Retargeter {
    /// `retarget` and `retarget_at`: every frame of `rotations` in order, with time step `dt`
    /// (1 / `retarget.fps` when `None`), planting on each frame's `contacts` when given.
    #[allow(
        clippy::too_many_arguments,
        reason = "the arguments of the two Python methods it serves"
    )]
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        rotations: &Bound<'py, PyAny>,
        root_translation: Option<&Bound<'py, PyAny>>,
        dt: Option<f32>,
        order: &str,
        all_translations: bool,
        contacts: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let order = Order::parse(order)?;
        let (js, jt) = (self.source.bones.len(), self.target.bones.len());
        let (shape, rv) = arrays::input(rotations, "rotations", &[1, 2], 4, "(J, 4) or (N, J, 4)")?;
        let batched = shape.len() == 3;
        let n = if batched { shape[0] } else { 1 };
        if shape[shape.len() - 2] != js {
            return Err(value_error(format!(
                "rotations: {} joints, the source skeleton `{}` has {js}",
                shape[shape.len() - 2],
                self.source.name
            )));
        }
        let hips = self.inner.plan().source_hips().index();
        let roots: Vec<Vec3> = match root_translation {
            Some(obj) => {
                let (rs, v) = arrays::input(obj, "root_translation", &[0, 1], 3, "(3,) or (N, 3)")?;
                if (rs.len() == 2) != batched || (batched && rs[0] != n) {
                    return Err(value_error(format!(
                        "root_translation: shape {rs:?} does not go with rotations {shape:?}"
                    )));
                }
                v.chunks(3).map(Vec3::from_slice).collect()
            }
            None => vec![self.source.bones[hips].rest.translation; n],
        };
        let flags = contacts
            .map(|c| contact_flags(c, batched.then_some(n)))
            .transpose()?;
        let theirs = self.inner.contacts();
        let result = self.frames(&rv, &roots, order, dt, all_translations, flags.as_deref());
        // The contacts set before come back, as offline retargeting gives them back.
        if flags.is_some() {
            self.inner.set_contacts(theirs);
        }
        let (out_q, out_t) = result?;
        let lead: &[usize] = if batched { &[n, jt] } else { &[jt] };
        let q = arrays::quats(py, lead, &out_q, order)?;
        let t: Bound<'py, PyArrayDyn<f32>> = match (all_translations, batched) {
            (true, _) => arrays::vecs(py, lead, &out_t)?,
            (false, true) => arrays::vecs(py, &[n], &out_t)?,
            (false, false) => arrays::vecs(py, &[], &out_t)?,
        };
        PyTuple::new(py, [q.into_any(), t.into_any()])
    }

    /// Retargets each frame (`rv`: its source rotations in `order`, frame-major; `roots`: its
    /// hips translation), with time step `dt`, planting on `flags[f]` when given: the target's
    /// rotations and translations (every bone's with `all_translations`, else the hips').
    fn frames(
        &mut self,
        rv: &[f32],
        roots: &[Vec3],
        order: Order,
        dt: Option<f32>,
        all_translations: bool,
        flags: Option<&[[bool; 2]]>,
    ) -> PyResult<(Vec<Quat>, Vec<Vec3>)> {
        let (js, jt) = (self.source.bones.len(), self.target.bones.len());
        let hips = self.inner.plan().source_hips().index();
        let mut source = Pose::rest(&self.source);
        let mut target = Pose::rest(&self.target);
        let (mut out_q, mut out_t): (Vec<Quat>, Vec<Vec3>) =
            (Vec::with_capacity(roots.len() * jt), Vec::new());
        for (f, root) in roots.iter().enumerate() {
            if let Some(flags) = flags {
                self.inner.set_contacts(Some(flags[f]));
            }
            for (j, local) in source.locals.iter_mut().enumerate() {
                let k = (f * js + j) * 4;
                local.rotation = order.take(&rv[k..k + 4]);
                local.check().map_err(|e| {
                    value_error(format!("rotations: frame {f}, joint {j}: the rotation {e}"))
                })?;
            }
            source.locals[hips].translation = *root;
            match dt {
                Some(dt) => self.inner.retarget_at(&source, &mut target, dt),
                None => self.inner.retarget(&source, &mut target),
            }
            .map_err(|e| value_error(e.to_string()))?;
            out_q.extend(target.locals.iter().map(|l| l.rotation));
            if all_translations {
                out_t.extend(target.locals.iter().map(|l| l.translation));
            } else {
                out_t.push(target.locals[self.inner.plan().target_hips().index()].translation);
            }
        }
        Ok((out_q, out_t))
    }
}

/// Per-frame contact flags from `obj`: a bool array (2,) for one frame, or (N, 2) for a batch
/// of `batch` = Some(N) frames.
fn contact_flags(obj: &Bound<'_, PyAny>, batch: Option<usize>) -> PyResult<Vec<[bool; 2]>> {
    let expected = match batch {
        Some(n) => format!("({n}, 2): (left, right) per frame"),
        None => "(2,): (left, right)".to_string(),
    };
    let a = obj.py().import("numpy")?.call_method1("asarray", (obj,))?;
    let a = a.extract::<PyReadonlyArrayDyn<'_, bool>>().map_err(|_| {
        let dtype = a
            .cast::<PyUntypedArray>()
            .map(|u| u.dtype().to_string())
            .unwrap_or_default();
        value_error(format!(
            "contacts: expected booleans {expected}, got dtype {dtype} (compare curves with a threshold: `values >= 0.5`)"
        ))
    })?;
    let view = a.as_array();
    let shape = view.shape();
    let ok = match batch {
        Some(n) => shape == [n, 2],
        None => shape == [2],
    };
    if !ok {
        return Err(value_error(format!(
            "contacts: shape {shape:?} is not {expected}"
        )));
    }
    let v: Vec<bool> = view.iter().copied().collect();
    Ok(v.chunks(2).map(|c| [c[0], c[1]]).collect())
}

/// Retargets the clips of the file `source` onto the character in `target`, as
/// `skelnorm retarget --source SRC --target TGT -o DST` does: both normalized in memory, each
/// clip retargeted by chains, the result written to `dst` when given (.gltf/.glb/.vrm/.vrma).
///
/// `clip`: a clip name or a list of names (every clip when None); `prefix`/`suffix` name the new
/// clips; `output`: "original" (the target as it came plus the new clips, the default) or
/// "normalized". Settings: keyword arguments named as the settings file's sections, as for
/// `normalize`. Returns `(asset, report)`: the target with its new clips, and the retarget
/// report (plan and clips) as a dict.
#[pyfunction]
#[pyo3(signature = (source, target, dst=None, *, clip=None, prefix="", suffix="", output="original", source_skeleton=None, target_skeleton=None, bvh_scale=None, **settings))]
#[allow(
    clippy::too_many_arguments,
    reason = "the keyword arguments of a Python function"
)]
pub fn retarget<'py>(
    py: Python<'py>,
    source: PathBuf,
    target: PathBuf,
    dst: Option<PathBuf>,
    clip: Option<&Bound<'py, PyAny>>,
    prefix: &str,
    suffix: &str,
    output: &str,
    source_skeleton: Option<u32>,
    target_skeleton: Option<u32>,
    bvh_scale: Option<f32>,
    settings: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyTuple>> {
    if let Some(d) = &dst {
        check_output(d)?;
    }
    let output = match output {
        "original" => RetargetOutput::Original,
        "normalized" => RetargetOutput::Normalized,
        _ => {
            return Err(value_error(format!(
                "output `{output}`: must be \"original\" or \"normalized\""
            )))
        }
    };
    let clips: Vec<String> = match clip {
        None => Vec::new(),
        Some(c) => match c.extract::<String>() {
            Ok(one) => vec![one],
            Err(_) => c
                .extract()
                .map_err(|_| value_error("clip: a name or a list of names"))?,
        },
    };
    let resolved = resolve(&from_kwargs(settings)?)?;
    let mut src = read(&source, bvh_scale)?;
    let mut tgt = read(&target, bvh_scale)?;
    let mut job = RetargetJob {
        clips,
        naming: ClipNaming {
            prefix: prefix.to_string(),
            suffix: suffix.to_string(),
            on_clash: resolved.on_clash,
        },
        output,
        ..resolved.retarget_job()
    };
    job.source.skeleton = source_skeleton.map(SkeletonId);
    job.target.skeleton = target_skeleton.map(SkeletonId);
    let report = pipeline::retarget(&mut src.model, &mut tgt.model, &resolved.profile, &job)
        .map_err(|e| value_error(format!("{} → {}: {e}", source.display(), target.display())))?;
    let path = dst.clone().unwrap_or_else(|| target.clone());
    if let Some(d) = &dst {
        tgt.write(d).map_err(file_error)?;
    }
    let report = to_dict(py, &report)?;
    let a = Bound::new(py, asset(tgt, path))?;
    PyTuple::new(py, [a.into_any(), report])
}
