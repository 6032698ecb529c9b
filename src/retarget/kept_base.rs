//! A retarget side whose nodes kept above its skeleton (`rest.apply_node_transforms: false`)
//! turn its up axis off +Y (a Z-up armature node): the retarget reads each side in its
//! skeleton's own space, so for it that turn is folded into the root bones (their rests and
//! keys) of a copy, and unfolded from the clips the retarget writes for the target, which then
//! play in the scene as the target stands. The runtime [`Retargeter`](super::Retargeter) folds
//! it the same way, pose by pose (`turned` on the root bones' locals), and the pipeline's
//! retarget on whole clips. Plain model math; imports only `model`.

use crate::model::{Clip, Skeleton, Track, Transform};
use glam::{Mat4, Quat, Vec3};
use std::borrow::Cow;

/// The turn of the nodes above `skeleton` when it tilts its up axis off +Y by more than 0.01°
/// and scales evenly (positive, uniform within 1e-4): what [`folded`] takes out. `None`
/// otherwise: a turn about +Y alone is the facing's (the plan reads it), an uneven or negative
/// scale cannot be taken out by a turn.
pub(crate) fn kept_turn(skeleton: &Skeleton) -> Option<Quat> {
    let (scale, rotation, _) = skeleton.base.to_scale_rotation_translation();
    let tilt = (rotation * Vec3::Y).angle_between(Vec3::Y).to_degrees();
    let even = (scale.max_element() - scale.min_element()).abs() <= 1e-4 * scale.max_element()
        && scale.min_element() > 0.0;
    (tilt > 0.01 && even).then_some(rotation.normalize())
}

/// `skeleton` with `turn` taken out of its base and put on its root bones' rests: every joint
/// stays where it was in the scene.
pub(crate) fn folded(skeleton: &Skeleton, turn: Quat) -> Skeleton {
    let mut out = skeleton.clone();
    out.base = skeleton.base * Mat4::from_quat(turn.inverse());
    for b in out.bones.iter_mut().filter(|b| b.parent.is_none()) {
        b.rest = turned(b.rest, turn);
    }
    out
}

/// `clip` (a clip of `skeleton`) with its root bones' keys turned by `turn`: played on
/// [`folded`]`(skeleton, turn)` it moves every joint as before; `turn⁻¹` gives a clip of the
/// folded skeleton back to the kept one.
pub(crate) fn turned_roots(clip: &Clip, skeleton: &Skeleton, turn: Quat) -> Clip {
    let mut out = clip.clone();
    for (b, tracks) in skeleton.bones.iter().zip(out.tracks.iter_mut()) {
        if b.parent.is_some() {
            continue;
        }
        if let Some(t) = &mut tracks.translation {
            *t = mapped(t, |v| turn * v);
        }
        if let Some(t) = &mut tracks.rotation {
            // Left-multiplying is linear in the quaternion: cubic-spline tangents map alike.
            *t = mapped(t, |q| turn * q);
        }
    }
    out
}

/// A side and one of its clips as the retarget reads them: with the kept turn [`folded`] into
/// the root bones where [`kept_turn`] finds one, as they are otherwise.
pub(crate) fn as_read<'a>(
    skeleton: &'a Skeleton,
    clip: &'a Clip,
) -> (Cow<'a, Skeleton>, Cow<'a, Clip>) {
    match kept_turn(skeleton) {
        Some(q) => (
            Cow::Owned(folded(skeleton, q)),
            Cow::Owned(turned_roots(clip, skeleton, q)),
        ),
        None => (Cow::Borrowed(skeleton), Cow::Borrowed(clip)),
    }
}

/// `t` (a root bone's local transform) turned by `turn`: where [`folded`] puts it.
pub(crate) fn turned(t: Transform, turn: Quat) -> Transform {
    Transform {
        translation: turn * t.translation,
        rotation: (turn * t.rotation).normalize(),
        scale: t.scale,
    }
}

