//! Steps 4–6 of the rest fix: applies a [`Plan`] to the model. Cannot fail.
//!
//! With `F_i` the change of frame of bone i (new world = old world · `F_i`) and `A_i` the
//! inverse change of its parent's frame (or the fold and turn for a root), every local transform
//! becomes `A_i · L · F_i`: translation `a + s_a·R_a·t`, rotation `R_a·q·R_f`, scale
//! `s_a·s_f·k`. Tangents of cubic splines take the linear part of the same maps. Inverse bind
//! matrices become `F_i⁻¹ · IBM` and attached nodes `F_i⁻¹ · T`, so every joint's skinning
//! matrix is unchanged at every frame.

use super::lanes;
use super::pose::Plan;
use super::restore::KeyMap;
use super::sim::{quarter_turn_axes, Sim};
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
    let mut complemented = 0;
    for clip in model.clips.iter_mut().filter(|c| c.skeleton == k) {
        complemented += complement(clip, &plan.changed, &plan.moved);
        for (i, tracks) in clip.tracks.iter_mut().enumerate() {
            map_keys(tracks, outer[i], frames[i]);
        }
    }
    if let Some(h) = motion {
        for clip in model.clips.iter_mut().filter(|c| c.skeleton == k) {
            for (i, tracks) in clip.tracks.iter_mut().enumerate() {
                if let Some(t) = tracks
                    .translation
                    .as_mut()
                    .filter(|_| plan.motion_bones.iter().any(|b| b.index() == i))
                {
                    map_values(t, |v, _| v / h);
                }
            }
            clip.motion_scale = Some(h);
        }
    }
    let skeleton = model.skeleton_mut(k);
    for (i, (bone, rest)) in skeleton.bones.iter_mut().zip(&plan.rests).enumerate() {
        // A bone the silhouette fix left alone, whose frame and parent's frame stay, keeps its
        // stored rest exactly (the plan's copy went through a renormalizing conversion). A palm
        // bone turned along with the hand beside it was not left alone.
        let untouched = plan.bones.get(i).is_some_and(|b| b.silhouette_deg == 0.0)
            && plan.moved[i].is_none()
            && plan.changed[i].is_none()
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
    // Frames fixed in bones' spaces (VRM colliders, the look-at origin) follow as attachments do.
    for p in model.points.iter_mut().filter(|p| p.skeleton == k) {
        p.transform = convert_rest(&p.transform, inverse[p.bone.index()], Wide::IDENTITY);
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
        bind: Vec::new(),
        warnings,
    }
}

/// Gives bones whose rest rotation changed (`changed`: their old rest) a one-key rotation track
/// where `clip` had none, and bones whose rest translation changed (`moved`) a one-key
/// translation track: "no track" must keep meaning the old rest, which is about to change.
/// Returns how many tracks it added.
fn complement(clip: &mut Clip, changed: &[Option<Quat>], moved: &[Option<Vec3>]) -> usize {
    let mut complemented = 0;
    for ((tracks, old), at) in clip.tracks.iter_mut().zip(changed).zip(moved) {
        if let (Some(old), None) = (old, &tracks.rotation) {
            tracks.rotation = Some(one_key(*old));
            complemented += 1;
        }
        if let (Some(at), None) = (at, &tracks.translation) {
            tracks.translation = Some(one_key(*at));
            complemented += 1;
        }
    }
    complemented
}

/// A LINEAR track of one key at time 0.
fn one_key<T>(value: T) -> Track<T> {
    Track {
        interpolation: Interpolation::Linear,
        times: vec![0.0].into(),
        values: vec![value].into(),
    }
}

/// Maps every key of one bone's tracks to `a · key · f` (translation, rotation, scale; the
/// tangents of cubic splines by the linear part), rotation keys kept in one hemisphere so
/// LINEAR keys slerp the short way. The conversion of the rest fix, and its inverse
/// ([`super::restore`]).
pub(super) fn map_keys(tracks: &mut BoneTracks, a: Wide, f: Wide) {
    let (translation, rotation, scale) = key_maps(a, f);
    if let Some(t) = &mut tracks.translation {
        map_track(t, translation);
    }
    if let Some(t) = &mut tracks.rotation {
        map_track(t, rotation);
    }
    if let Some(t) = &mut tracks.scale {
        map_track(t, scale);
    }
}

/// The maps of [`map_keys`] for translation, rotation and scale keys.
fn key_maps(a: Wide, f: Wide) -> (Move, Turn, Grow) {
    // No key before the first: a zero quaternion, whose dot product with any key is never
    // below 0, so the first key is never flipped.
    let before = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    (
        Move(a),
        Turn {
            a: a.r,
            f: f.r,
            before,
        },
        Grow(a.s * f.s, ScaleAxes::of_turn(f.r)),
    )
}

