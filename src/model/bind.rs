//! Moving a skin's mesh into a new bind (issue 40): the transform that places a skin's mesh
//! at rest, found from the skeleton alone, and the per-joint matrices ([`Skin::bake`]) that move
//! the vertices so that a client building its rest from the inverse bind matrices (Blender's
//! glTF importer, "Guess Original Bind Pose") shows the character as the rest shows it.
//!
//! glTF skins a vertex as `J_j · IBM_j · v` in the scene: the mesh node's transform is ignored.
//! Blender builds each edit bone from `IBM_j⁻¹` in the space of the armature object (the node
//! above the joints), and puts the mesh there with the bind of the root joint:
//! `io_scene_gltf2/blender/imp/vnode.py` (`pick_bind_pose`: a joint's bind, relative to its
//! parent, is `IBM_parent · IBM_j⁻¹`; the root joint's parent has the identity when it is the
//! skin's `skeleton` or the scene, else the root joint keeps its node's rest) and `mesh.py`
//! (`skin_into_bind_pose`: vertices skinned by `bind_j · IBM_j`). With `G_j` a joint's rest in
//! the skeleton's own space (below [`Skeleton::base`]), `C_j = G_j · IBM_j` is where the mesh's
//! bind space sits in that space; it is the same `C` for every joint bound in its rest, and
//! Blender shows bones and mesh right exactly when `C` is the identity. Folding `M = C` into the
//! vertices (`v' = M · v`) and the inverse bind matrices (`IBM' = IBM · M⁻¹`) is exact: one
//! matrix for every joint. `C` is taken from the skin's root-most joint: the silhouette fix
//! turns bones away from their bind (the A-pose stays the bind), so below a turned bone every
//! joint has a `C` of its own, while Blender places the whole mesh by the root joint's. The
//! transform is taken from the output's own rest, so an output gives the identity and
//! normalizing it again changes nothing.
//!
//! Rebinding makes the rest the bind: `B_j = R_j · IBM_j` per joint, with `R_j` the joint's rest
//! `G_j` without its scale (Blender's importer drops the binds' scales), which linear blend
//! skinning bakes into the vertices (exact for a vertex on one joint, not for one shared by
//! joints whose `B_j` differ); the written inverse bind matrices are then `R_j⁻¹`.

use super::{Skeleton, Warning, WarningCode};
use glam::{DMat4, DVec3, Mat4};
use serde::Serialize;

/// A bind transform within this much of the identity is none: matrix elements of its linear
/// part, and its translation relative to the skeleton's height (f32 roundings of a written
/// output stay far below it, so normalizing an output again finds none).
const BIND_TOLERANCE: f64 = 1e-5;

/// What became of one skin's bind.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SkinBind {
    /// The skin: its name, or `skin <index in the skeleton>`.
    pub skin: String,
    /// Whether its vertices move into a new bind when the file is written.
    pub moved: bool,
    /// Whether the new bind is the rest (`--rebind`, or a skin no mesh uses), rather than the
    /// old bind in the skeleton's space.
    pub rebind: bool,
    /// The scale of the root-most joint's bind transform (0.01 for a centimetre mesh under a
    /// 0.01-scaled armature whose inverse bind matrices leave that scale out).
    pub scale: f32,
    /// Its rotation, degrees.
    pub rotation_deg: f32,
    /// Its translation, relative to the skeleton's height.
    pub offset: f32,
    /// With `rebind`: the largest distance of a vertex from where the exact skin puts it,
    /// without animation and at any frame (30 per second) of any clip, relative to the
    /// skeleton's height (linear blend skinning into a new bind is exact only for vertices on
    /// one joint). Measured by the writer's side (`gltf_io::BindMeasure`); absent when not
    /// measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub displacement: Option<f32>,
}

/// What [`fold_bind`] did: per skin, and what it could not do.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BindFold {
    /// Per skin of the skeleton, in order.
    pub skins: Vec<SkinBind>,
    /// Skins whose vertices could not move (`bind_kept`), naming the mesh.
    pub warnings: Vec<Warning>,
}

