//! Steps 4–6 of the rest fix: applies a [`Plan`] to the model. Cannot fail.
//!
//! With `F_i` the change of frame of bone i (new world = old world · `F_i`) and `A_i` the
//! inverse change of its parent's frame (or the fold and turn for a root), every local transform
//! becomes `A_i · L · F_i`: translation `a + s_a·R_a·t`, rotation `R_a·q·R_f`, scale
//! `s_a·s_f·k`. Tangents of cubic splines take the linear part of the same maps. Inverse bind
//! matrices become `F_i⁻¹ · IBM` and attached nodes `F_i⁻¹ · T`, so every joint's skinning
//! matrix is unchanged at every frame.

use super::pose::Plan;
use super::restore::KeyMap;
use super::sim::Sim;
use super::{RestOptions, RestReport};
use crate::model::{
    BoneId, BoneTracks, Clip, Interpolation, Model, SkeletonId, Track, Transform, Warning,
    WarningCode,
};
use glam::{DMat4, DQuat, DVec3, Quat, Vec3};

pub(super) fn apply(
    model: &mut Model,
    k: SkeletonId,
    plan: Plan,
    options: &RestOptions,
) -> RestReport {
    let mut warnings = plan.warnings;
    let skeleton = model.skeleton(k);
    // Conversions run in f64 and round once, so outputs sit within an f32 rounding of exact.
    let frames: Vec<Wide> = plan.frames.iter().map(|f| Wide::of(*f)).collect();
    let inverse: Vec<Wide> = frames.iter().map(|f| f.inverse()).collect();
    // `A_i`: the inverse change of the parent's frame, or the fold and turn for a root.
    let outer: Vec<Wide> = (0..skeleton.bones.len())
        .map(|i| skeleton.parent_world(BoneId(i as u32), Wide::of(plan.top), &inverse))
        .collect();
    let motion = plan
        .hips_height
        .filter(|h| options.motion_scale && *h > 1e-4 && h.is_finite());
    if options.motion_scale && motion.is_none() {
        warnings.push(Warning {
            code: WarningCode::NoMotionScale,
            skeleton: None,
            message: "motion scale asked for, but the hips are not mapped or stand at height 0"
                .into(),
            bones: Vec::new(),
            clips: Vec::new(),
            chain: None,
        });
    }
    let maps = Maps {
        outer: &outer,
        frames: &frames,
        motion_bones: &plan.motion_bones,
        motion,
    };
    // Clip after clip on this thread: converting clips in parallel saved about a tenth of
    // normalizing 30 MB, but the worker threads' new keys came from their own heaps, which
    // added 1.2 MB to the peak on 3 MB (over its bound of 3× the input + 15 MB), and 18 MB on
    // 30 MB (118 MB against 106; measured again in issue 19's fifth round).
    let mut complemented = 0;
    for clip in model.clips.iter_mut().filter(|c| c.skeleton == k) {
        complemented += convert_clip(clip, &plan.changed, &maps);
    }
    let skeleton = model.skeleton_mut(k);
    for (i, (bone, rest)) in skeleton.bones.iter_mut().zip(&plan.rests).enumerate() {
        // A bone the silhouette fix left alone, whose frame and parent's frame stay, keeps its
        // stored rest exactly (the plan's copy went through a renormalizing conversion).
        let untouched = plan.bones.get(i).is_some_and(|b| b.silhouette_deg == 0.0)
            && outer[i].is_identity()
            && frames[i].is_identity();
        if !untouched {
            bone.rest = convert_rest(rest, outer[i], frames[i]);
        }
    }
    skeleton.base = plan.new_base;
    for skin in &mut skeleton.skins {
        for (j, ibm) in skin.joints.iter().zip(&mut skin.inverse_bind_matrices) {
            *ibm = (inverse[j.index()].to_dmat4() * ibm.as_dmat4()).as_mat4();
        }
    }
    for att in &mut skeleton.attachments {
        att.transform = convert_rest(&att.transform, inverse[att.parent.index()], Wide::IDENTITY);
    }
    if let Some(turn) = plan.scene_turn {
        model.scene_turn = (turn * model.scene_turn).normalize();
    }
    RestReport {
        keys: KeyMap {
            top: Wide::of(plan.top),
            frames,
            motion_bones: plan.motion_bones.clone(),
        },
        base: plan.base,
        facing_turn_deg: plan.facing_turn_deg,
        scene_turned: plan.scene_turn.is_some(),
        frame: plan.frame,
        complemented_tracks: complemented,
        motion_scale: motion,
        bones: plan.bones,
        warnings,
    }
}

