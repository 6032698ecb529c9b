//! Moving skinned meshes into a new bind (issue 40; the model's side is
//! [`crate::model::fold_bind`]). On read, [`mark_fixed`] tells each skin whose vertices cannot be
//! rewritten why (a Draco-compressed primitive, a mesh also drawn without that skin). On write,
//! [`bake`] computes the new vertex data of every skin with a [`Skin::bake`]: each vertex `v` of
//! joints `j` weighted `w_j` becomes `S · v` with `S = Σ w_j · B_j` (weights normalized), normals
//! by `S`'s inverse transpose and normalized, tangents by its linear part and normalized (their
//! handedness kept, flipped only by a mirroring `S`), morph target deltas by the same linear
//! maps. The patch writes them as new float accessors (sparse, quantized and meshopt-compressed
//! data are read as floats and written plain) and points the primitives at them; the accessors
//! read are dropped when nothing else uses them.

use super::accessor::Data;
use super::error::ErrorKind;
use crate::model::{blend, Model, Skeleton, Skin};
use glam::{Mat3, Mat4, Vec3};
use gltf::json::accessor::Type;
use gltf::json::mesh::Semantic;
use gltf::json::validation::Checked;
use gltf::json::Root;
use std::collections::HashMap;
use std::sync::Arc;

/// Sets [`Skin::fixed_vertices`] of every skin read from `root` whose vertices cannot be
/// rewritten, naming the mesh and why, and [`Skin::meshless`] of those no mesh uses.
pub(crate) fn mark_fixed(root: &Root, skeletons: &mut [Skeleton]) {
    let mut why: HashMap<usize, String> = HashMap::new();
    let mesh_name = |m: usize| {
        let name = root.meshes.get(m).and_then(|x| x.name.as_deref());
        format!("mesh `{}` (meshes[{m}])", name.unwrap_or(""))
    };
    for node in &root.nodes {
        let (Some(m), Some(k)) = (node.mesh, node.skin) else {
            continue;
        };
        let (m, k) = (m.value(), k.value());
        if why.contains_key(&k) {
            continue;
        }
        let other = root.nodes.iter().enumerate().find(|(_, n)| {
            n.mesh.map(|x| x.value()) == Some(m) && n.skin.map(|x| x.value()) != Some(k)
        });
        if let Some((n, _)) = other {
            why.insert(
                k,
                format!(
                    "{} is also drawn by nodes[{n}] without skins[{k}]",
                    mesh_name(m)
                ),
            );
            continue;
        }
        let prims = root.meshes.get(m).map_or(&[][..], |x| &x.primitives);
        let draco = prims.iter().position(is_draco);
        if let Some(p) = draco {
            why.insert(
                k,
                format!("{} primitive {p} is Draco-compressed", mesh_name(m)),
            );
        }
    }
    let used: std::collections::HashSet<usize> = root
        .nodes
        .iter()
        .filter(|n| n.mesh.is_some())
        .filter_map(|n| n.skin.map(|k| k.value()))
        .collect();
    for skin in skeletons.iter_mut().flat_map(|s| s.skins.iter_mut()) {
        if let Some(w) = skin.source.and_then(|k| why.get(&(k as usize))) {
            skin.fixed_vertices = Some(w.clone());
        }
        skin.meshless = skin.source.is_some_and(|k| !used.contains(&(k as usize)));
    }
}

/// Whether primitive `prim` is Draco-compressed (`KHR_draco_mesh_compression`, an extension the
/// typed document holds as it reads it).
pub(crate) fn is_draco(prim: &gltf::json::mesh::Primitive) -> bool {
    let ext = prim.extensions.as_ref();
    ext.is_some_and(|e| e.others.contains_key("KHR_draco_mesh_compression"))
}

/// New vertex data: floats of glTF type `ty`, with bounds (`min`/`max`) when `bounds`.
pub(crate) struct NewData {
    pub floats: Arc<[f32]>,
    pub ty: &'static str,
    pub bounds: bool,
}

/// What [`bake`] computed: the new data, and which attribute slots (JSON pointers into the
/// document, such as `/meshes/0/primitives/1/attributes/NORMAL`) take which of them.
#[derive(Default)]
pub(crate) struct Baked {
    pub data: Vec<NewData>,
    pub uses: Vec<(String, usize)>,
}

/// Whether a skin of `model` moves its vertices on write.
pub(crate) fn any(model: &Model) -> bool {
    model
        .skeletons
        .iter()
        .flat_map(|s| &s.skins)
        .any(|s| !s.bake.is_empty() && s.source.is_some())
}

/// What an attribute is, for how it transforms.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Position,
    Normal,
    Tangent,
    PositionDelta,
    NormalDelta,
    TangentDelta,
}

impl Kind {
    fn of(semantic: &Semantic, target: bool) -> Option<Kind> {
        Some(match (semantic, target) {
            (Semantic::Positions, false) => Kind::Position,
            (Semantic::Normals, false) => Kind::Normal,
            (Semantic::Tangents, false) => Kind::Tangent,
            (Semantic::Positions, true) => Kind::PositionDelta,
            (Semantic::Normals, true) => Kind::NormalDelta,
            (Semantic::Tangents, true) => Kind::TangentDelta,
            _ => return None,
        })
    }

