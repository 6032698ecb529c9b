//! Clips sampled over runs of times (frames), track by track: each track's keys are read in
//! order, a few per frame, in one walk ([`Track::sample_each_in`]), rather than one key of every
//! track per frame with a search of its keys each time; where the times fall on the keys is found
//! once for the tracks that share their key times (the tracks of one glTF sampler input share
//! one array, and so do a model and its copy before a stage changed it). The values are those
//! [`Pose::sample_into`](super::Pose::sample_into) gives over the rest, bit for bit.

use super::clip::same_times;
use super::{Clip, Skeleton, Spans, Track, TrackValue, Transform};

/// How many key-time arrays a [`RunSampler`] keeps where a run's times fall on, at once.
const KEPT: usize = 8;

/// Frames a [`FrameRuns`] samples at once: 32 poses of a 65-bone skeleton are 100 KB.
pub const FRAMES_PER_RUN: usize = 32;

/// Samples clips over a run of times, keeping where the run's times fall on the last few
/// key-time arrays its tracks use ([`Spans`]), for as long as it is asked for the same times:
/// at other times it finds them again.
#[derive(Debug, Default)]
pub struct RunSampler {
    /// The times `spans` were found for, the last run's.
    times: Vec<f32>,
    spans: Vec<Spans>,
    /// How many of `spans` hold for this run.
    used: usize,
    /// The one found longest ago, once all are used.
    oldest: usize,
}

impl RunSampler {
    /// Samples `clip` playing on `skeleton` (valid for it, [`Clip::validate`]) at each of
    /// `times` (increasing) into `out`: one pose after another, each `skeleton.bones.len()`
    /// locals, channels without a track at the rest. Bones that `needed` (when given, one flag
    /// per bone) flags `false` keep their rest. The values are those
    /// [`Pose::sample_into`](super::Pose::sample_into) gives over the rest at each time, bit
    /// for bit.
    pub fn sample(
        &mut self,
        skeleton: &Skeleton,
        clip: &Clip,
        times: &[f32],
        out: &mut Vec<Transform>,
        needed: Option<&[bool]>,
    ) {
        if !same_times(&self.times, times) {
            (self.used, self.oldest) = (0, 0);
            self.times.clear();
            self.times.extend_from_slice(times);
        }
        let n = skeleton.bones.len();
        out.clear();
        for _ in times {
            out.extend(skeleton.bones.iter().map(|b| b.rest));
        }
        for (b, tracks) in clip.tracks.iter().enumerate().take(n) {
            if needed.is_some_and(|need| need.get(b) == Some(&false)) {
                continue;
            }
            let frame = &mut out[b..];
            if let Some(t) = &tracks.translation {
                t.sample_each_in(self.of(t, times), |i, v| frame[i * n].translation = v);
            }
            if let Some(t) = &tracks.rotation {
                t.sample_unit_each_in(self.of(t, times), |i, v| frame[i * n].rotation = v);
            }
            if let Some(t) = &tracks.scale {
                t.sample_each_in(self.of(t, times), |i, v| frame[i * n].scale = v);
            }
        }
    }

    /// Where `times` (this run's) fall on `track`'s keys.
    fn of<T: TrackValue>(&mut self, track: &Track<T>, times: &[f32]) -> &Spans {
        if let Some(i) = self.spans[..self.used].iter().position(|s| s.fit(track)) {
            return &self.spans[i];
        }
        let i = if self.used < KEPT {
            self.used += 1;
            self.used - 1
        } else {
            let i = self.oldest;
            self.oldest = (i + 1) % KEPT;
            i
        };
        if i == self.spans.len() {
            self.spans.push(Spans::default());
        }
        track.find_spans(times, &mut self.spans[i]);
        &self.spans[i]
    }
}

/// A clip's poses at a series of times, [`FRAMES_PER_RUN`] at a time, for passes that take one
/// frame after another (retargeting a clip and measuring the result, say):
///
/// ```
/// # use skelnorm::model::{Clip, FrameRuns, Skeleton};
/// # fn pass(skeleton: &Skeleton, clip: &Clip, times: &[f32]) {
/// let mut runs = FrameRuns::new(skeleton, clip, times);
/// while let Some(run) = runs.next_run() {
///     for (i, locals) in run.frames() {
///         // `locals`: the pose at `times[i]`, one transform per bone.
///     }
/// }
/// # }
/// ```
#[derive(Debug)]
pub struct FrameRuns<'a> {
    skeleton: &'a Skeleton,
    clip: &'a Clip,
    times: &'a [f32],
    at: usize,
    sampler: RunSampler,
    poses: Vec<Transform>,
}

