//! Clips: typed keyframe tracks per bone and channel, plus tracks the model does not interpret.

use super::{Problem, Skeleton, SkeletonId};
use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// How values between keys are computed, as in glTF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Interpolation {
    /// Linear (spherical linear for rotations).
    Linear,
    /// Constant until the next key.
    Step,
    /// Cubic Hermite spline with per-key in and out tangents.
    CubicSpline,
}

impl Interpolation {
    /// The glTF name (`LINEAR`, `STEP`, `CUBICSPLINE`).
    pub fn as_gltf(self) -> &'static str {
        match self {
            Interpolation::Linear => "LINEAR",
            Interpolation::Step => "STEP",
            Interpolation::CubicSpline => "CUBICSPLINE",
        }
    }
}

/// A channel of a bone: which part of its local transform a track animates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// The translation (a [`BoneTracks::translation`] track).
    Translation,
    /// The rotation.
    Rotation,
    /// The scale.
    Scale,
}

impl Channel {
    /// The three channels, in the order glTF and [`BoneTracks`] list them.
    pub const ALL: [Channel; 3] = [Channel::Translation, Channel::Rotation, Channel::Scale];

    /// The name: `translation`, `rotation` or `scale` (also the glTF animation target path).
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Translation => "translation",
            Channel::Rotation => "rotation",
            Channel::Scale => "scale",
        }
    }

    /// The channel a glTF animation target `path` names, or `None` for other paths
    /// (`weights`, extension paths).
    pub fn from_gltf_path(path: &str) -> Option<Channel> {
        Channel::ALL.into_iter().find(|c| c.as_str() == path)
    }
}

