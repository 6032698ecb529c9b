//! `Motion`: a clip sampled into arrays of local transforms per frame, its world positions
//! (the library's `Pose::world`) and its BVH text (the library's BVH writer).

use crate::arrays::{self, Order};
use crate::asset::Skeleton;
use crate::errors::{io_error, value_error};
use glam::{Quat, Vec3};
use numpy::PyArrayDyn;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use skelnorm::bvh_io::{self, BvhWriteOptions, RotationOrder};
use skelnorm::model::{self, BoneTracks, Interpolation, Pose, SkeletonId, Track, Transform};
use std::path::PathBuf;
use std::sync::Arc;

/// Local transforms of every bone at N times: `times` (N,), `rotations` (N, J, 4),
/// `translations` (N, J, 3), `scales` (N, J, 3).
#[pyclass(module = "skelnorm", frozen)]
pub struct Motion {
    name: String,
    times: Vec<f32>,
    /// N × J local transforms, frame-major.
    locals: Vec<Transform>,
    joints: usize,
    /// Which channels the motion animates per bone (rotation, translation, scale): what a BVH
    /// written from it keys. None for a motion made from arrays: see `keyed`.
    animated: Option<Vec<[bool; 3]>>,
    skeleton: Option<Arc<model::Skeleton>>,
    order: Order,
    /// Float curves, name → a value per frame (at `times`).
    curves: Vec<(String, Vec<f32>)>,
}

impl Motion {
    /// `clip` (valid for `skeleton`) sampled at `times` with `Pose::sample`.
    pub fn sampled(
        skeleton: &Arc<model::Skeleton>,
        clip: &model::Clip,
        times: Vec<f32>,
        order: Order,
    ) -> Motion {
        let mut pose = Pose::rest(skeleton);
        let mut locals = Vec::with_capacity(times.len() * skeleton.bones.len());
        for &t in &times {
            pose.sample_into(clip, t);
            locals.extend_from_slice(&pose.locals);
        }
        let animated = (0..skeleton.bones.len())
            .map(|j| {
                let t = clip.tracks.get(j);
                [
                    t.is_some_and(|t| t.rotation.is_some()),
                    t.is_some_and(|t| t.translation.is_some()),
                    t.is_some_and(|t| t.scale.is_some()),
                ]
            })
            .collect();
        let curves = clip
            .curves
            .iter()
            .map(|c| {
                (
                    c.name.clone(),
                    times.iter().map(|&t| c.track.sample(t)).collect(),
                )
            })
            .collect();
        Motion {
            name: clip.name.clone(),
            times,
            locals,
            joints: skeleton.bones.len(),
            animated: Some(animated),
            skeleton: Some(skeleton.clone()),
            order,
            curves,
        }
    }

    /// The skeleton given, else the one sampled from; its bone count must be J.
    fn skeleton_for(&self, given: Option<&Skeleton>) -> PyResult<Arc<model::Skeleton>> {
        let s = given
            .map(|s| s.inner.clone())
            .or_else(|| self.skeleton.clone())
            .ok_or_else(|| value_error("this motion knows no skeleton: pass one"))?;
        if s.bones.len() != self.joints {
            return Err(value_error(format!(
                "skeleton `{}` has {} bones and the motion {}",
                s.name,
                s.bones.len(),
                self.joints
            )));
        }
        Ok(s)
    }

    /// The channels a motion made from arrays keys on `skeleton`: every channel of a root; on
    /// other bones, a channel that differs from the bone's rest value in some frame (a channel
    /// left out samples as that rest value, so nothing is lost, and a BVH writes leaves at rest
    /// as `End Site`s, as `skelnorm convert` does).
    fn keyed(&self, skeleton: &model::Skeleton) -> Vec<[bool; 3]> {
        let frames = || self.locals.chunks(self.joints.max(1));
        skeleton
            .bones
            .iter()
            .enumerate()
            .map(|(j, b)| {
                let root = b.parent.is_none();
                let moves = |pick: &dyn Fn(&Transform) -> [f32; 4]| {
                    frames().any(|f| pick(&f[j]) != pick(&b.rest))
                };
                [
                    root || moves(&|l| l.rotation.to_array()),
                    root || moves(&|l| l.translation.extend(0.0).to_array()),
                    moves(&|l| l.scale.extend(0.0).to_array()),
                ]
            })
            .collect()
    }