/// Sets [`Skin::bake`](super::Skin::bake) of every skin of `s` whose bind is not its skeleton's
/// space: one transform for every joint (the root-most joint's `C`), or, with `rebind`, each
/// joint's own `C_j`, so the bind becomes the rest. A skin whose vertices cannot be rewritten
/// ([`Skin::fixed_vertices`](super::Skin::fixed_vertices)) keeps its bind, with a warning.
pub fn fold_bind(s: &mut Skeleton, rebind: bool) -> BindFold {
    let locals: Vec<DMat4> = s
        .bones
        .iter()
        .map(|b| b.rest.to_mat4().as_dmat4())
        .collect();
    let world = s.accumulate(DMat4::IDENTITY, locals, |p, l| p * l);
    let depths = s.depths();
    let height = f64::from(super::extent(
        &world
            .iter()
            .map(|m| m.w_axis.truncate().as_vec3())
            .collect::<Vec<_>>(),
    ))
    .max(1e-6);
    let mut out = BindFold::default();
    for (k, skin) in s.skins.iter_mut().enumerate() {
        let name = if skin.name.is_empty() {
            format!("skin {k}")
        } else {
            skin.name.clone()
        };
        let binds: Vec<DMat4> = skin
            .joints
            .iter()
            .zip(&skin.inverse_bind_matrices)
            .map(|(j, ibm)| world[j.index()] * ibm.as_dmat4())
            .collect();
        let Some(root) = (0..skin.joints.len()).min_by_key(|&n| {
            let j = skin.joints[n].index();
            (depths[j], j)
        }) else {
            continue;
        };
        let m = binds[root];
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        let mut report = SkinBind {
            skin: name.clone(),
            moved: false,
            rebind,
            scale: scale.x as f32,
            rotation_deg: rotation.angle_between(glam::DQuat::IDENTITY).to_degrees() as f32,
            offset: (translation.length() / height) as f32,
            displacement: None,
        };
        // A skin no mesh uses places nothing: its bind may as well be the rest.
        let rebind = rebind || skin.meshless;
        report.rebind = rebind;
        let bake: Vec<DMat4> = match rebind {
            // Blender builds edit bones from the binds' rotations and translations alone: a
            // joint's new bind is its rest without scale (exact for vertices on one joint; the
            // scale stays in the rest).
            true => skin
                .joints
                .iter()
                .zip(&skin.inverse_bind_matrices)
                .map(|(j, ibm)| rigid(&world[j.index()]) * ibm.as_dmat4())
                .collect(),
            false => vec![m; skin.joints.len()],
        };
        if bake.iter().all(|b| is_identity(b, height)) {
            out.skins.push(report);
            continue;
        }
        if let Some(why) = &skin.fixed_vertices {
            out.warnings.push(Warning::new(
                WarningCode::BindKept,
                format!(
                    "skin `{name}` keeps its bind (its mesh is not where its skeleton is, for clients that build the rest from the inverse bind matrices): {why}"
                ),
            ));
        } else {
            skin.bake = bake.iter().map(DMat4::as_mat4).collect();
            report.moved = true;
        }
        out.skins.push(report);
    }
    out
}

/// `m` without its scale: its rotation, then its translation.
fn rigid(m: &DMat4) -> DMat4 {
    let (_, r, t) = m.to_scale_rotation_translation();
    DMat4::from_rotation_translation(r, t)
}

/// Whether `m` is the identity within [`BIND_TOLERANCE`] (its translation relative to
/// `height`).
fn is_identity(m: &DMat4, height: f64) -> bool {
    let linear = [m.x_axis, m.y_axis, m.z_axis];
    let unit = [DVec3::X, DVec3::Y, DVec3::Z];
    linear
        .iter()
        .zip(unit)
        .all(|(c, u)| (c.truncate() - u).abs().max_element() <= BIND_TOLERANCE)
        && m.w_axis.truncate().abs().max_element() <= BIND_TOLERANCE * height
        && (m.row(3) - glam::DVec4::W).abs().max_element() <= BIND_TOLERANCE
}