impl std::fmt::Display for Channel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Channel {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Values a track can hold: what sampling needs of them.
pub trait TrackValue: Copy {
    /// Interpolates linearly (spherically for rotations) from `a` to `b` at `t` in 0..=1.
    fn lerp(a: Self, b: Self, t: f32) -> Self;
    /// Hermite: `h00·a + h10·ta + h01·b + h11·tb`, already scaled by the key interval.
    fn hermite(a: Self, ta: Self, b: Self, tb: Self, t: f32) -> Self;
    /// Whether every component is finite.
    fn finite(self) -> bool;
    /// Multiplies every component by `s` (tangents are scaled by the key interval).
    fn scale(self, s: f32) -> Self;
    /// Whether every component of every value of `values` is finite: [`finite`](Self::finite)
    /// of each.
    fn all_finite(values: &[Self]) -> bool {
        values.iter().all(|v| v.finite())
    }
}

impl TrackValue for Vec3 {
    fn lerp(a: Self, b: Self, t: f32) -> Self {
        a.lerp(b, t)
    }
    fn hermite(a: Self, ta: Self, b: Self, tb: Self, t: f32) -> Self {
        let [h00, h10, h01, h11] = hermite_basis(t);
        a * h00 + ta * h10 + b * h01 + tb * h11
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn scale(self, s: f32) -> Self {
        self * s
    }
}

impl TrackValue for Quat {
    fn lerp(a: Self, b: Self, t: f32) -> Self {
        a.slerp(b, t)
    }
    fn hermite(a: Self, ta: Self, b: Self, tb: Self, t: f32) -> Self {
        let [h00, h10, h01, h11] = hermite_basis(t);
        (a * h00 + ta * h10 + b * h01 + tb * h11).normalize()
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn scale(self, s: f32) -> Self {
        self * s
    }
}

impl TrackValue for f32 {
    fn lerp(a: Self, b: Self, t: f32) -> Self {
        a + (b - a) * t
    }
    fn hermite(a: Self, ta: Self, b: Self, tb: Self, t: f32) -> Self {
        let [h00, h10, h01, h11] = hermite_basis(t);
        a * h00 + ta * h10 + b * h01 + tb * h11
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn scale(self, s: f32) -> Self {
        self * s
    }
}

fn hermite_basis(t: f32) -> [f32; 4] {
    let t2 = t * t;
    let t3 = t2 * t;
    [
        2.0 * t3 - 3.0 * t2 + 1.0,
        t3 - 2.0 * t2 + t,
        -2.0 * t3 + 3.0 * t2,
        t3 - t2,
    ]
}

/// Keyframes of one channel of one bone.
///
/// Times and values are shared, not copied, when a track is cloned: a glTF sampler's key times
/// usually serve every channel of its animation, and a copy of a model (kept to measure a change
/// against, or to tell what changed on write) costs no track data. Build them from a `Vec` with
/// `.into()`; change them in place with [`Arc::make_mut`] (which copies only shared data).
#[derive(Debug, Clone)]
pub struct Track<T> {
    /// How to interpolate between keys.
    pub interpolation: Interpolation,
    /// Key times in seconds, non-decreasing.
    pub times: Arc<[f32]>,
    /// One value per key; for [`Interpolation::CubicSpline`] three per key: in-tangent, value,
    /// out-tangent, as glTF stores them.
    pub values: Arc<[T]>,
}

/// Field by field, the values before the times: two tracks that differ (one a stage changed,
/// against the one read) most often share their times and differ from the first value.
impl<T: PartialEq> PartialEq for Track<T> {
    fn eq(&self, other: &Self) -> bool {
        self.interpolation == other.interpolation
            && self.values == other.values
            && self.times == other.times
    }
}

impl<T: TrackValue> Track<T> {
    /// The value of key `k` (skipping tangents for cubic splines).
    pub fn key(&self, k: usize) -> T {
        match self.interpolation {
            Interpolation::CubicSpline => self.values[3 * k + 1],
            _ => self.values[k],
        }
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether the track has no keys.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// Samples the track at `time` seconds, clamping outside the keyed range. At a key's time
    /// (and anywhere on a STEP track) the value is that key's, bit for bit. Requires at least
    /// one key (see [`Clip::validate`]).
    ///
    /// ```
    /// use skelnorm::model::{Interpolation, Track};
    /// use glam::Vec3;
    /// let t = Track { interpolation: Interpolation::Linear, times: vec![0.0, 2.0].into(), values: vec![Vec3::ZERO, Vec3::X].into() };
    /// assert_eq!(t.sample(1.0), Vec3::new(0.5, 0.0, 0.0));
    /// assert_eq!(t.sample(9.0), Vec3::X); // clamped to the last key
    /// ```
    pub fn sample(&self, time: f32) -> T {
        self.sample_from(time, &mut 0)
    }

    /// [`Track::sample`] for a series of times in increasing order: `cursor` (0 to start)
    /// remembers which key the last search found, and the next search starts there rather than
    /// over all the keys (a frame-by-frame pass then steps a key or two per frame). The value is
    /// the one [`Track::sample`] gives, for any cursor.
    pub fn sample_from(&self, time: f32, cursor: &mut usize) -> T {
        self.value(self.span(time, cursor))
    }

    /// Finds where each of `times` (increasing) falls on this track's keys, into `spans`, for
    /// [`Track::sample_each_in`]: on this track, and on every track that [`Spans::fit`]s them.
    pub fn find_spans(&self, times: &[f32], spans: &mut Spans) {
        spans.keys = Some((
            self.times.clone(),
            self.interpolation == Interpolation::Step,
        ));
        spans.at.clear();
        spans.at.resize(times.len(), Span::Key(0));
        let at = &mut spans.at;
        self.spans(times, |i, span| at[i] = span);
    }

    /// [`Track::sample_from`] at each of the times `spans` were found for ([`Track::find_spans`],
    /// on this track or one they [`Spans::fit`]), in order: `put(i, value)` for the `i`th, the
    /// value [`Track::sample`] gives, bit for bit, without looking for the keys again.
    pub fn sample_each_in(&self, spans: &Spans, mut put: impl FnMut(usize, T)) {
        debug_assert!(spans.fit(self));
        for (i, &span) in spans.at.iter().enumerate() {
            put(i, self.value(span));
        }
    }

    /// The value at `span`.
    #[inline(always)]
    fn value(&self, span: Span) -> T {
        match span {
            Span::Key(k) => self.key(k),
            Span::Between { prev, next, u } => self.interpolate(prev, next, u),
        }
    }

    /// [`Track::span`] of each of `times`, in order: `at(i, span)` for the `i`th. While a time
    /// lies strictly inside the keyed range and at or after the key before the last one found,
    /// the next key is found by stepping forward from there, which is where a full search
    /// ends (key times do not decrease); any other time takes [`Track::span`] itself.
    #[inline(always)]
    fn spans(&self, times: &[f32], mut at: impl FnMut(usize, Span)) {
        let keys: &[f32] = &self.times;
        let (Some(&first), Some(&last)) = (keys.first(), keys.last()) else {
            // No keys: as `sample` fails on them.
            let mut cursor = 0;
            times
                .iter()
                .enumerate()
                .for_each(|(i, &time)| at(i, self.span(time, &mut cursor)));
            return;
        };
        let step = self.interpolation == Interpolation::Step;
        // The first key later than the last time placed inside the range; keys[next - 1] is
        // at or before that time.
        let mut next = 1;
        for (i, &time) in times.iter().enumerate() {
            if !(time > first && time < last && keys[next - 1] <= time) {
                let mut cursor = next;
                at(i, self.span(time, &mut cursor));
                next = cursor.max(1);
                continue;
            }
            // keys[next - 1] <= time < last, so next < n - 1 while keys[next] <= time: the next
            // key is this one, or the one after (frames at the keys' rate), or found by a search.
            if keys[next] <= time {
                next += 1;
                if keys[next] <= time {
                    next = next_key(keys, time, next + 1);
                }
            }
            let prev = next - 1;
            if time == keys[prev] || step {
                at(i, Span::Key(prev));
                continue;
            }
            let u = (time - keys[prev]) / (keys[next] - keys[prev]);
            if u >= 1.0 {
                at(i, Span::Key(next));
            } else {
                at(i, Span::Between { prev, next, u });
            }
        }
    }

    /// Where `time` falls: on a key (its time, clamped, a STEP hold, or an interpolation
    /// factor of 0 or 1), or between two keys. `cursor`: see [`Track::sample_from`].
    fn span(&self, time: f32, cursor: &mut usize) -> Span {
        let n = self.times.len();
        if n == 1 || time <= self.times[0] {
            return Span::Key(0);
        }
        if time >= self.times[n - 1] {
            return Span::Key(n - 1);
        }
        // First key whose time is greater than `time`; 1..n by the checks above, so
        // times[prev] <= time < times[next].
        let next = next_key(&self.times, time, *cursor);
        *cursor = next;
        let prev = next - 1;
        if time == self.times[prev] || self.interpolation == Interpolation::Step {
            return Span::Key(prev);
        }
        let u = (time - self.times[prev]) / (self.times[next] - self.times[prev]);
        if u >= 1.0 {
            return Span::Key(next);
        }
        Span::Between { prev, next, u }
    }

    /// The value at factor `u` in (0, 1) from key `prev` to key `next` (LINEAR or CUBICSPLINE).
    fn interpolate(&self, prev: usize, next: usize, u: f32) -> T {
        match self.interpolation {
            Interpolation::CubicSpline => {
                let dt = self.times[next] - self.times[prev];
                let a = self.values[3 * prev + 1];
                let out_a = self.values[3 * prev + 2].scale(dt);
                let b = self.values[3 * next + 1];
                let in_b = self.values[3 * next].scale(dt);
                T::hermite(a, out_a, b, in_b, u)
            }
            _ => T::lerp(self.key(prev), self.key(next), u),
        }
    }

    /// Largest distance of any key's value from `v` (tangents are not keys), by `distance`.
    pub fn max_distance(&self, v: T, distance: impl Fn(T, T) -> f32) -> f32 {
        (0..self.len())
            .map(|k| distance(self.key(k), v))
            .fold(0.0, f32::max)
    }

    /// Checks rules 2–4 of [`Clip::validate`] on this track, named by `what` (called only for
    /// a problem). `times_ok` remembers the last key times found finite and ordered (tracks of
    /// one sampler share them): those are not checked again.
    fn check(
        &self,
        what: impl Fn() -> String,
        times_ok: &mut Option<Arc<[f32]>>,
        out: &mut Vec<Problem>,
    ) {
        let per_key = if self.interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        if self.times.is_empty() {
            out.push(Problem {
                rule: 2,
                message: format!("{}: no keys", what()),
            });
        }
        if self.values.len() != self.times.len() * per_key {
            out.push(Problem {
                rule: 2,
                message: format!(
                    "{}: {} values for {} keys ({} per key)",
                    what(),
                    self.values.len(),
                    self.times.len(),
                    per_key
                ),
            });
        }
        let checked = times_ok
            .as_ref()
            .is_some_and(|t| Arc::ptr_eq(t, &self.times));
        if !checked {
            if !f32::all_finite(&self.times) || self.times.windows(2).any(|w| w[1] < w[0]) {
                out.push(Problem {
                    rule: 3,
                    message: format!("{}: times not finite and ordered", what()),
                });
            } else {
                *times_ok = Some(Arc::clone(&self.times));
            }
        }
        if !T::all_finite(&self.values) {
            out.push(Problem {
                rule: 4,
                message: format!("{}: a value is not finite", what()),
            });
        }
    }
}

/// The first key of `times` (non-decreasing) whose time is greater than `time`, the
/// `partition_point` of `t <= time`. When `times[cursor - 1] <= time` that key is at or after
/// `cursor`: the few keys from there are tried first, then the rest is searched; otherwise all
/// keys are. Keys before the one found all lie at or before `time`, so the answer is the same.
fn next_key(times: &[f32], time: f32, cursor: usize) -> usize {
    const WALK: usize = 4;
    if (1..times.len()).contains(&cursor) && times[cursor - 1] <= time {
        let end = (cursor + WALK).min(times.len());
        if let Some(i) = times[cursor..end].iter().position(|&t| t > time) {
            return cursor + i;
        }
        return end + times[end..].partition_point(|&t| t <= time);
    }
    times.partition_point(|&t| t <= time)
}

/// Where each of a series of sample times falls on the keys of a track ([`Track::find_spans`]):
/// found once, used for every track with the same key times and the same stepping
/// ([`Spans::fit`]): the same array, as the tracks of one glTF sampler input share, or a short
/// array equal to it bit for bit, as files that give every sampler an input of its own hold
/// (CesiumMan.glb: 19 inputs, one set of times).
#[derive(Debug, Clone, Default)]
pub struct Spans {
    /// The key times found on and whether they step.
    keys: Option<(Arc<[f32]>, bool)>,
    at: Vec<Span>,
}

/// The longest key-time array [`Spans::fit`] compares value by value with the one the spans
/// were found on (4 × 128 bytes: less than finding the spans of a run again costs).
const COMPARED_KEYS: usize = 128;

impl Spans {
    /// Whether these spans hold for `track`: found on its key-time array, or on one of at most
    /// [`COMPARED_KEYS`] times equal to it bit for bit, stepping alike.
    pub fn fit<T>(&self, track: &Track<T>) -> bool {
        let Some((times, step)) = &self.keys else {
            return false;
        };
        *step == (track.interpolation == Interpolation::Step)
            && (Arc::ptr_eq(times, &track.times)
                || (times.len() <= COMPARED_KEYS && same_times(times, &track.times)))
    }
}

/// Whether `a` and `b` hold the same times, bit for bit.
pub(super) fn same_times(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Where a sample time falls on a track (see `Track::span`).
#[derive(Clone, Copy, Debug)]
enum Span {
    /// The value is this key's, exactly.
    Key(usize),
    /// Interpolated at factor `u` in (0, 1) from key `prev` to key `next`.
    Between { prev: usize, next: usize, u: f32 },
}

/// How far a stored rotation key's squared length may be from 1 and still count as unit (f32
/// rounding of a normalized quaternion, ~16 ε): such keys are sampled as stored.
const UNIT_TOLERANCE: f32 = 2e-6;

impl Track<Quat> {
    /// Samples a rotation track as a unit quaternion: as [`Track::sample`], normalized. A key
    /// that is unit to within rounding comes back as stored, bit for bit (so sampling at the
    /// key times gives the file's numbers); other keys (quantized ones) and interpolated values
    /// are normalized.
    pub fn sample_unit(&self, time: f32) -> Quat {
        self.sample_unit_from(time, &mut 0)
    }

    /// [`Track::sample_unit`] for a series of times in increasing order (`cursor`: see
    /// [`Track::sample_from`]); the same value.
    pub fn sample_unit_from(&self, time: f32, cursor: &mut usize) -> Quat {
        self.unit_value(self.span(time, cursor))
    }

    /// [`Track::sample_unit`] at each of the times `spans` were found for, as
    /// [`Track::sample_each_in`] samples: `put(i, value)` for the `i`th, the same values.
    pub fn sample_unit_each_in(&self, spans: &Spans, mut put: impl FnMut(usize, Quat)) {
        debug_assert!(spans.fit(self));
        for (i, &span) in spans.at.iter().enumerate() {
            put(i, self.unit_value(span));
        }
    }

    /// The unit value at `span` (see [`Track::sample_unit`]).
    #[inline(always)]
    fn unit_value(&self, span: Span) -> Quat {
        match span {
            Span::Key(k) => {
                let q = self.key(k);
                if (q.length_squared() - 1.0).abs() <= UNIT_TOLERANCE {
                    q
                } else {
                    q.normalize()
                }
            }
            Span::Between { prev, next, u } => self.interpolate(prev, next, u).normalize(),
        }
    }
}

/// The three channels of one bone in one clip; a missing channel holds the rest value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoneTracks {
    /// Translation keys (local to the parent, absolute, not offsets from the rest).
    pub translation: Option<Track<Vec3>>,
    /// Rotation keys.
    pub rotation: Option<Track<Quat>>,
    /// Scale keys.
    pub scale: Option<Track<Vec3>>,
}

impl BoneTracks {
    /// Whether no channel is animated.
    pub fn is_empty(&self) -> bool {
        self.translation.is_none() && self.rotation.is_none() && self.scale.is_none()
    }