    /// The attribute's name, as in `attributes` and in `targets`.
    fn name(self) -> &'static str {
        match self {
            Kind::Position | Kind::PositionDelta => "POSITION",
            Kind::Normal | Kind::NormalDelta => "NORMAL",
            Kind::Tangent | Kind::TangentDelta => "TANGENT",
        }
    }

    fn width(self) -> usize {
        if self == Kind::Tangent {
            4
        } else {
            3
        }
    }

    fn ty(self) -> &'static str {
        if self == Kind::Tangent {
            "VEC4"
        } else {
            "VEC3"
        }
    }
}

/// The key of new vertex data: the accessor read, how it transforms, the skin, and the joint and
/// weight accessors when the skin's bake is not one matrix.
type Key = (usize, Kind, usize, Vec<usize>);

/// Computes the new vertex data of every skin of `model` with a [`Skin::bake`] from the document
/// `root` (as read, its data through `data`).
pub(crate) fn bake(root: &Root, data: &mut Data, model: &Model) -> Result<Baked, ErrorKind> {
    let mut baker = Baker {
        data,
        done: HashMap::new(),
        out: Baked::default(),
    };
    for skin in model.skeletons.iter().flat_map(|s| &s.skins) {
        let Some(k) = skin.source.filter(|_| !skin.bake.is_empty()) else {
            continue;
        };
        let k = k as usize;
        let mut meshes: Vec<usize> = root
            .nodes
            .iter()
            .filter(|n| n.skin.map(|s| s.value()) == Some(k))
            .filter_map(|n| n.mesh.map(|m| m.value()))
            .collect();
        meshes.sort_unstable();
        meshes.dedup();
        for m in meshes {
            let Some(mesh) = root.meshes.get(m) else {
                continue;
            };
            for (p, prim) in mesh.primitives.iter().enumerate() {
                baker.primitive(skin, k, prim, &format!("/meshes/{m}/primitives/{p}"))?;
            }
        }
    }
    Ok(baker.out)
}

/// [`bake`]'s state: the reader, the data made so far (each once), what it made.
struct Baker<'a, 'd> {
    data: &'a mut Data<'d>,
    done: HashMap<Key, usize>,
    out: Baked,
}

impl Baker<'_, '_> {
    /// Bakes one primitive (at JSON pointer `at`) of a mesh skin `k` (`skin`) deforms.
    fn primitive(
        &mut self,
        skin: &Skin,
        k: usize,
        prim: &gltf::json::mesh::Primitive,
        at: &str,
    ) -> Result<(), ErrorKind> {
        let one = skin.bake.iter().all(|b| *b == skin.bake[0]);
        let influences = if one { Vec::new() } else { influences(prim) };
        let mut per_vertex: Option<Vec<Mat4>> = None;
        for (slot, acc, kind) in slots(prim, at) {
            let key = (acc, kind, k, influences.clone());
            if let Some(&i) = self.done.get(&key) {
                self.out.uses.push((slot, i));
                continue;
            }
            let ty = if kind == Kind::Tangent {
                Type::Vec4
            } else {
                Type::Vec3
            };
            let (mut v, _) = self.data.floats(acc, &[ty])?;
            if one {
                transform(&mut v, kind, |_| skin.bake[0]);
            } else {
                if per_vertex.is_none() {
                    per_vertex = Some(vertex_matrices(self.data, skin, &influences)?);
                }
                let mats = per_vertex.as_deref().unwrap_or(&[]);
                transform(&mut v, kind, |i| {
                    mats.get(i).copied().unwrap_or(Mat4::IDENTITY)
                });
            }
            self.out.data.push(NewData {
                floats: v.into(),
                ty: kind.ty(),
                bounds: matches!(kind, Kind::Position | Kind::PositionDelta),
            });
            let i = self.out.data.len() - 1;
            self.done.insert(key, i);
            self.out.uses.push((slot, i));
        }
        Ok(())
    }
}

/// The attribute slots of a primitive (at JSON pointer `at`) that a new bind changes: (JSON
/// pointer, accessor, kind).
fn slots(prim: &gltf::json::mesh::Primitive, at: &str) -> Vec<(String, usize, Kind)> {
    let mut slots = Vec::new();
    for (sem, acc) in &prim.attributes {
        if let Some(kind) = match sem {
            Checked::Valid(s) => Kind::of(s, false),
            Checked::Invalid => None,
        } {
            slots.push((
                format!("{at}/attributes/{}", kind.name()),
                acc.value(),
                kind,
            ));
        }
    }
    for (t, target) in prim.targets.iter().flatten().enumerate() {
        for (acc, kind) in [
            (target.positions, Kind::PositionDelta),
            (target.normals, Kind::NormalDelta),
            (target.tangents, Kind::TangentDelta),
        ] {
            if let Some(acc) = acc {
                slots.push((
                    format!("{at}/targets/{t}/{}", kind.name()),
                    acc.value(),
                    kind,
                ));
            }
        }
    }
    slots
}