    /// The motion as a clip of `skeleton` (J bones): LINEAR keys at `times` on the animated
    /// channels.
    fn to_clip(&self, skeleton: &model::Skeleton) -> model::Clip {
        let n = self.times.len();
        let animated = self
            .animated
            .clone()
            .unwrap_or_else(|| self.keyed(skeleton));
        let times: std::sync::Arc<[f32]> = self.times.as_slice().into();
        let tracks = (0..self.joints)
            .map(|j| {
                let keys = |pick: &dyn Fn(&Transform) -> Vec3| Track {
                    interpolation: Interpolation::Linear,
                    times: times.clone(),
                    values: (0..n)
                        .map(|i| pick(&self.locals[i * self.joints + j]))
                        .collect(),
                };
                let [r, t, s] = animated[j];
                BoneTracks {
                    rotation: r.then(|| Track {
                        interpolation: Interpolation::Linear,
                        times: times.clone(),
                        values: (0..n)
                            .map(|i| self.locals[i * self.joints + j].rotation)
                            .collect(),
                    }),
                    translation: t.then(|| keys(&|l| l.translation)),
                    scale: s.then(|| keys(&|l| l.scale)),
                }
            })
            .collect();
        model::Clip {
            name: self.name.clone(),
            skeleton: SkeletonId(0),
            tracks,
            opaque: Vec::new(),
            source: None,
            motion_scale: None,
            curves: self
                .curves
                .iter()
                .map(|(name, values)| model::Curve {
                    name: name.clone(),
                    track: Track {
                        interpolation: Interpolation::Linear,
                        times: times.clone(),
                        values: values.as_slice().into(),
                    },
                })
                .collect(),
        }
    }
}

/// A BVH rotation order from its name ("zxy", any case).
fn bvh_order(text: &str) -> PyResult<RotationOrder> {
    RotationOrder::ALL
        .into_iter()
        .find(|o| o.as_str().eq_ignore_ascii_case(text))
        .ok_or_else(|| {
            value_error(format!(
                "bvh order `{text}`: must be one of xyz, xzy, yxz, yzx, zxy, zyx"
            ))
        })
}