/// The maps every key of a clip takes, per bone.
struct Maps<'a> {
    /// `A_i`.
    outer: &'a [Wide],
    /// `F_i`.
    frames: &'a [Wide],
    /// Bones whose translation keys motion scale divides.
    motion_bones: &'a [BoneId],
    /// The hips height they are divided by, if motion scale runs.
    motion: Option<f32>,
}

/// Converts every key of `clip` (step 4), first giving bones whose rest rotation changed
/// (`changed`: their old rest) a one-key rotation track where they had none. Returns how many
/// tracks it added.
fn convert_clip(clip: &mut Clip, changed: &[Option<Quat>], maps: &Maps) -> usize {
    let mut complemented = 0;
    for (i, tracks) in clip.tracks.iter_mut().enumerate() {
        if let (Some(old), None) = (changed[i], &tracks.rotation) {
            // "No track" must keep meaning the old rest, which is about to change.
            tracks.rotation = Some(Track {
                interpolation: Interpolation::Linear,
                times: vec![0.0].into(),
                values: vec![old].into(),
            });
            complemented += 1;
        }
        map_keys(tracks, maps.outer[i], maps.frames[i]);
        if let (Some(t), Some(h)) = (
            &mut tracks.translation,
            maps.motion
                .filter(|_| maps.motion_bones.iter().any(|b| b.index() == i)),
        ) {
            map_values(t, |v, _| v / h);
        }
    }
    if maps.motion.is_some() {
        clip.motion_scale = maps.motion;
    }
    complemented
}

/// Maps every key of one bone's tracks to `a · key · f` (translation, rotation, scale; the
/// tangents of cubic splines by the linear part), rotation keys kept in one hemisphere so
/// LINEAR keys slerp the short way. The conversion of the rest fix, and its inverse
/// ([`super::restore`]).
pub(super) fn map_keys(tracks: &mut BoneTracks, a: Wide, f: Wide) {
    if let Some(t) = &mut tracks.translation {
        map_values(t, |v, tangent| a.vector(v, !tangent));
    }
    if let Some(t) = &mut tracks.rotation {
        // Each key flipped when it lies in the other hemisphere from the one before it (as
        // flipped), in the same pass.
        let hemisphere = t.interpolation != Interpolation::CubicSpline;
        let mut before: Option<Quat> = None;
        map_values(t, |q, _| {
            let mut q = (a.r * q.as_dquat() * f.r).as_quat();
            if hemisphere {
                if before.is_some_and(|b| q.dot(b) < 0.0) {
                    q = -q;
                }
                before = Some(q);
            }
            q
        });
    }
    if let Some(t) = &mut tracks.scale {
        // Uniform, or on a bone that keeps its axes: exact either way.
        map_values(t, |v, _| (v.as_dvec3() * (a.s * f.s)).as_vec3());
    }
}

/// `a · rest · f`, the same map the keys take, so "no track" keeps meaning the rest.
pub(super) fn convert_rest(rest: &Transform, a: Wide, f: Wide) -> Transform {
    Transform {
        translation: a.vector(rest.translation, true),
        rotation: (a.r * rest.rotation.as_dquat() * f.r).normalize().as_quat(),
        scale: (rest.scale.as_dvec3() * (a.s * f.s)).as_vec3(),
    }
}

/// A [`Sim`] in f64.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Wide {
    pub t: DVec3,
    pub r: DQuat,
    pub s: f64,
}

impl Default for Wide {
    fn default() -> Self {
        Wide::IDENTITY
    }
}

impl Wide {
    const IDENTITY: Wide = Wide {
        t: DVec3::ZERO,
        r: DQuat::IDENTITY,
        s: 1.0,
    };

    /// Whether this is exactly the identity.
    fn is_identity(&self) -> bool {
        self.t == DVec3::ZERO && self.r == DQuat::IDENTITY && self.s == 1.0
    }

    fn of(x: Sim) -> Wide {
        Wide {
            t: x.t.as_dvec3(),
            r: x.r.as_dquat().normalize(),
            s: x.s as f64,
        }
    }

    pub(super) fn inverse(self) -> Wide {
        let r = self.r.conjugate();
        Wide {
            t: -(r * self.t) / self.s,
            r,
            s: 1.0 / self.s,
        }
    }