/// The accessors of a primitive's joint and weight sets, in pairs (JOINTS_n then WEIGHTS_n).
pub(crate) fn influences(prim: &gltf::json::mesh::Primitive) -> Vec<usize> {
    let mut sets: Vec<(u32, usize, usize)> = Vec::new();
    for (sem, acc) in &prim.attributes {
        let Checked::Valid(Semantic::Joints(set)) = sem else {
            continue;
        };
        let weights = prim.attributes.iter().find_map(|(s, a)| match s {
            Checked::Valid(Semantic::Weights(w)) if w == set => Some(a.value()),
            _ => None,
        });
        if let Some(w) = weights {
            sets.push((*set, acc.value(), w));
        }
    }
    sets.sort_unstable();
    sets.iter().flat_map(|&(_, j, w)| [j, w]).collect()
}

/// `Σ w_j · B_j` per vertex, from the joint and weight sets `influences` (see [`influences`]).
pub(crate) fn vertex_matrices(
    data: &mut Data,
    skin: &Skin,
    influences: &[usize],
) -> Result<Vec<Mat4>, ErrorKind> {
    let mut joints: Vec<Vec<f32>> = Vec::new();
    let mut weights: Vec<Vec<f32>> = Vec::new();
    for pair in influences.chunks_exact(2) {
        joints.push(data.floats(pair[0], &[Type::Vec4])?.0);
        weights.push(data.floats(pair[1], &[Type::Vec4])?.0);
    }
    let count = joints.first().map_or(0, |j| j.len() / 4);
    let mut js = Vec::with_capacity(4 * joints.len());
    let mut ws = Vec::with_capacity(4 * joints.len());
    Ok((0..count)
        .map(|i| {
            js.clear();
            ws.clear();
            for (j, w) in joints.iter().zip(&weights) {
                js.extend_from_slice(j.get(4 * i..4 * i + 4).unwrap_or(&[0.0; 4]));
                ws.extend_from_slice(w.get(4 * i..4 * i + 4).unwrap_or(&[0.0; 4]));
            }
            blend(&skin.bake, &js, &ws)
        })
        .collect())
}

/// Transforms the elements of `v` (each [`Kind::width`] floats) as `kind` does, element `i` by
/// the matrix `at(i)`.
fn transform(v: &mut [f32], kind: Kind, at: impl Fn(usize) -> Mat4) {
    for (i, e) in v.chunks_exact_mut(kind.width()).enumerate() {
        let m = at(i);
        let linear = Mat3::from_mat4(m);
        let normals = || {
            let d = linear.determinant();
            if d.abs() > f32::MIN_POSITIVE {
                linear.inverse().transpose()
            } else {
                linear
            }
        };
        let x = Vec3::new(e[0], e[1], e[2]);
        let y = match kind {
            Kind::Position => m.transform_point3(x),
            Kind::Normal => unit(normals() * x),
            Kind::Tangent => unit(linear * x),
            Kind::PositionDelta | Kind::TangentDelta => linear * x,
            Kind::NormalDelta => normals() * x,
        };
        e[..3].copy_from_slice(&y.to_array());
        if kind == Kind::Tangent && linear.determinant() < 0.0 {
            e[3] = -e[3];
        }
    }
}

/// `v` of unit length, or `v` when it has none (a zero normal stays zero).
fn unit(v: Vec3) -> Vec3 {
    v.try_normalize().unwrap_or(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    #[test]
    fn positions_normals_tangents_and_deltas_transform_as_their_kinds() {
        // A 0.01 scale, a quarter turn about X, an offset; then a mirror.
        let m = Mat4::from_scale_rotation_translation(
            Vec3::splat(0.01),
            Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
            Vec3::new(1.0, 2.0, 3.0),
        );
        let mut p = vec![0.0, 100.0, 0.0];
        transform(&mut p, Kind::Position, |_| m);
        assert!(
            Vec3::from_slice(&p).abs_diff_eq(Vec3::new(1.0, 2.0, 4.0), 1e-5),
            "{p:?}"
        );
        let mut n = vec![0.0, 1.0, 0.0];
        transform(&mut n, Kind::Normal, |_| m);
        assert!(Vec3::from_slice(&n).abs_diff_eq(Vec3::Z, 1e-6), "{n:?}");
        let mut t = vec![1.0, 0.0, 0.0, -1.0];
        transform(&mut t, Kind::Tangent, |_| m);
        assert_eq!(t, vec![1.0, 0.0, 0.0, -1.0]);
        let mut d = vec![0.0, 100.0, 0.0];
        transform(&mut d, Kind::PositionDelta, |_| m);
        assert!(Vec3::from_slice(&d).abs_diff_eq(Vec3::Z, 1e-5), "{d:?}");
        let mirror = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        let mut t = vec![1.0, 0.0, 0.0, 1.0];
        transform(&mut t, Kind::Tangent, |_| mirror);
        assert_eq!(t, vec![-1.0, 0.0, 0.0, -1.0]);
        let mut zero = vec![0.0; 3];
        transform(&mut zero, Kind::Normal, |_| m);
        assert_eq!(zero, vec![0.0; 3]);
    }
}