#[pymethods]
impl Motion {
    /// A motion from arrays: `times` (N,) seconds, increasing; `rotations` (N, J, 4) unit
    /// quaternions in (x, y, z, w) order as glTF, or (w, x, y, z) with `order="wxyz"`;
    /// `translations` (N, J, 3) local; `scales` (N, J, 3), ones when None. float32 or float64.
    /// `skeleton`: the skeleton it animates (used by `world_positions` and `to_bvh` when they
    /// get none). A BVH written from it keys the roots' channels and, on other bones, those that
    /// leave the rest value in some frame. `curves`: float curves, name → values (N,), one per
    /// time (`curves`).
    #[new]
    #[pyo3(signature = (times, rotations, translations, *, scales=None, skeleton=None, order="xyzw", name="motion", curves=None))]
    #[allow(
        clippy::too_many_arguments,
        reason = "the keyword arguments of a Python constructor"
    )]
    fn new(
        times: &Bound<'_, PyAny>,
        rotations: &Bound<'_, PyAny>,
        translations: &Bound<'_, PyAny>,
        scales: Option<&Bound<'_, PyAny>>,
        skeleton: Option<PyRef<'_, Skeleton>>,
        order: &str,
        name: &str,
        curves: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Motion> {
        let order = Order::parse(order)?;
        let ndim: Option<usize> = times.getattr("ndim").and_then(|d| d.extract()).ok();
        if ndim.is_some_and(|d| d != 1) {
            let shape = times.getattr("shape")?.str()?.to_string();
            return Err(value_error(format!("times: shape {shape} is not (N,)")));
        }
        let times_obj = times
            .call_method1("reshape", ((-1, 1),))
            .unwrap_or_else(|_| times.clone());
        let (_, times) = arrays::input(&times_obj, "times", &[1], 1, "(N,)")?;
        let (rs, rv) = arrays::input(rotations, "rotations", &[2], 4, "(N, J, 4)")?;
        let (ts, tv) = arrays::input(translations, "translations", &[2], 3, "(N, J, 3)")?;
        let (n, j) = (rs[0], rs[1]);
        if ts[..2] != rs[..2] || times.len() != n {
            return Err(value_error(format!(
                "times {:?}, rotations {rs:?} and translations {ts:?} disagree on N or J",
                [times.len()]
            )));
        }
        let sv = match scales {
            Some(s) => {
                let (ss, sv) = arrays::input(s, "scales", &[2], 3, "(N, J, 3)")?;
                if ss[..2] != rs[..2] {
                    return Err(value_error(format!(
                        "scales {ss:?} and rotations {rs:?} disagree on N or J"
                    )));
                }
                sv
            }
            None => vec![1.0; n * j * 3],
        };
        if times.windows(2).any(|w| w[1] < w[0]) {
            return Err(value_error("times: must not decrease"));
        }
        let mut locals = Vec::with_capacity(n * j);
        for k in 0..n * j {
            let l = Transform {
                rotation: order.take(&rv[4 * k..4 * k + 4]),
                translation: Vec3::from_slice(&tv[3 * k..3 * k + 3]),
                scale: Vec3::from_slice(&sv[3 * k..3 * k + 3]),
            };
            l.check().map_err(|e| {
                value_error(format!(
                    "frame {}, joint {}: the transform {e}",
                    k / j.max(1),
                    k % j.max(1)
                ))
            })?;
            locals.push(l);
        }
        let sk = skeleton.map(|s| s.inner.clone());
        if let Some(s) = &sk {
            if s.bones.len() != j {
                return Err(value_error(format!(
                    "skeleton `{}` has {} bones and the arrays {j}",
                    s.name,
                    s.bones.len()
                )));
            }
        }
        let mut named = Vec::new();
        for (key, values) in curves.into_iter().flat_map(|d| d.iter()) {
            let name: String = key
                .extract()
                .map_err(|_| value_error("curves: the names must be strings"))?;
            let what = format!("curves[{name:?}]");
            let column = values
                .call_method1("reshape", ((-1, 1),))
                .unwrap_or_else(|_| values.clone());
            let (shape, v) = arrays::input(&column, &what, &[1], 1, "(N,)")?;
            let flat = values
                .getattr("ndim")
                .and_then(|d| d.extract::<usize>())
                .ok()
                == Some(1);
            if !flat || shape[0] != n {
                return Err(value_error(format!(
                    "{what}: one value per time expected, (N,) with N = {n}"
                )));
            }
            named.push((name, v));
        }
        Ok(Motion {
            name: name.to_string(),
            times,
            locals,
            joints: j,
            animated: None,
            skeleton: sk,
            order,
            curves: named,
        })
    }

    /// The clip's name.
    #[getter]
    fn name(&self) -> String {
        self.name.clone()
    }

    /// The skeleton it animates (the one sampled from or given), or None.
    #[getter]
    fn skeleton(&self) -> Option<Skeleton> {
        self.skeleton.clone().map(|inner| Skeleton { inner })
    }

    /// Sample times in seconds, float32 (N,).
    #[getter]
    fn times<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        arrays::out(py, &[self.times.len()], self.times.clone())
    }

    /// Float curves, name → float32 (N,), a value per time: the clip's curves sampled at
    /// `times` (`Clip.curves`), or those given. Planting's contacts from foot-lock curves:
    /// `np.stack([c["FootLock_L"], c["FootLock_R"]], 1) >= 0.5` (`Retargeter.retarget`'s
    /// `contacts`).
    #[getter]
    fn curves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (name, values) in &self.curves {
            out.set_item(name, arrays::out(py, &[values.len()], values.clone())?)?;
        }
        Ok(out)
    }

    /// Local rotations, float32 (N, J, 4): unit quaternions in (x, y, z, w) order as glTF, or
    /// (w, x, y, z) when sampled or made with `order="wxyz"` (see `order`).
    #[getter]
    fn rotations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let q: Vec<Quat> = self.locals.iter().map(|l| l.rotation).collect();
        arrays::quats(py, &[self.times.len(), self.joints], &q, self.order)
    }

    /// The quaternion order of `rotations`: "xyzw" (glTF) or "wxyz".
    #[getter]
    fn order(&self) -> &'static str {
        match self.order {
            Order::Xyzw => "xyzw",
            Order::Wxyz => "wxyz",
        }
    }

    /// Local translations, float32 (N, J, 3), in the skeleton's units.
    #[getter]
    fn translations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let v: Vec<Vec3> = self.locals.iter().map(|l| l.translation).collect();
        arrays::vecs(py, &[self.times.len(), self.joints], &v)
    }

    /// Local scales, float32 (N, J, 3).
    #[getter]
    fn scales<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let v: Vec<Vec3> = self.locals.iter().map(|l| l.scale).collect();
        arrays::vecs(py, &[self.times.len(), self.joints], &v)
    }

    /// World positions of every bone per frame, float32 (N, J, 3), the skeleton's base
    /// transform included (the library's `Pose::world`). `skeleton`: the one sampled from
    /// when None.
    #[pyo3(signature = (skeleton=None))]
    fn world_positions<'py>(
        &self,
        py: Python<'py>,
        skeleton: Option<PyRef<'_, Skeleton>>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let s = self.skeleton_for(skeleton.as_deref())?;
        let mut out = Vec::with_capacity(self.locals.len());
        for frame in self.locals.chunks(self.joints.max(1)) {
            let pose = Pose {
                locals: frame.to_vec(),
            };
            out.extend(pose.world(&s).iter().map(|m| m.w_axis.truncate()));
        }
        arrays::vecs(py, &[self.times.len(), self.joints], &out)
    }

    /// Writes the motion as BVH with the library's BVH writer (as `skelnorm convert x.bvh`):
    /// `bvh_order` the rotation channels' order, `unit` "cm" (default) or "m", `fps` None for
    /// the motion's own (uniform) rate, else 30. `skeleton`: the one sampled from when None.
    #[pyo3(signature = (path, skeleton=None, *, bvh_order="zxy", unit="cm", fps=None))]
    fn to_bvh(
        &self,
        path: PathBuf,
        skeleton: Option<PyRef<'_, Skeleton>>,
        bvh_order: &str,
        unit: &str,
        fps: Option<f32>,
    ) -> PyResult<()> {
        let s = self.skeleton_for(skeleton.as_deref())?;
        let options = BvhWriteOptions {
            order: self::bvh_order(bvh_order)?,
            fps,
            scale: match unit {
                "cm" => 100.0,
                "m" => 1.0,
                _ => {
                    return Err(value_error(format!(
                        "unit `{unit}`: must be \"cm\" or \"m\""
                    )))
                }
            },
        };
        let text = bvh_io::write(&s, &self.to_clip(&s), &options)
            .map_err(|e| value_error(format!("{}: cannot write BVH: {e}", path.display())))?;
        skelnorm::gltf_io::write_file(&path, text.as_bytes())
            .map_err(|e| io_error(format!("{}: cannot write: {e}", path.display()), &e))
    }

    fn __len__(&self) -> usize {
        self.times.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<skelnorm.Motion {:?}: {} frames × {} bones>",
            self.name,
            self.times.len(),
            self.joints
        )
    }
}
