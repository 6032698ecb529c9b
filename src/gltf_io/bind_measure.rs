//! How far rebinding moves vertices from the exact skin (issue 40; see [`super::bake`]): for
//! each skin whose joints bake differently ([`Skin::bake`]), the largest distance over its
//! meshes' vertices, without animation and at every frame of every clip, of where the new bind
//! puts a vertex from where the old one did.

use super::accessor::Data;
use super::bake::{influences, vertex_matrices};
use super::error::ErrorKind;
use crate::model::{Model, Skin};
use glam::{Mat3, Mat4, Vec3};
use gltf::json::accessor::Type;
use gltf::json::mesh::Semantic;
use gltf::json::validation::Checked;
use gltf::json::Root;

/// Measures how far rebinding ([`Skin::bake`] with a matrix per joint) moves vertices from where
/// the exact skin puts them: made by [`super::Document::bind_measure`] from the document as
/// read, it shares its buffers.
pub struct BindMeasure {
    path: std::path::PathBuf,
    root: Root,
    buffers: Vec<super::buffers::BufferData>,
}

/// The largest displacement of the vertices of one skin that a rebind moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Displacement {
    /// The skeleton.
    pub skeleton: crate::model::SkeletonId,
    /// The skin's place in the skeleton's skins.
    pub skin: usize,
    /// The largest distance of a vertex from where the exact skin puts it, without animation
    /// and at every frame (30 per second) of every clip, relative to the skeleton's height.
    pub max: f32,
}

/// Frames per second at which [`BindMeasure::measure`] samples clips (as the skin check does).
const FPS: f32 = 30.0;

/// One vertex that joints with different bakes share: per influence, its joint, weight and
/// `v − B_j⁻¹ · v'` (what joint j's skinning matrix carries off the exact place).
type Shared = Vec<(usize, f32, Vec3)>;

impl BindMeasure {
    pub(crate) fn new(
        path: &std::path::Path,
        root: Root,
        buffers: Vec<super::buffers::BufferData>,
    ) -> BindMeasure {
        BindMeasure {
            path: path.to_path_buf(),
            root,
            buffers,
        }
    }

    /// The largest displacement of every skin of `model` that bakes a matrix per joint, in
    /// skeleton and skin order. Morph target deltas are left out.
    pub fn measure(&self, model: &Model) -> Result<Vec<Displacement>, super::Error> {
        let fail = |kind| super::Error {
            file: self.path.clone(),
            kind,
        };
        let mut data = Data::new(&self.root, &self.buffers);
        let mut out = Vec::new();
        for (k, s) in model.skeleton_ids().zip(&model.skeletons) {
            for (n, skin) in s.skins.iter().enumerate() {
                let one = skin.bake.iter().all(|b| *b == skin.bake[0]);
                let Some(source) = skin.source.filter(|_| !one) else {
                    continue;
                };
                let shared = self
                    .shared(&mut data, skin, source as usize)
                    .map_err(fail)?;
                let max = worst(model, k, skin, &shared) / s.height().max(1e-9);
                out.push(Displacement {
                    skeleton: k,
                    skin: n,
                    max,
                });
            }
        }
        Ok(out)
    }

    /// The vertices of the meshes skin `k` (`skin`) deforms whose joints bake differently.
    fn shared(&self, data: &mut Data, skin: &Skin, k: usize) -> Result<Vec<Shared>, ErrorKind> {
        let inverse: Vec<Mat4> = skin.bake.iter().map(Mat4::inverse).collect();
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for node in self
            .root
            .nodes
            .iter()
            .filter(|n| n.skin.map(|s| s.value()) == Some(k))
        {
            let Some(mesh) = node.mesh.and_then(|m| self.root.meshes.get(m.value())) else {
                continue;
            };
            for prim in &mesh.primitives {
                let Some(pos) = prim.attributes.iter().find_map(|(s, a)| match s {
                    Checked::Valid(Semantic::Positions) => Some(a.value()),
                    _ => None,
                }) else {
                    continue;
                };
                let sets = influences(prim);
                if !seen.insert((pos, sets.clone())) {
                    continue;
                }
                let (v, _) = data.floats(pos, &[Type::Vec3])?;
                let mats = vertex_matrices(data, skin, &sets)?;
                let mut joints: Vec<Vec<f32>> = Vec::new();
                let mut weights: Vec<Vec<f32>> = Vec::new();
                for pair in sets.chunks_exact(2) {
                    joints.push(data.floats(pair[0], &[Type::Vec4])?.0);
                    weights.push(data.floats(pair[1], &[Type::Vec4])?.0);
                }
                for (i, (p, m)) in v.chunks_exact(3).zip(&mats).enumerate() {
                    let p = Vec3::from_slice(p);
                    let moved = m.transform_point3(p);
                    let mut one: Shared = Vec::new();
                    let mut total = 0.0;
                    for (js, ws) in joints.iter().zip(&weights) {
                        for c in 4 * i..4 * i + 4 {
                            let (j, w) = (
                                js.get(c).copied().unwrap_or(0.0),
                                ws.get(c).copied().unwrap_or(0.0),
                            );
                            let Some(inv) = inverse.get(j as usize).filter(|_| w > 0.0) else {
                                continue;
                            };
                            one.push((j as usize, w, p - inv.transform_point3(moved)));
                            total += w;
                        }
                    }
                    if one.iter().any(|(_, _, e)| e.length_squared() > 0.0) && total > 0.0 {
                        one.iter_mut().for_each(|(_, w, _)| *w /= total);
                        out.push(one);
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The largest `|Σ w_j · L_j(t) · e_j|` over `shared` (see [`Shared`]), with `L_j(t)` the linear
/// part of joint j's skinning matrix, without animation and at every frame of every clip of
/// skeleton `k` (30 per second, both ends).
fn worst(model: &Model, k: crate::model::SkeletonId, skin: &Skin, shared: &[Shared]) -> f32 {
    use crate::model::Pose;
    let s = model.skeleton(k);
    let rest = Pose::rest(s);
    let mut largest = 0.0f32;
    let mut at = |pose: &Pose| {
        let world = pose.world(s);
        let linear: Vec<Mat3> = skin
            .joints
            .iter()
            .zip(&skin.inverse_bind_matrices)
            .map(|(j, ibm)| Mat3::from_mat4(world[j.index()] * *ibm))
            .collect();
        for one in shared {
            let d: Vec3 = one.iter().map(|&(j, w, e)| linear[j] * e * w).sum();
            largest = largest.max(d.length());
        }
    };
    at(&rest);
    let mut pose = rest.clone();
    for clip in model.clips.iter().filter(|c| c.skeleton == k) {
        let duration = clip.duration();
        let n = ((duration * FPS).round() as usize + 1).max(2);
        for f in 0..n {
            let t = duration * f as f32 / (n - 1) as f32;
            pose.locals.clone_from(&rest.locals);
            pose.sample_into(clip, t);
            at(&pose);
        }
    }
    largest
}
