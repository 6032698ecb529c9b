//! The data of the report's animated previews (as `picture` is for skeletons): per clip, the
//! main bones of both sides (the input and output of normalize, or the source and target of a
//! retarget) sampled at the same times and quantized to bytes, and charts of the measured
//! quality over those times: foot height and foot speed on both sides, and for a retarget the
//! end-effector error. Models in, report data out; within a byte budget per file.

use crate::mapping::BoneMap;
use crate::model::{BoneId, Clip, Model, Pose, Skeleton};
use crate::pipeline::{effector_series, NormalizeReport, RetargetJob, RetargetReport, Side};
use crate::profile::Profile;
use crate::report::{Chart, Figure, Preview, Series};
use base64::Engine;
use glam::Vec3;

/// The profile bones a figure draws, those the skeleton maps: a stick figure of 18 bones at
/// most.
const MAIN_BONES: [&str; 18] = [
    "Hips",
    "Spine",
    "Chest",
    "Head",
    "LeftUpperArm",
    "LeftLowerArm",
    "LeftHand",
    "RightUpperArm",
    "RightLowerArm",
    "RightHand",
    "LeftUpperLeg",
    "LeftLowerLeg",
    "LeftFoot",
    "LeftToes",
    "RightUpperLeg",
    "RightLowerLeg",
    "RightFoot",
    "RightToes",
];

/// Sample rate of a preview at most, frames per second (the page interpolates between frames).
const MAX_FPS: f32 = 20.0;
/// Sample rate at least: a long clip shows its first seconds rather than a blur.
const MIN_FPS: f32 = 8.0;
/// Frames of one clip at most.
const MAX_FRAMES: usize = 32;
/// Frames over all the previews of one file: with 18 bones, 3 bytes each, two sides, about
/// 4.3 kB per file at most (2 bytes per joint in the HTML report: 3.8 kB in base64), so that
/// the report of 500 files stays small.
const FILE_FRAMES: usize = 40;
/// Clips previewed per file at most.
const MAX_CLIPS: usize = 3;

/// The rate and times (seconds) to sample a clip of `duration` seconds at, one of `clips`
/// previews of a file: as fast as [`MAX_FPS`] while the file's budget allows, no slower than
/// [`MIN_FPS`] (a long clip gives its first seconds), from time 0.
pub fn sample_times(duration: f32, clips: usize) -> (f32, Vec<f32>) {
    let budget = (FILE_FRAMES / clips.max(1)).clamp(2, MAX_FRAMES);
    let duration = if duration.is_finite() {
        duration.max(0.0)
    } else {
        0.0
    };
    let fps = if duration > 0.0 {
        ((budget - 1) as f32 / duration).clamp(MIN_FPS, MAX_FPS)
    } else {
        MAX_FPS
    };
    let frames = ((duration * fps + 1e-3).floor() as usize + 1).min(budget);
    let fps = sig3(fps);
    (fps, (0..frames).map(|f| f as f32 / fps).collect())
}

/// Previews of the clips normalize changed: each clip of a normalized skeleton as it came
/// (`before`) beside the same clip after (`after`), the first [`MAX_CLIPS`].
pub fn normalize_previews(
    before: &Model,
    after: &Model,
    report: &NormalizeReport,
    profile: &Profile,
) -> Vec<Preview> {
    let pairs: Vec<_> = report
        .skeletons
        .iter()
        .filter(|s| s.skipped.is_none())
        .flat_map(|s| {
            before
                .clips
                .iter()
                .filter(move |c| c.skeleton == s.index)
                .filter_map(move |c| {
                    let a = after
                        .clips
                        .iter()
                        .find(|a| a.skeleton == s.index && a.name == c.name)?;
                    Some((c, a, s))
                })
        })
        .take(MAX_CLIPS)
        .collect();
    let n = pairs.len();
    pairs
        .into_iter()
        .map(|(b, a, s)| {
            let duration = b.duration().max(a.duration());
            let (fps, times) = sample_times(duration, n);
            let sides = [
                sample(
                    "input",
                    before.skeleton(s.index),
                    b,
                    &s.bone_map,
                    profile,
                    &times,
                ),
                sample(
                    "output",
                    after.skeleton(s.index),
                    a,
                    &s.bone_map,
                    profile,
                    &times,
                ),
            ];
            preview(&a.name, duration, fps, &sides, Vec::new())
        })
        .collect()
}