/// `Σ w_j · B_j` for one vertex, its weights normalized (an unweighted vertex stays: the
/// identity); what the writer bakes into a vertex of joints `joints` weighted `weights`.
pub fn blend(bake: &[Mat4], joints: &[f32], weights: &[f32]) -> Mat4 {
    let mut sum = Mat4::ZERO;
    let mut total = 0.0;
    for (&j, &w) in joints.iter().zip(weights) {
        if w > 0.0 {
            if let Some(b) = bake.get(j as usize) {
                sum += *b * w;
                total += w;
            }
        }
    }
    if total > 0.0 {
        sum * (1.0 / total)
    } else {
        Mat4::IDENTITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::chain;
    use crate::model::{BoneId, Skin};
    use glam::{Quat, Vec3};

    fn skinned(ibms: impl Fn(usize, Mat4) -> Mat4) -> Skeleton {
        let mut s = chain(3);
        let world = s.rest_world();
        s.skins.push(Skin {
            name: String::new(),
            joints: (0..3).map(BoneId).collect(),
            inverse_bind_matrices: world
                .iter()
                .enumerate()
                .map(|(i, m)| ibms(i, m.inverse()))
                .collect(),
            source: Some(0),
            bake: Vec::new(),
            fixed_vertices: None,
            meshless: false,
        });
        s
    }

    #[test]
    fn a_skin_bound_in_its_rest_keeps_its_bind() {
        let mut s = skinned(|_, m| m);
        let r = fold_bind(&mut s, false);
        assert!(s.skins[0].bake.is_empty());
        assert!(!r.skins[0].moved && r.warnings.is_empty());
        assert!(fold_bind(&mut s, true).skins.iter().all(|b| !b.moved));
    }

    #[test]
    fn a_centimetre_bind_folds_into_one_transform_that_keeps_every_skinning_matrix() {
        // IBMs of a mesh in centimetres, turned a quarter about X (a Z-up export).
        let c = Mat4::from_scale_rotation_translation(
            Vec3::splat(0.01),
            Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
            Vec3::new(0.0, 0.0, 0.5),
        );
        let mut s = skinned(|_, m| m * c);
        let r = fold_bind(&mut s, false);
        assert!(r.skins[0].moved, "{r:?}");
        assert!((r.skins[0].scale - 0.01).abs() < 1e-6);
        assert!((r.skins[0].rotation_deg - 90.0).abs() < 1e-3);
        let skin = &s.skins[0];
        let world = s.rest_world();
        for (n, b) in skin.bake.iter().enumerate() {
            assert!(b.abs_diff_eq(c, 1e-6), "{b} != {c}");
            // Written: IBM · B⁻¹, vertices B · v: the same skin.
            let written = skin.inverse_bind_matrices[n] * b.inverse();
            let at_rest = world[skin.joints[n].index()] * written;
            assert!(at_rest.abs_diff_eq(Mat4::IDENTITY, 1e-5), "{at_rest}");
        }
    }

    #[test]
    fn rebinding_bakes_each_joints_own_bind_and_a_fixed_mesh_keeps_its_bind() {
        let turn = Mat4::from_rotation_z(0.5);
        let mut s = skinned(|i, m| if i == 2 { m * turn } else { m });
        assert!(fold_bind(&mut s.clone(), false)
            .skins
            .iter()
            .all(|b| !b.moved));
        let r = fold_bind(&mut s, true);
        assert!(r.skins[0].moved);
        assert!(s.skins[0].bake[2].abs_diff_eq(turn, 1e-6));
        assert!(s.skins[0].bake[0].abs_diff_eq(Mat4::IDENTITY, 1e-6));
        let mut fixed = skinned(|_, m| m * turn);
        fixed.skins[0].fixed_vertices = Some("mesh `Body`: Draco".into());
        let r = fold_bind(&mut fixed, false);
        assert!(fixed.skins[0].bake.is_empty());
        assert_eq!(r.warnings[0].code, WarningCode::BindKept);
        assert!(
            r.warnings[0].message.contains("Body"),
            "{}",
            r.warnings[0].message
        );
    }

    #[test]
    fn blend_weighs_and_normalizes() {
        let a = Mat4::from_translation(Vec3::X);
        let b = Mat4::from_translation(Vec3::Y);
        let m = blend(&[a, b], &[0.0, 1.0, 0.0, 0.0], &[1.0, 3.0, 0.0, 0.0]);
        let p = m.transform_point3(Vec3::ZERO);
        assert!((p - Vec3::new(0.25, 0.75, 0.0)).length() < 1e-6, "{p}");
        assert_eq!(blend(&[a], &[0.0; 4], &[0.0; 4]), Mat4::IDENTITY);
    }
}