    /// Whether channel `c` has a track.
    pub fn has(&self, c: Channel) -> bool {
        match c {
            Channel::Translation => self.translation.is_some(),
            Channel::Rotation => self.rotation.is_some(),
            Channel::Scale => self.scale.is_some(),
        }
    }
}

/// What an opaque track animates.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum OpaqueKind {
    /// Morph-target weights of a node.
    Weights {
        /// The glTF node index.
        node: u32,
    },
    /// A translation, rotation or scale channel of a node that is not a bone of this skeleton.
    NodeTransform {
        /// The glTF node index.
        node: u32,
        /// `translation`, `rotation` or `scale`.
        path: String,
    },
    /// A `KHR_animation_pointer` channel (or another the model does not know).
    Pointer {
        /// The JSON pointer or target description.
        pointer: String,
    },
}

/// A channel the model carries through untouched (morph weights, pointer channels, other nodes).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct OpaqueTrack {
    /// What it animates.
    #[serde(flatten)]
    pub kind: OpaqueKind,
    /// Index of the channel in the source animation: the handle the writer uses to keep it.
    pub channel: u32,
    /// Last key time, seconds.
    pub duration: f32,
}

/// A named float curve of a clip: a value per key that animates no bone (an FBX node's animated
/// user property, as Unreal writes its animation curves: a foot-lock or foot-contact curve,
/// `FootLock_L`). Read from FBX; glTF has no place for them (they are not written).
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The curve's name (the property's).
    pub name: String,
    /// Its keys (times in seconds from the clip's start).
    pub track: Track<f32>,
}

/// An animation clip of one skeleton.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    /// Name; unnamed glTF animations get `animation<index>`.
    pub name: String,
    /// The skeleton in the file whose bones the tracks animate.
    pub skeleton: SkeletonId,
    /// One entry per bone of the skeleton, indexed by `BoneId`.
    pub tracks: Vec<BoneTracks>,
    /// Channels the model does not interpret, carried through untouched.
    pub opaque: Vec<OpaqueTrack>,
    /// Index of the glTF animation this clip was read from, if any.
    pub source: Option<u32>,
    /// When set, the translation keys of the root and hips bones were divided by this height
    /// (metres): multiply them back by the playing skeleton's own hips height.
    pub motion_scale: Option<f32>,
    /// Named float curves (see [`Curve`]), one per name: FBX gives them node by node as the file
    /// lists nodes, a node's by name.
    pub curves: Vec<Curve>,
}