/// Previews of a retarget: each source clip beside its new clip on the target (both sides
/// normalized, `target` holding the new clips), with the end-effector error charted, the first
/// [`MAX_CLIPS`].
pub fn retarget_previews(
    source: (&Model, &Side),
    target: (&Model, &Side),
    profile: &Profile,
    report: &RetargetReport,
    job: &RetargetJob,
) -> Vec<Preview> {
    let ((sm, ss), (tm, ts)) = (source, target);
    let pairs: Vec<(&Clip, &Clip)> = report
        .clips
        .iter()
        .filter_map(|r| {
            Some((
                clip_named(sm, ss, &r.source_clip)?,
                clip_named(tm, ts, &r.clip)?,
            ))
        })
        .take(MAX_CLIPS)
        .collect();
    let n = pairs.len();
    pairs
        .into_iter()
        .map(|(sc, tc)| {
            let duration = sc.duration().max(tc.duration());
            let (fps, times) = sample_times(duration, n);
            let sides = [
                sample(
                    "source",
                    sm.skeleton(ss.index),
                    sc,
                    &ss.map,
                    profile,
                    &times,
                ),
                sample(
                    "target",
                    tm.skeleton(ts.index),
                    tc,
                    &ts.map,
                    profile,
                    &times,
                ),
            ];
            let errors = effector_series(
                (sm, ss, sc),
                (tm, ts, tc),
                profile,
                &report.plan,
                &job.retarget,
                &times,
            );
            let chart = Chart {
                title: "end-effector error".into(),
                unit: "× height".into(),
                series: errors
                    .into_iter()
                    .filter_map(|(bone, v)| {
                        Some(Series {
                            bone,
                            side: "target".into(),
                            values: v.ok()?.into_iter().map(sig3).collect(),
                        })
                    })
                    .collect(),
            };
            preview(&tc.name, duration, fps, &sides, vec![chart])
        })
        .collect()
}

/// The last clip of `side`'s skeleton named `name` in `model`.
fn clip_named<'m>(model: &'m Model, side: &Side, name: &str) -> Option<&'m Clip> {
    model
        .clips
        .iter()
        .rev()
        .find(|c| c.skeleton == side.index && c.name == name)
}

/// One side sampled: the drawn bones (profile name, bone, parents first), world joint
/// positions per frame, and the skeleton's height.
struct Sampled<'a> {
    label: &'a str,
    skeleton: &'a Skeleton,
    bones: Vec<(&'static str, BoneId)>,
    frames: Vec<Vec<Vec3>>,
    height: f32,
}

impl Sampled<'_> {
    /// The track of profile bone `name` over the frames, if drawn.
    fn track(&self, name: &str) -> Option<Vec<Vec3>> {
        let i = self.bones.iter().position(|(n, _)| *n == name)?;
        Some(self.frames.iter().map(|f| f[i]).collect())
    }
}

fn sample<'a>(
    label: &'a str,
    skeleton: &'a Skeleton,
    clip: &Clip,
    map: &BoneMap,
    profile: &Profile,
    times: &[f32],
) -> Sampled<'a> {
    let mut bones: Vec<(&'static str, BoneId)> = MAIN_BONES
        .iter()
        .filter_map(|&n| map.by_name(profile, n).map(|b| (n, b)))
        .filter(|(_, b)| b.index() < skeleton.bones.len())
        .collect();
    bones.sort_by_key(|(_, b)| *b);
    bones.dedup_by_key(|(_, b)| *b);
    let frames = times
        .iter()
        .map(|&t| {
            let world = Pose::sample(skeleton, clip, t).world(skeleton);
            bones
                .iter()
                .map(|(_, b)| world[b.index()].w_axis.truncate())
                .collect()
        })
        .collect();
    Sampled {
        label,
        skeleton,
        bones,
        frames,
        height: skeleton.height().max(1e-9),
    }
}

/// The preview of `clip` from its two sides sampled at `fps`, with the foot charts and `extra`.
fn preview(
    clip: &str,
    duration: f32,
    fps: f32,
    sides: &[Sampled; 2],
    extra: Vec<Chart>,
) -> Preview {
    let mut charts = foot_charts(sides, fps);
    charts.extend(extra);
    Preview {
        clip: clip.to_string(),
        fps,
        frames: sides[0].frames.len(),
        duration,
        figures: sides.iter().map(figure).collect(),
        charts,
    }
}

/// A side quantized: every coordinate a byte over the side's bounding box (one step on every
/// axis, so proportions hold).
fn figure(s: &Sampled) -> Figure {
    let all = s.frames.iter().flatten().copied();
    let lo = all.clone().fold(Vec3::splat(f32::INFINITY), Vec3::min);
    let hi = all.fold(Vec3::splat(f32::NEG_INFINITY), Vec3::max);
    let span = (hi - lo).max_element();
    let (lo, step) = if span.is_finite() && span > 0.0 {
        (lo, span / 255.0)
    } else {
        (if lo.is_finite() { lo } else { Vec3::ZERO }, 1.0)
    };
    let bytes: Vec<u8> = s
        .frames
        .iter()
        .flatten()
        .flat_map(|p| ((*p - lo) / step).to_array())
        .map(|v| v.round().clamp(0.0, 255.0) as u8)
        .collect();
    let drawn: Vec<BoneId> = s.bones.iter().map(|(_, b)| *b).collect();
    let parents = drawn
        .iter()
        .map(|&b| {
            let mut up = s.skeleton.bones[b.index()].parent;
            while let Some(p) = up {
                if let Some(i) = drawn.iter().position(|&d| d == p) {
                    return Some(i);
                }
                up = s.skeleton.bones[p.index()].parent;
            }
            None
        })
        .collect();
    Figure {
        label: s.label.to_string(),
        skeleton: s.skeleton.name.clone(),
        bones: s.bones.iter().map(|(n, _)| n.to_string()).collect(),
        parents,
        origin: lo.to_array(),
        step: sig3(step),
        positions: base64::engine::general_purpose::STANDARD.encode(bytes),
    }
}