fn mapped<T: Copy>(track: &Track<T>, f: impl Fn(T) -> T) -> Track<T> {
    Track {
        interpolation: track.interpolation,
        times: track.times.clone(),
        values: track.values.iter().map(|&v| f(v)).collect(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code: a panic is how a test fails")]
    use super::*;
    use crate::model::{Bone, BoneId, BoneTracks, Interpolation, Pose, SkeletonId};

    /// Two roots (hips and a prop), a child, under a base that scales, tilts Z-up and moves;
    /// the clip keys both roots and the child.
    fn rig() -> (Skeleton, Clip) {
        let bone = |name: &str, parent: Option<u32>, t: Vec3, r: Quat| Bone {
            name: name.into(),
            parent: parent.map(BoneId),
            rest: Transform {
                translation: t,
                rotation: r,
                scale: Vec3::ONE,
            },
            is_joint: true,
            weighted: None,
            node: None,
        };
        let skeleton = Skeleton {
            name: "rig".into(),
            bones: vec![
                bone(
                    "hips",
                    None,
                    Vec3::new(0.0, 0.0, 95.0),
                    Quat::from_rotation_x(1.2),
                ),
                bone("spine", Some(0), Vec3::new(0.0, 10.0, 0.0), Quat::IDENTITY),
                bone(
                    "prop",
                    None,
                    Vec3::new(40.0, 0.0, 0.0),
                    Quat::from_rotation_z(0.4),
                ),
            ],
            skins: vec![],
            attachments: vec![],
            base: Mat4::from_scale_rotation_translation(
                Vec3::splat(0.01),
                Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
                Vec3::new(1.0, 0.0, 2.0),
            ),
            base_nodes: vec![0],
            declared: None,
        };
        let times: std::sync::Arc<[f32]> = vec![0.0, 0.5, 1.0].into();
        let rot = |axis: Vec3| Track {
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: (times.iter())
                .map(|t| Quat::from_axis_angle(axis.normalize(), 1.5 * t))
                .collect(),
        };
        let mut tracks = vec![BoneTracks::default(); 3];
        tracks[0].rotation = Some(rot(Vec3::new(0.3, 1.0, 0.2)));
        tracks[0].translation = Some(Track {
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: times
                .iter()
                .map(|t| Vec3::new(20.0 * t, 3.0, 95.0))
                .collect(),
        });
        tracks[1].rotation = Some(rot(Vec3::X));
        tracks[2].rotation = Some(rot(Vec3::Z));
        let clip = Clip {
            name: "walk".into(),
            skeleton: SkeletonId(0),
            tracks,
            opaque: vec![],
            source: None,
            motion_scale: None,
            curves: Vec::new(),
        };
        (skeleton, clip)
    }

    /// Joint positions in the scene (`Pose::world` includes the base).
    fn scene(s: &Skeleton, c: &Clip, t: f32) -> Vec<Vec3> {
        (Pose::sample(s, c, t).world(s).iter())
            .map(|m| m.w_axis.truncate())
            .collect()
    }

    /// Folded, the skeleton's base no longer tilts, and every joint is where it was in the scene
    /// at rest and at every time of the clip with its roots' keys turned; turning them back
    /// gives the clip again.
    #[test]
    fn folding_keeps_every_joint_in_the_scene_and_unfolds_back() {
        let (s, c) = rig();
        let q = kept_turn(&s).unwrap();
        let f = folded(&s, q);
        assert!(kept_turn(&f).is_none(), "{}", f.base);
        let fc = turned_roots(&c, &s, q);
        for t in [0.0, 0.25, 0.5, 0.8, 1.0] {
            for (a, b) in scene(&s, &c, t).iter().zip(scene(&f, &fc, t)) {
                assert!(a.distance(b) < 1e-5, "{t}: {a} against {b}");
            }
        }
        let back = turned_roots(&fc, &f, q.inverse());
        for (a, b) in c.tracks.iter().zip(&back.tracks) {
            let (x, y) = (a.rotation.as_ref().unwrap(), b.rotation.as_ref().unwrap());
            for (p, r) in x.values.iter().zip(y.values.iter()) {
                assert!(p.dot(*r).abs() > 1.0 - 1e-6, "{p} against {r}");
            }
        }
    }

    /// A base that only turns about +Y, or scales unevenly, is not folded.
    #[test]
    fn only_an_even_tilt_is_folded() {
        let (mut s, _) = rig();
        s.base = Mat4::from_rotation_y(1.0);
        assert!(kept_turn(&s).is_none());
        s.base = Mat4::from_scale_rotation_translation(
            Vec3::new(1.0, 2.0, 1.0),
            Quat::from_rotation_x(1.0),
            Vec3::ZERO,
        );
        assert!(kept_turn(&s).is_none());
    }
}