/// How each key of a track is converted, with what it remembers of the keys before it.
trait Convert<T> {
    /// The key `value` converted; `cubic`: the track is a cubic spline, `tangent`: this key is
    /// one of its tangents.
    fn key(&mut self, value: T, cubic: bool, tangent: bool) -> T;

    /// Converts every value of a track in place, in order, as [`Convert::key`] would one by
    /// one (`cubic`: the track is a cubic spline, whose every value but the middle of three is
    /// a tangent).
    fn keys(&mut self, values: &mut [T], cubic: bool)
    where
        T: Copy,
    {
        one_by_one(self, values, cubic);
    }
}

/// Every value of a track converted in place with [`Convert::key`], one by one, in order
/// (`cubic`: see [`Convert::keys`]).
fn one_by_one<T: Copy, M: Convert<T> + ?Sized>(map: &mut M, values: &mut [T], cubic: bool) {
    if cubic {
        for (n, v) in values.iter_mut().enumerate() {
            *v = map.key(*v, true, n % 3 != 1);
        }
    } else {
        for v in values {
            *v = map.key(*v, false, false);
        }
    }
}

impl<T, F: FnMut(T, bool) -> T> Convert<T> for F {
    fn key(&mut self, value: T, _: bool, tangent: bool) -> T {
        self(value, tangent)
    }
}

/// A translation key (or tangent) through `A`.
#[derive(Clone, Copy)]
struct Move(Wide);

impl Convert<Vec3> for Move {
    #[inline]
    fn key(&mut self, v: Vec3, _: bool, tangent: bool) -> Vec3 {
        self.0.vector(v, !tangent)
    }

    /// Keys of tracks other than cubic splines (all points) a block at a time
    /// ([`lanes::place_blocks`]).
    fn keys(&mut self, values: &mut [Vec3], cubic: bool) {
        if cubic {
            return one_by_one(self, values, cubic);
        }
        let Wide { t, r, s } = self.0;
        let (blocks, rest) = values.split_at_mut(lanes::in_blocks(values));
        lanes::place_blocks(t, r, s, blocks);
        for v in rest {
            *v = self.key(*v, false, false);
        }
    }
}

/// A rotation key to `a · key · f`, flipped when it lies in the other hemisphere from the one
/// before it (as flipped), except in cubic splines. Keys of other tracks than cubic splines are
/// unit quaternions, and are made unit again before they are rounded to f32 (a key read 1e-7
/// off unit length, kept so, scales and shears what three.js makes of it by as much, the other
/// way in each new frame); a cubic spline's values and tangents are scaled together or not at
/// all. `a` and `f` both the identity leave every key as it is, bit for bit (a second run).
#[derive(Clone, Copy)]
struct Turn {
    a: DQuat,
    f: DQuat,
    before: Quat,
}

impl Turn {
    /// Whether a key of a track (`cubic`: a cubic spline) is made unit length.
    fn unit(&self, cubic: bool) -> bool {
        !cubic && (self.a != DQuat::IDENTITY || self.f != DQuat::IDENTITY)
    }
}

/// `a · q · f` in f64, made unit length first if `unit`, rounded once.
#[inline(always)]
pub(super) fn turned(a: DQuat, q: Quat, f: DQuat, unit: bool) -> Quat {
    let r = a * q.as_dquat() * f;
    (if unit { r.normalize() } else { r }).as_quat()
}

impl Turn {
    /// `q` (turned) flipped into the hemisphere of the key before it, unless `cubic`.
    #[inline(always)]
    fn follow(&mut self, mut q: Quat, cubic: bool) -> Quat {
        if !cubic {
            if q.dot(self.before) < 0.0 {
                q = -q;
            }
            self.before = q;
        }
        q
    }
}

impl Convert<Quat> for Turn {
    #[inline]
    fn key(&mut self, q: Quat, cubic: bool, _: bool) -> Quat {
        let q = turned(self.a, q, self.f, self.unit(cubic));
        self.follow(q, cubic)
    }

    /// The products a block of keys at a time ([`lanes::turn_blocks`]), then each key flipped
    /// in order.
    fn keys(&mut self, values: &mut [Quat], cubic: bool) {
        let (blocks, rest) = values.split_at_mut(lanes::in_blocks(values));
        let unit = self.unit(cubic);
        lanes::turn_blocks(self.a, self.f, unit, blocks);
        for q in rest {
            *q = turned(self.a, *q, self.f, unit);
        }
        for q in values {
            *q = self.follow(*q, cubic);
        }
    }
}

/// A scale key times the two scales, along the bone's new axes ([`ScaleAxes`]). Uniform, or on
/// a bone whose frame turns by quarter turns only: exact either way.
#[derive(Clone, Copy)]
struct Grow(f64, ScaleAxes);