impl Clip {
    /// A clip of skeleton `skeleton` with these bone tracks and nothing else: no opaque
    /// channels, no glTF source, no motion scale, no curves.
    pub fn new(name: impl Into<String>, skeleton: SkeletonId, tracks: Vec<BoneTracks>) -> Clip {
        Clip {
            name: name.into(),
            skeleton,
            tracks,
            opaque: Vec::new(),
            source: None,
            motion_scale: None,
            curves: Vec::new(),
        }
    }

    /// Checks the rules of a valid clip for `skeleton` and returns every broken one.
    ///
    /// 1. There is one [`BoneTracks`] per bone of the skeleton.
    /// 2. Every track has at least one key and one value per key (three for cubic splines).
    /// 3. Key times are finite and non-decreasing.
    /// 4. Every value is finite.
    ///
    /// Rules 2–4 hold for curves' tracks too.
    pub fn validate(&self, skeleton: &Skeleton) -> Vec<Problem> {
        let mut out = Vec::new();
        if self.tracks.len() != skeleton.bones.len() {
            out.push(Problem {
                rule: 1,
                message: format!(
                    "clip `{}`: {} bone tracks for {} bones",
                    self.name,
                    self.tracks.len(),
                    skeleton.bones.len()
                ),
            });
            return out;
        }
        let mut times_ok = None;
        for (bone, t) in skeleton.bones.iter().zip(&self.tracks) {
            let what =
                |ch: Channel| move || format!("clip `{}`, bone `{}`, {ch}", self.name, bone.name);
            if let Some(tr) = &t.translation {
                tr.check(what(Channel::Translation), &mut times_ok, &mut out);
            }
            if let Some(tr) = &t.rotation {
                tr.check(what(Channel::Rotation), &mut times_ok, &mut out);
            }
            if let Some(tr) = &t.scale {
                tr.check(what(Channel::Scale), &mut times_ok, &mut out);
            }
        }
        for c in &self.curves {
            let what = || format!("clip `{}`, curve `{}`", self.name, c.name);
            c.track.check(what, &mut times_ok, &mut out);
        }
        out
    }