impl<'a> FrameRuns<'a> {
    /// The poses of `clip` playing on `skeleton` at `times` (increasing; the clip valid for the
    /// skeleton, [`Clip::validate`]).
    pub fn new(skeleton: &'a Skeleton, clip: &'a Clip, times: &'a [f32]) -> Self {
        FrameRuns {
            skeleton,
            clip,
            times,
            at: 0,
            sampler: RunSampler::default(),
            poses: Vec::new(),
        }
    }

    /// The next run of frames; `None` after the last time.
    pub fn next_run(&mut self) -> Option<Run<'_>> {
        let first = self.at;
        if first >= self.times.len() {
            return None;
        }
        let end = (first + FRAMES_PER_RUN).min(self.times.len());
        self.at = end;
        let times = &self.times[first..end];
        self.sampler
            .sample(self.skeleton, self.clip, times, &mut self.poses, None);
        Some(Run {
            first,
            frames: end - first,
            bones: self.skeleton.bones.len(),
            poses: &self.poses,
        })
    }
}

/// Frames of a [`FrameRuns`] sampled at once.
#[derive(Debug, Clone, Copy)]
pub struct Run<'r> {
    first: usize,
    frames: usize,
    bones: usize,
    poses: &'r [Transform],
}

impl<'r> Run<'r> {
    /// Each frame of the run: its place in the times and its pose (one local per bone).
    pub fn frames(&self) -> impl Iterator<Item = (usize, &'r [Transform])> {
        let (first, n, poses) = (self.first, self.bones, self.poses);
        (0..self.frames).map(move |k| (first + k, &poses[k * n..(k + 1) * n]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Bone, BoneId, BoneTracks, Interpolation, Pose};
    use glam::{Mat4, Quat, Vec3};
    use proptest::prelude::*;
    use std::sync::Arc;

    /// The bits of a transform, to compare bit for bit.
    fn bits(t: &Transform) -> Vec<u32> {
        let mut v: Vec<f32> = t.translation.to_array().to_vec();
        v.extend(t.rotation.to_array());
        v.extend(t.scale.to_array());
        v.into_iter().map(f32::to_bits).collect()
    }

    /// A skeleton of `parents.len()` bones (bone `i`'s parent the `parents[i]`th of the ones
    /// before it, or a root) and a clip on it: bone `i` animated as `animated[i]` says (no
    /// track, or one on key-time array `k` of `arrays` with interpolation `how`). The tracks on
    /// one of `arrays` share it, or (`own`) each have a copy of their own.
    fn rig_and_clip(
        parents: &[Option<usize>],
        animated: &[(bool, bool, usize, u8)],
        arrays: &[Vec<f32>],
        own: bool,
    ) -> (Skeleton, Clip) {
        let bones = parents
            .iter()
            .enumerate()
            .map(|(i, p)| Bone {
                name: format!("b{i}"),
                parent: p.filter(|_| i > 0).map(|p| BoneId((p % i) as u32)),
                rest: Transform {
                    translation: Vec3::new(0.1 * i as f32, 1.0, -0.2),
                    rotation: Quat::from_rotation_z(0.1 * i as f32),
                    scale: Vec3::splat(1.0 + 0.01 * i as f32),
                },
                is_joint: true,
                weighted: None,
                node: None,
            })
            .collect();
        let skeleton = Skeleton {
            name: "s".into(),
            bones,
            skins: Vec::new(),
            attachments: Vec::new(),
            base: Mat4::IDENTITY,
            base_nodes: Vec::new(),
            declared: None,
        };
        let arrays: Vec<Arc<[f32]>> = arrays.iter().map(|a| a.clone().into()).collect();
        let tracks = animated
            .iter()
            .enumerate()
            .map(|(b, &(moves, turns, k, how))| {
                let times = &arrays[k % arrays.len()];
                let times: Arc<[f32]> = if own { times[..].into() } else { times.clone() };
                let interpolation = match how % 3 {
                    0 => Interpolation::Linear,
                    1 => Interpolation::Step,
                    _ => Interpolation::CubicSpline,
                };
                let per = if how % 3 == 2 { 3 } else { 1 };
                let n = times.len() * per;
                let f = |j: usize| (b * 7 + j) as f32;
                BoneTracks {
                    translation: moves.then(|| Track {
                        interpolation,
                        times: times.clone(),
                        values: (0..n)
                            .map(|j| Vec3::new(f(j).sin(), 0.5, f(j).cos()))
                            .collect(),
                    }),
                    rotation: turns.then(|| Track {
                        interpolation,
                        times: times.clone(),
                        values: (0..n)
                            .map(|j| Quat::from_xyzw(f(j).sin(), 0.3, -0.7, 0.2 + 0.1 * f(j).cos()))
                            .collect(),
                    }),
                    scale: (moves && turns).then(|| Track {
                        interpolation,
                        times: times.clone(),
                        values: (0..n)
                            .map(|j| Vec3::splat(1.0 + 0.1 * f(j).sin()))
                            .collect(),
                    }),
                }
            })
            .collect();
        let clip = Clip::new("c", crate::model::SkeletonId(0), tracks);
        (skeleton, clip)
    }

    /// Increasing key times: `gaps` apart (repeated times where a gap is 0).
    fn key_times(gaps: &[u8]) -> Vec<f32> {
        let mut t = 0.0f32;
        gaps.iter()
            .map(|&g| {
                t += f32::from(g % 5) * 0.07;
                t
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Every frame of a run is the pose `Pose::sample` gives at its time, bit for bit: over
        /// any hierarchy, bones with and without tracks, key-time arrays shared by many tracks
        /// or copied for each, every interpolation, and runs of any length (across
        /// `FRAMES_PER_RUN`).
        #[test]
        fn runs_sample_what_each_pose_samples(
            parents in proptest::collection::vec(proptest::option::of(0usize..64), 1..20),
            animated in proptest::collection::vec((any::<bool>(), any::<bool>(), 0usize..4, any::<u8>()), 20),
            arrays in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 1..12), 1..4),
            frames in 0usize..100,
            fps in 5.0f32..60.0,
            start in -0.5f32..0.5,
            own in any::<bool>(),
        ) {
            let arrays: Vec<Vec<f32>> = arrays.iter().map(|g| key_times(g)).collect();
            let (skeleton, clip) = rig_and_clip(&parents, &animated[..parents.len()], &arrays, own);
            let times: Vec<f32> = (0..frames).map(|f| start + f as f32 / fps).collect();
            let mut runs = FrameRuns::new(&skeleton, &clip, &times);
            let mut seen = 0;
            while let Some(run) = runs.next_run() {
                for (i, locals) in run.frames() {
                    prop_assert_eq!(i, seen);
                    let pose = Pose::sample(&skeleton, &clip, times[i]);
                    prop_assert_eq!(locals.len(), pose.locals.len());
                    for (a, b) in locals.iter().zip(&pose.locals) {
                        prop_assert_eq!(bits(a), bits(b), "frame {} at {}", i, times[i]);
                    }
                    seen += 1;
                }
            }
            prop_assert_eq!(seen, times.len());
        }
    }

    /// Bones that `needed` leaves out keep their rest; the others are sampled; and the spans
    /// found for one run are not used for a run at other times, longer or shorter.
    #[test]
    fn unneeded_bones_keep_their_rest_and_other_times_are_found_again() {
        let arrays = vec![key_times(&[1, 2, 3, 1, 4]), key_times(&[2, 2, 2])];
        let animated = [(true, true, 0, 0), (true, true, 1, 1), (false, true, 0, 2)];
        let (skeleton, clip) = rig_and_clip(&[None, Some(0), Some(1)], &animated, &arrays, false);
        let mut sampler = RunSampler::default();
        let mut out = Vec::new();
        let first: Vec<f32> = (0..10).map(|f| f as f32 * 0.05).collect();
        let needed = [true, false, true];
        sampler.sample(&skeleton, &clip, &first, &mut out, Some(&needed));
        for (i, &t) in first.iter().enumerate() {
            let pose = Pose::sample(&skeleton, &clip, t);
            let frame = &out[i * 3..(i + 1) * 3];
            assert_eq!(bits(&frame[0]), bits(&pose.locals[0]));
            assert_eq!(bits(&frame[1]), bits(&skeleton.bones[1].rest));
            assert_eq!(bits(&frame[2]), bits(&pose.locals[2]));
        }
        let later: Vec<f32> = (0..7).map(|f| 0.3 + f as f32 * 0.11).collect();
        let longer: Vec<f32> = (0..12).map(|f| 0.3 + f as f32 * 0.11).collect();
        for times in [&later, &longer, &first] {
            sampler.sample(&skeleton, &clip, times, &mut out, None);
            assert_eq!(out.len(), times.len() * 3);
            for (i, &t) in times.iter().enumerate() {
                let pose = Pose::sample(&skeleton, &clip, t);
                for (a, b) in out[i * 3..(i + 1) * 3].iter().zip(&pose.locals) {
                    assert_eq!(bits(a), bits(b), "{i}");
                }
            }
        }
    }
}