impl Grow {
    fn of(&self, v: Vec3) -> Vec3 {
        (self.1.of(v.as_dvec3()) * self.0).as_vec3()
    }
}

/// How a scale along a bone's old axes becomes one along its new axes, the old frame turned by
/// `f`: `f⁻¹ · diag(k) · f`, which is a scale again when `f` turns by quarter turns (the axes
/// swap places, [`quarter_turn_axes`]). For any other turn of a non-uniform `k` it is not (it shears),
/// and the scale taken is its diagonal, `Σᵢ f_ij² kᵢ`: the nearest scale, which is what f32
/// noise in a DCC's rest scales (1e-7 apart) costs least with.
#[derive(Clone, Copy)]
enum ScaleAxes {
    Swapped([usize; 3]),
    Mixed(glam::DMat3),
}

impl ScaleAxes {
    fn of_turn(f: DQuat) -> ScaleAxes {
        match quarter_turn_axes(f) {
            Some(p) => ScaleAxes::Swapped(p),
            None => ScaleAxes::Mixed(glam::DMat3::from_quat(f)),
        }
    }

    fn of(&self, k: DVec3) -> DVec3 {
        match self {
            ScaleAxes::Swapped([x, y, z]) => DVec3::new(k[*x], k[*y], k[*z]),
            ScaleAxes::Mixed(m) => {
                let w = |j: usize| {
                    let c = m.col(j);
                    c.x * c.x * k.x + c.y * c.y * k.y + c.z * c.z * k.z
                };
                if k.x == k.y && k.y == k.z {
                    k
                } else {
                    DVec3::new(w(0), w(1), w(2))
                }
            }
        }
    }
}

impl Convert<Vec3> for Grow {
    #[inline]
    fn key(&mut self, v: Vec3, _: bool, _: bool) -> Vec3 {
        self.of(v)
    }
}

/// `a · rest · f`, the same map the keys take, so "no track" keeps meaning the rest.
pub(super) fn convert_rest(rest: &Transform, a: Wide, f: Wide) -> Transform {
    Transform {
        translation: a.vector(rest.translation, true),
        rotation: (a.r * rest.rotation.as_dquat() * f.r).normalize().as_quat(),
        scale: Grow(a.s * f.s, ScaleAxes::of_turn(f.r)).of(rest.scale),
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

/// Maps every value of a track, in order; `f(value, is_tangent)`, a copy of `f` for each pass
/// (see [`claim`]). Values shared with another track (the model as read) go into a new array,
/// unless the map changes none of them (bit for bit): then the track keeps sharing its values.
pub(super) fn map_values<T: Copy + Bits>(track: &mut Track<T>, f: impl FnMut(T, bool) -> T + Copy) {
    map_track(track, f);
}

/// Converts every value of `track` with `map`: [`claim`], then [`convert`].
fn map_track<T: Copy + Bits, M: Convert<T> + Copy>(track: &mut Track<T>, map: M) {
    claim(track, map);
    convert(track, map);
}

/// Gets `track`'s values ready for `map` to convert in place ([`convert`]): values shared with
/// another track are copied (one pass of plain moves) if `map` changes any of them, bit for
/// bit, and kept shared if not, with nothing left to convert.
fn claim<T: Copy + Bits, M: Convert<T>>(track: &mut Track<T>, mut map: M) {
    if std::sync::Arc::get_mut(&mut track.values).is_none() {
        let cubic = track.interpolation == Interpolation::CubicSpline;
        let changes = track
            .values
            .iter()
            .enumerate()
            .any(|(n, v)| !map.key(*v, cubic, cubic && n % 3 != 1).same_bits(*v));
        if changes {
            track.values = std::sync::Arc::from(&track.values[..]);
        }
    }
}

/// Converts every key of `track` with `map`, in place, if its values are its own (after
/// [`claim`], unless `map` changes none of them), with [`Convert::keys`].
fn convert<T: Copy, M: Convert<T>>(track: &mut Track<T>, mut map: M) {
    let cubic = track.interpolation == Interpolation::CubicSpline;
    if let Some(values) = std::sync::Arc::get_mut(&mut track.values) {
        map.keys(values, cubic);
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
        // A map with state (each pass runs its own copy): values before the first change are
        // kept, the rest mapped, the values read left as they were.
        let (read, mut t) = shared(vec![Vec3::X, Vec3::Y, Vec3::Z]);
        let mut seen = 0;
        map_values(&mut t, move |v, _| {
            seen += 1;
            if seen >= 2 {
                v * 2.0
            } else {
                v
            }
        });
        assert_eq!(&*t.values, &[Vec3::X, Vec3::Y * 2.0, Vec3::Z * 2.0]);
        assert_eq!(&*read.values, &[Vec3::X, Vec3::Y, Vec3::Z]);
    }
}