    /// Maps a position (`point`) or a direction (a tangent).
    pub(super) fn vector(self, v: Vec3, point: bool) -> Vec3 {
        let moved = self.r * (v.as_dvec3() * self.s);
        (if point { self.t + moved } else { moved }).as_vec3()
    }

    fn to_dmat4(self) -> DMat4 {
        DMat4::from_scale_rotation_translation(DVec3::splat(self.s), self.r, self.t)
    }
}

/// Maps every value of a track, in order; `f(value, is_tangent)`. Values shared with another
/// track (the model as read) go into a new array in one pass, rather than being copied first,
/// and only from the first value the map changes (bit for bit): a track it leaves as it was
/// keeps sharing its values.
pub(super) fn map_values<T: Copy + Bits>(track: &mut Track<T>, mut f: impl FnMut(T, bool) -> T) {
    let cubic = track.interpolation == Interpolation::CubicSpline;
    let tangent = |n: usize| cubic && n % 3 != 1;
    match std::sync::Arc::get_mut(&mut track.values) {
        Some(values) => {
            for (n, v) in values.iter_mut().enumerate() {
                *v = f(*v, tangent(n));
            }
        }
        None => {
            let old = std::sync::Arc::clone(&track.values);
            let mut changed = None;
            for (n, v) in old.iter().enumerate() {
                let w = f(*v, tangent(n));
                if !w.same_bits(*v) {
                    changed = Some((n, w));
                    break;
                }
            }
            if let Some((n, w)) = changed {
                // A copy (one pass of plain moves), then the values from `n` mapped in place in
                // a plain loop: faster than mapping into the new array through an iterator.
                let mut values: std::sync::Arc<[T]> = std::sync::Arc::from(&old[..]);
                if let Some(new) = std::sync::Arc::get_mut(&mut values) {
                    new[n] = w;
                    for (m, v) in new.iter_mut().enumerate().skip(n + 1) {
                        *v = f(*v, tangent(m));
                    }
                }
                track.values = values;
            }
        }
    }
}

/// Bit-for-bit equality of key values (`-0.0` differs from `0.0`, a NaN equals itself).
pub(super) trait Bits {
    fn same_bits(self, other: Self) -> bool;
}

impl Bits for Vec3 {
    fn same_bits(self, other: Self) -> bool {
        self.to_array().map(f32::to_bits) == other.to_array().map(f32::to_bits)
    }
}

impl Bits for Quat {
    fn same_bits(self, other: Self) -> bool {
        self.to_array().map(f32::to_bits) == other.to_array().map(f32::to_bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn shared(values: Vec<Vec3>) -> (Track<Vec3>, Track<Vec3>) {
        let t = Track {
            interpolation: Interpolation::Linear,
            times: (0..values.len()).map(|i| i as f32).collect(),
            values: values.into(),
        };
        (t.clone(), t)
    }

    #[test]
    fn a_shared_track_is_copied_only_when_the_map_changes_a_value() {
        let (read, mut t) = shared(vec![Vec3::X, Vec3::Y, Vec3::Z]);
        map_values(&mut t, |v, _| v);
        assert!(Arc::ptr_eq(&t.values, &read.values));
        // -0.0 == 0.0, but the bits differ: a new array.
        let signed = Vec3::new(1.0, -0.0, 0.0);
        map_values(&mut t, |v, _| if v == Vec3::X { signed } else { v });
        assert!(!Arc::ptr_eq(&t.values, &read.values));
        assert_eq!(t.values[0].y.to_bits(), (-0.0f32).to_bits());
        assert_eq!(read.values[0].y.to_bits(), 0.0f32.to_bits());
        // A map with state sees every value once, in order; values before the first change
        // are kept, the rest mapped.
        let (read, mut t) = shared(vec![Vec3::X, Vec3::Y, Vec3::Z]);
        let mut seen = Vec::new();
        map_values(&mut t, |v, _| {
            seen.push(v);
            if seen.len() >= 2 {
                v * 2.0
            } else {
                v
            }
        });
        assert_eq!(seen, [Vec3::X, Vec3::Y, Vec3::Z]);
        assert_eq!(&*t.values, &[Vec3::X, Vec3::Y * 2.0, Vec3::Z * 2.0]);
        assert_eq!(&*read.values, &[Vec3::X, Vec3::Y, Vec3::Z]);
    }
}