    /// Last key time over every track, opaque ones included, in seconds.
    pub fn duration(&self) -> f32 {
        let mut d = self
            .opaque
            .iter()
            .map(|o| o.duration)
            .fold(0.0f32, f32::max);
        for t in &self.tracks {
            let last = |times: Option<&Arc<[f32]>>| times.and_then(|v| v.last().copied());
            for end in [
                last(t.translation.as_ref().map(|t| &t.times)),
                last(t.rotation.as_ref().map(|t| &t.times)),
                last(t.scale.as_ref().map(|t| &t.times)),
            ]
            .into_iter()
            .flatten()
            {
                d = d.max(end);
            }
        }
        d
    }

    /// The times to sample the clip at, in seconds (used by the Python package's
    /// `Clip.sample`). With `fps`: every `1/fps` s from 0 through the duration, as the BVH writer
    /// steps. Without: the key times, when every bone track (of any channel) has the very same
    /// ones; else every 1/30 s. A clip without bone tracks gives `[0.0]`. `fps` must be finite and
    /// above 0 (the caller checks).
    pub fn sample_times(&self, fps: Option<f32>) -> Vec<f32> {
        if fps.is_none() {
            let mut shared: Option<&Arc<[f32]>> = None;
            let mut same = true;
            for t in &self.tracks {
                let all = [
                    t.translation.as_ref().map(|t| &t.times),
                    t.rotation.as_ref().map(|t| &t.times),
                    t.scale.as_ref().map(|t| &t.times),
                ];
                for times in all.into_iter().flatten() {
                    same &= shared.is_none_or(|s| s == times);
                    shared.get_or_insert(times);
                }
            }
            match shared {
                Some(times) if same => return times.to_vec(),
                None => return vec![0.0],
                _ => {}
            }
        }
        let dt = 1.0 / f64::from(fps.unwrap_or(30.0));
        let frames = (f64::from(self.duration()) / dt + 1e-3).floor() as usize + 1;
        (0..frames).map(|i| (i as f64 * dt) as f32).collect()
    }

