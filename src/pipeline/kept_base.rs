//! A retarget side whose nodes kept above its skeleton (`rest.apply_node_transforms: false`)
//! turn its up axis off +Y (a Z-up armature node): the retarget reads each side in its
//! skeleton's own space, so for it that turn is folded into the root bones (their rests and
//! keys) of a copy, and unfolded from the clips the retarget writes for the target, which then
//! play in the scene as the target stands. Plain model math; imports only `model`.

use crate::model::{Clip, Skeleton, Track, Transform};
use glam::{Mat4, Quat, Vec3};
use std::borrow::Cow;

/// The turn of the nodes above `skeleton` when it tilts its up axis off +Y by more than 0.01°
/// and scales evenly (positive, uniform within 1e-4): what [`folded`] takes out. `None`
/// otherwise: a turn about +Y alone is the facing's (the plan reads it), an uneven or negative
/// scale cannot be taken out by a turn.
pub(super) fn kept_turn(skeleton: &Skeleton) -> Option<Quat> {
    let (scale, rotation, _) = skeleton.base.to_scale_rotation_translation();
    let tilt = (rotation * Vec3::Y).angle_between(Vec3::Y).to_degrees();
    let even = (scale.max_element() - scale.min_element()).abs() <= 1e-4 * scale.max_element()
        && scale.min_element() > 0.0;
    (tilt > 0.01 && even).then_some(rotation.normalize())
}

/// `skeleton` with `turn` taken out of its base and put on its root bones' rests: every joint
/// stays where it was in the scene.
pub(super) fn folded(skeleton: &Skeleton, turn: Quat) -> Skeleton {
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
pub(super) fn turned_roots(clip: &Clip, skeleton: &Skeleton, turn: Quat) -> Clip {
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
pub(super) fn as_read<'a>(
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

fn turned(t: Transform, turn: Quat) -> Transform {
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