/// Foot height and foot speed of both feet on both sides.
fn foot_charts(sides: &[Sampled; 2], fps: f32) -> Vec<Chart> {
    let mut height = Vec::new();
    let mut speed = Vec::new();
    for s in sides {
        let feet: Vec<(&str, Vec<Vec3>)> = ["LeftFoot", "RightFoot"]
            .into_iter()
            .filter_map(|n| Some((n, s.track(n)?)))
            .collect();
        let ground = feet
            .iter()
            .flat_map(|(_, t)| t.iter().map(|p| p.y))
            .fold(f32::INFINITY, f32::min);
        for (bone, track) in &feet {
            let series = |values: Vec<f32>| Series {
                bone: bone.to_string(),
                side: s.label.to_string(),
                values: values.into_iter().map(sig3).collect(),
            };
            height.push(series(foot_height(track, ground, s.height)));
            speed.push(series(foot_speed(track, fps, s.height)));
        }
    }
    vec![
        Chart {
            title: "foot height".into(),
            unit: "× height".into(),
            series: height,
        },
        Chart {
            title: "foot speed".into(),
            unit: "× height/s".into(),
            series: speed,
        },
    ]
}

/// Height of a joint above `ground` per frame, as a fraction of `height`.
pub fn foot_height(track: &[Vec3], ground: f32, height: f32) -> Vec<f32> {
    track.iter().map(|p| (p.y - ground) / height).collect()
}

/// Horizontal speed of a joint per frame (from the frame before; the first frame takes the
/// second's), in `height`s per second, sampled at `fps`.
pub fn foot_speed(track: &[Vec3], fps: f32, height: f32) -> Vec<f32> {
    let mut out: Vec<f32> = track
        .windows(2)
        .map(|w| {
            let d = w[1] - w[0];
            Vec3::new(d.x, 0.0, d.z).length() * fps / height
        })
        .collect();
    out.insert(0, out.first().copied().unwrap_or(0.0));
    out.truncate(track.len());
    out
}

/// `x` to 3 significant digits, to keep reports small.
fn sig3(x: f32) -> f32 {
    if x == 0.0 || !x.is_finite() {
        return if x.is_finite() { x } else { 0.0 };
    }
    let x = f64::from(x);
    let scale = 10f64.powi(2 - x.abs().log10().floor() as i32);
    ((x * scale).round() / scale) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_times_keep_the_budget() {
        // One short clip: 30 fps through its end.
        let (fps, t) = sample_times(1.0, 1);
        assert_eq!((fps, t.len()), (MAX_FPS, 21));
        // A long clip: its first seconds at the lowest rate, no more than the frames of a clip.
        let (fps, t) = sample_times(20.0, 1);
        assert_eq!((fps, t.len()), (MIN_FPS, MAX_FRAMES));
        // Three clips share the file's budget.
        let (_, t) = sample_times(1.0, 3);
        assert_eq!(t.len(), FILE_FRAMES / 3);
        // A still pose: one frame.
        assert_eq!(sample_times(0.0, 1).1, vec![0.0]);
        assert_eq!(sample_times(f32::NAN, 1).1, vec![0.0]);
    }

    #[test]
    fn foot_series() {
        let track = [
            Vec3::new(0.0, 0.1, 0.0),
            Vec3::new(0.3, 0.5, 0.4),
            Vec3::new(0.3, 0.1, 0.4),
        ];
        let h = foot_height(&track, 0.1, 2.0);
        assert_eq!(h, vec![0.0, 0.2, 0.0]);
        // 0.5 horizontally in 1/10 s, height 2: 2.5 heights per second; still then.
        let v = foot_speed(&track, 10.0, 2.0);
        assert!(
            (v[1] - 2.5).abs() < 1e-5 && v[0] == v[1] && v[2] == 0.0,
            "{v:?}"
        );
        assert_eq!(foot_speed(&track[..1], 10.0, 2.0), vec![0.0]);
    }

    #[test]
    fn three_significant_digits() {
        assert_eq!(sig3(0.0123456), 0.0123);
        assert_eq!(sig3(-123456.0), -123000.0);
        assert_eq!(sig3(0.0), 0.0);
        assert_eq!(sig3(f32::NAN), 0.0);
    }
}