    /// The curve named `name`, if the clip has one.
    pub fn curve(&self, name: &str) -> Option<&Curve> {
        self.curves.iter().find(|c| c.name == name)
    }

    /// Number of bone channels that have tracks.
    pub fn channel_count(&self) -> usize {
        self.tracks
            .iter()
            .map(|t| {
                t.translation.is_some() as usize
                    + t.rotation.is_some() as usize
                    + t.scale.is_some() as usize
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_are_equal_field_by_field() {
        let q = |values: Vec<Quat>| Track {
            interpolation: Interpolation::Linear,
            times: vec![0.0, 1.0].into(),
            values: values.into(),
        };
        let a = q(vec![Quat::IDENTITY, Quat::from_rotation_x(0.5)]);
        let same = q(vec![Quat::IDENTITY, Quat::from_rotation_x(0.5)]);
        let mut later = a.clone();
        later.times = Arc::from([0.0, 2.0]);
        let mut step = a.clone();
        step.interpolation = Interpolation::Step;
        let other = q(vec![Quat::IDENTITY, Quat::from_rotation_y(0.5)]);
        let nan = q(vec![
            Quat::IDENTITY,
            Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0),
        ]);
        let all = [&a, &same, &later, &step, &other, &nan];
        for (i, x) in all.iter().enumerate() {
            for (j, y) in all.iter().enumerate() {
                // Each equals itself, and the first two (equal, not shared) each other; the
                // one with a NaN equals nothing, itself neither.
                let want = (i < 2 && j < 2) || (i == j && i != 5);
                assert_eq!(x == y, want, "tracks {i} and {j}");
            }
        }
    }

    fn track(interpolation: Interpolation, values: Vec<Vec3>) -> Track<Vec3> {
        Track {
            interpolation,
            times: vec![0.0, 1.0].into(),
            values: values.into(),
        }
    }

    #[test]
    fn a_key_search_from_any_cursor_finds_the_key_a_full_search_finds() {
        // Key times with repeats and gaps; every time between and around them, every cursor.
        let times = [
            0.0, 0.1, 0.1, 0.2, 0.5, 0.5, 0.5, 0.9, 1.0, 1.7, 2.0, 2.0, 3.0,
        ];
        for i in 0..=70 {
            let time = i as f32 * 0.05 - 0.2;
            let want = times.partition_point(|&t| t <= time);
            for cursor in 0..=times.len() + 1 {
                assert_eq!(next_key(&times, time, cursor), want, "{time} from {cursor}");
            }
        }
        // A series of increasing times with one cursor samples what `sample` gives.
        let t = Track {
            interpolation: Interpolation::Linear,
            times: (0..40).map(|k| (k as f32 * 0.37).sqrt()).collect(),
            values: (0..40)
                .map(|k| Vec3::new((k as f32).sin(), (k as f32 * 0.3).cos(), k as f32))
                .collect(),
        };
        let mut at = 0;
        for f in 0..200 {
            let time = f as f32 / 30.0;
            let bits = |v: Vec3| v.to_array().map(f32::to_bits);
            assert_eq!(bits(t.sample_from(time, &mut at)), bits(t.sample(time)));
        }
    }

    /// Spans found on a long key-time array fit that array (and its clones) only: another array
    /// of the same numbers is compared value by value only up to `COMPARED_KEYS` keys.
    #[test]
    fn spans_of_long_key_times_fit_only_their_own_array() {
        let times: Vec<f32> = (0..=COMPARED_KEYS).map(|k| k as f32 / 30.0).collect();
        let track = |times: Arc<[f32]>| Track {
            interpolation: Interpolation::Linear,
            values: (0..times.len()).map(|k| Vec3::splat(k as f32)).collect(),
            times,
        };
        let (a, b) = (track(times.clone().into()), track(times[..].into()));
        let mut spans = Spans::default();
        a.find_spans(&[0.1, 0.2, 2.0], &mut spans);
        assert!(spans.fit(&a) && spans.fit(&track(a.times.clone())));
        assert!(!spans.fit(&b), "another array of {} keys", times.len());
        let short = |n: usize| track(times[..n].into());
        short(COMPARED_KEYS).find_spans(&[0.1, 0.2, 2.0], &mut spans);
        assert!(spans.fit(&short(COMPARED_KEYS)));
    }

    /// Issue 19, round 9: sampling a series of times in one walk gives what `sample` and
    /// `sample_unit` give at each, bit for bit: every interpolation, keys with repeated times,
    /// a single key, frames on the keys, between them and outside them, and times out of order.
    #[test]
    fn a_series_samples_what_each_time_samples() {
        let times: Vec<f32> = vec![0.0, 0.1, 0.1, 0.2, 0.5, 0.5, 0.5, 0.9, 1.0, 1.7, 2.0, 2.0];
        let on_frames: Vec<f32> = (0..40).map(|k| k as f32 / 30.0).collect();
        let keys = |n: usize| -> Vec<Quat> {
            (0..n)
                .map(|k| {
                    let k = k as f32;
                    // Some unit to rounding, some (a few) far from unit length.
                    Quat::from_xyzw(k.sin(), 0.3, -0.7, 0.2 + 0.01 * k) * (1.0 + 0.3 * (k % 3.0))
                })
                .collect()
        };
        let series: Vec<Vec<f32>> = vec![
            (0..=75).map(|f| f as f32 / 30.0 - 0.2).collect(),
            (0..=45).map(|f| f as f32 / 30.0).collect(),
            times.clone(),
            vec![0.5, 0.05, 1.9, 1.9, 0.1, 3.0, -1.0, 0.95, 0.4, 0.3],
            vec![],
        ];
        let bits = |q: Quat| q.to_array().map(f32::to_bits);
        for key_times in [times.clone(), on_frames, vec![0.4]] {
            let n = key_times.len();
            for interpolation in [
                Interpolation::Linear,
                Interpolation::Step,
                Interpolation::CubicSpline,
            ] {
                let per = if interpolation == Interpolation::CubicSpline {
                    3
                } else {
                    1
                };
                let t = Track {
                    interpolation,
                    times: key_times.clone().into(),
                    values: keys(n * per).into(),
                };
                let v = Track {
                    interpolation,
                    times: key_times.clone().into(),
                    values: keys(n * per).iter().map(|q| q.xyz()).collect(),
                };
                for at in &series {
                    // Where the times fall, found once on `t`, samples `t` and a track sharing
                    // its key times as each time does; not a track with other key times or
                    // other stepping.
                    let mut spans = Spans::default();
                    t.find_spans(at, &mut spans);
                    let w = Track {
                        interpolation,
                        times: t.times.clone(),
                        values: v.values.clone(),
                    };
                    let mut seen = 0;
                    t.sample_each_in(&spans, |i, q| {
                        assert_eq!(bits(q), bits(t.sample(at[i])), "{interpolation:?} {i}");
                        seen += 1;
                    });
                    t.sample_unit_each_in(&spans, |i, q| {
                        assert_eq!(bits(q), bits(t.sample_unit(at[i])), "{interpolation:?} {i}");
                        seen += 1;
                    });
                    assert!(spans.fit(&w));
                    w.sample_each_in(&spans, |i, x| {
                        let (x, y) = (x.to_array(), w.sample(at[i]).to_array());
                        assert_eq!(x.map(f32::to_bits), y.map(f32::to_bits), "{i}");
                        seen += 1;
                    });
                    assert_eq!(seen, 3 * at.len());
                    // Another array of the same numbers (a file whose samplers each have an
                    // input of their own): the spans fit it and sample it as each time does;
                    // other numbers do not fit.
                    assert!(spans.fit(&v), "another array, the same numbers");
                    v.sample_each_in(&spans, |i, x| {
                        let (x, y) = (x.to_array(), v.sample(at[i]).to_array());
                        assert_eq!(x.map(f32::to_bits), y.map(f32::to_bits), "{i}");
                    });
                    let shifted = Track {
                        interpolation,
                        times: key_times.iter().map(|t| t + 0.01).collect(),
                        values: v.values.clone(),
                    };
                    assert!(!spans.fit(&shifted), "other numbers");
                    let other = match interpolation {
                        Interpolation::Step => Interpolation::Linear,
                        _ => Interpolation::Step,
                    };
                    let stepping = Track {
                        interpolation: other,
                        ..w.clone()
                    };
                    assert!(!spans.fit(&stepping), "{interpolation:?}");
                }
            }
        }
    }

    #[test]
    fn samples_the_three_interpolations() {
        let lin = track(Interpolation::Linear, vec![Vec3::ZERO, Vec3::X]);
        assert_eq!(lin.sample(0.25), Vec3::new(0.25, 0.0, 0.0));
        assert_eq!(lin.sample(-1.0), Vec3::ZERO);
        assert_eq!(lin.sample(5.0), Vec3::X);
        let step = track(Interpolation::Step, vec![Vec3::ZERO, Vec3::X]);
        assert_eq!(step.sample(0.99), Vec3::ZERO);
        // Tangents of 1 unit/s on a line from 0 to 1 over 1 s: the spline is the line itself.
        let cubic = track(
            Interpolation::CubicSpline,
            vec![Vec3::X, Vec3::ZERO, Vec3::X, Vec3::X, Vec3::X, Vec3::X],
        );
        assert!((cubic.sample(0.3) - Vec3::new(0.3, 0.0, 0.0)).length() < 1e-6);
    }

    #[test]
    fn sample_times_are_the_shared_keys_else_a_grid() {
        let clip = |a: Vec<f32>, b: Vec<f32>| {
            Clip::new(
                "c",
                crate::model::SkeletonId(0),
                vec![
                    BoneTracks {
                        translation: Some(Track {
                            interpolation: Interpolation::Linear,
                            values: vec![Vec3::ZERO; a.len()].into(),
                            times: a.into(),
                        }),
                        ..Default::default()
                    },
                    BoneTracks {
                        rotation: Some(Track {
                            interpolation: Interpolation::Linear,
                            values: vec![Quat::IDENTITY; b.len()].into(),
                            times: b.into(),
                        }),
                        ..Default::default()
                    },
                ],
            )
        };
        let shared = clip(vec![0.0, 0.25, 0.7], vec![0.0, 0.25, 0.7]);
        assert_eq!(shared.sample_times(None), vec![0.0, 0.25, 0.7]);
        assert_eq!(shared.sample_times(Some(10.0)).len(), 8);
        let apart = clip(vec![0.0, 0.1], vec![0.0, 0.1, 0.2]);
        assert_eq!(apart.sample_times(None).len(), 7); // 0.2 s at 30 fps
    }

    #[test]
    fn slerps_rotations() {
        let q = Track {
            interpolation: Interpolation::Linear,
            times: vec![0.0, 2.0].into(),
            values: vec![Quat::IDENTITY, Quat::from_rotation_y(1.0)].into(),
        };
        assert!(q.sample(1.0).angle_between(Quat::from_rotation_y(0.5)) < 1e-5);
    }

    /// Issue 18 (BVH → numpy → BVH is exact): sampling at a key time gives the stored key bit
    /// for bit, without a slerp or a renormalization; only keys off unit length by more than
    /// rounding (quantized ones) are normalized.
    #[test]
    fn key_times_give_the_stored_keys() {
        // Unit to rounding, but `normalize` changes their last digits.
        let keys: Vec<Quat> = (0..40)
            .map(|i| Quat::from_xyzw(0.1 * i as f32, 0.3, -0.7, 0.2 + 0.01 * i as f32).normalize())
            .collect();
        assert!(keys.iter().any(|q| q.normalize() != *q));
        let times: Vec<f32> = (0..40).map(|i| i as f32 / 30.0).collect();
        let cubic: Vec<Quat> = keys.iter().flat_map(|&q| [q * 0.5, q, q * -0.25]).collect();
        for (interpolation, values) in [
            (Interpolation::Linear, keys.clone()),
            (Interpolation::Step, keys.clone()),
            (Interpolation::CubicSpline, cubic),
        ] {
            let t = Track {
                interpolation,
                times: times.clone().into(),
                values: values.into(),
            };
            for (k, &time) in times.iter().enumerate() {
                assert_eq!(
                    t.sample(time).to_array(),
                    keys[k].to_array(),
                    "{interpolation:?} key {k}"
                );
                assert_eq!(
                    t.sample_unit(time).to_array(),
                    keys[k].to_array(),
                    "{interpolation:?} key {k}"
                );
            }
            let between = t.sample_unit(0.5 / 30.0);
            assert!((between.length() - 1.0).abs() < 1e-6);
        }
        let quantized = Track {
            interpolation: Interpolation::Linear,
            times: vec![0.0, 1.0].into(),
            values: vec![Quat::from_xyzw(0.0, 0.0, 0.0, 0.999), Quat::IDENTITY].into(),
        };
        assert_eq!(quantized.sample(0.0).w, 0.999);
        assert_eq!(quantized.sample_unit(0.0), Quat::IDENTITY);
    }
}
