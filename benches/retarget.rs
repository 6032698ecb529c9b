//! Retargeting speed: the runtime `Retargeter::retarget` call per pose, and offline
//! `retarget_clip` throughput in bone-samples per second (target bones × frames), for 65-bone
//! rigs (blender.glb → mixamo.glb, both normalized first), with and without leg IK, and with
//! the planting and floor ops after it (issue 21: at most 3 µs per pose; also planting on
//! contacts from foot-lock curves, given per frame), and the Mirror op last;
//! and the
//! one-off `Retargeter::new`; and a many-clip file (40 short clips) retargeted clip by clip with
//! `retarget_clip` (a plan per clip) against `pipeline::retarget_onto` (one plan for the pair).
//! Run with `cargo bench --bench retarget`; each figure is a median.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark run by hand: a panic aborts it, and it prints its timings"
)]

mod common;
#[allow(dead_code, reason = "the bench uses only the op stacks it runs")]
#[path = "../tests/common/ops.rs"]
mod ops;

use ops::{foot_locks, plant_and_floor};
use skelnorm::gltf_io;
use skelnorm::mapping::{map_skeleton, MapOptions};
use skelnorm::model::{Clip, Curve, Interpolation, Model, Pose, SkeletonId, Track};
use skelnorm::pipeline::{normalize, retarget_onto, NormalizeOptions, RetargetJob, Side};
use skelnorm::profile::Profile;
use skelnorm::retarget::{
    retarget_clip, MirrorOp, Op, PlantOp, RetargetOptions, Retargeter, Rig, Treadmill,
};
use std::path::Path;
use std::time::Duration;

fn load(name: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    let mut doc = gltf_io::read(&path).unwrap();
    normalize(
        &mut doc.model,
        Profile::humanoid(),
        &NormalizeOptions::default(),
    )
    .unwrap();
    doc.model
}

fn main() {
    let profile = Profile::humanoid();
    let (src, dst) = (load("blender.glb"), load("mixamo.glb"));
    let (ss, ts) = (&src.skeletons[0], &dst.skeletons[0]);
    let (sm, tm) = (
        map_skeleton(ss, profile, &MapOptions::default()),
        map_skeleton(ts, profile, &MapOptions::default()),
    );
    let (sr, tr) = (
        Rig {
            skeleton: ss,
            map: &sm,
            profile,
        },
        Rig {
            skeleton: ts,
            map: &tm,
            profile,
        },
    );
    // A long clip: `walk` sampled at 30 fps for 10 s (loops of the 1 s clip).
    let walk = src.clips.iter().find(|c| c.name == "walk").unwrap();
    let long = Clip {
        tracks: walk
            .tracks
            .iter()
            .map(|t| {
                let mut t = t.clone();
                for tr in [&mut t.translation, &mut t.scale].into_iter().flatten() {
                    tr.times = tr.times.iter().map(|x| x * 10.0).collect();
                }
                if let Some(r) = &mut t.rotation {
                    r.times = r.times.iter().map(|x| x * 10.0).collect();
                }
                t
            })
            .collect(),
        // Foot-lock curves for the stack that plants on them: each foot locked 60% of a 1 s
        // cycle, the right half a cycle behind.
        curves: ["FootLock_L", "FootLock_R"]
            .iter()
            .enumerate()
            .map(|(side, name)| Curve {
                name: name.to_string(),
                track: Track {
                    interpolation: Interpolation::Step,
                    times: (0..300).map(|f| f as f32 / 30.0).collect(),
                    values: (0..300).map(|f| locked(f, side)).collect(),
                },
            })
            .collect(),
        ..walk.clone()
    };
    println!(
        "{} bones → {} bones; medians of 10 runs",
        ss.bones.len(),
        ts.bones.len()
    );
    for (label, options) in [
        (
            "FK + root",
            RetargetOptions {
                ik: false,
                ..RetargetOptions::default()
            },
        ),
        ("FK + root + leg IK", RetargetOptions::default()),
        (
            "… + plant + floor",
            plant_and_floor(PlantOp::default(), &[]),
        ),
        (
            "… + plant on a treadmill + floor",
            plant_and_floor(
                PlantOp {
                    treadmill: Treadmill::Velocity([0.0, -1.2]),
                    ..PlantOp::default()
                },
                &[],
            ),
        ),
        (
            "… + plant with the slide limiter + floor",
            plant_and_floor(
                PlantOp {
                    limit_slide: true,
                    ..PlantOp::default()
                },
                &[],
            ),
        ),
        (
            "… + plant on curves + floor",
            plant_and_floor(
                PlantOp {
                    contacts: foot_locks(0.5),
                    ..PlantOp::default()
                },
                &[],
            ),
        ),
        (
            "… + pelvis 0.2",
            plant_and_floor(
                PlantOp {
                    max_pelvis_shift: 0.2,
                    ..PlantOp::default()
                },
                &[],
            ),
        ),
        (
            "… + mirror",
            plant_and_floor(PlantOp::default(), &[Op::Mirror(MirrorOp::default())]),
        ),
    ] {
        let new = common::median(10, Duration::from_millis(200), || {
            std::hint::black_box(Retargeter::new(&sr, &tr, &options).unwrap());
        });
        let mut r = Retargeter::new(&sr, &tr, &options).unwrap();
        let poses: Vec<Pose> = (0..30)
            .map(|f| Pose::sample(ss, walk, f as f32 / 30.0))
            .collect();
        let mut out = Pose::rest(ts);
        let on_curves = label.contains("curves");
        let call = common::median(10, Duration::from_millis(300), || {
            for (f, p) in poses.iter().enumerate() {
                if on_curves {
                    r.set_contacts(Some([locked(f, 0) >= 0.5, locked(f, 1) >= 0.5]));
                }
                r.retarget(p, &mut out).unwrap();
            }
            std::hint::black_box(&out);
        }) / poses.len() as u32;
        let offline = common::median(10, Duration::from_millis(300), || {
            std::hint::black_box(retarget_clip(&sr, &long, &tr, SkeletonId(0), &options).unwrap());
        });
        let frames = (long.duration() * options.fps).ceil() as usize + 1;
        let samples = frames * ts.bones.len();
        println!(
            "{label:20} new {:>8.1} µs   retarget() {:>6.3} µs per pose ({:.1} M bone-samples/s)   retarget_clip {:>7.2} ms for {frames} frames ({:.1} M bone-samples/s, sampling the source included)",
            new.as_secs_f64() * 1e6,
            call.as_secs_f64() * 1e6,
            ts.bones.len() as f64 / call.as_secs_f64() / 1e6,
            offline.as_secs_f64() * 1e3,
            samples as f64 / offline.as_secs_f64() / 1e6,
        );
    }
    many_clips(&src, &dst, &sr, &tr, walk);
}

/// Foot `side`'s lock at frame `f` (30 fps): 1 over 60% of each 1 s cycle, the right foot half
/// a cycle behind the left.
fn locked(f: usize, side: usize) -> f32 {
    if (f + 15 * side) % 30 < 18 {
        1.0
    } else {
        0.0
    }
}

/// A file of 40 one-second clips retargeted clip by clip (a plan each) and by the pipeline (one
/// plan for all).
fn many_clips(src: &Model, dst: &Model, sr: &Rig, tr: &Rig, walk: &Clip) {
    let mut many = src.clone();
    many.clips = (0..40)
        .map(|k| Clip {
            name: format!("walk {k}"),
            ..walk.clone()
        })
        .collect();
    let options = RetargetOptions::default();
    let mut target = dst.clone();
    let job = RetargetJob {
        retarget: options.clone(),
        ..RetargetJob::default()
    };
    let (s, t) = (
        Side {
            index: SkeletonId(0),
            map: sr.map.clone(),
            keys: None,
        },
        Side {
            index: SkeletonId(0),
            map: tr.map.clone(),
            keys: None,
        },
    );
    // The two ways alternate run by run, so that the machine's drift hits both alike.
    let (mut each, mut once) = (Vec::new(), Vec::new());
    for _ in 0..41 {
        let start = std::time::Instant::now();
        for clip in &many.clips {
            std::hint::black_box(retarget_clip(sr, clip, tr, SkeletonId(0), &options).unwrap());
        }
        each.push(start.elapsed());
        target.clips.clear();
        let start = std::time::Instant::now();
        let r = retarget_onto((&many, &s), (&mut target, &t), Profile::humanoid(), &job).unwrap();
        once.push(start.elapsed());
        std::hint::black_box(r);
    }
    each.sort();
    once.sort();
    let (per_clip, pipeline) = (each[20], once[20]);
    let new = common::median(10, Duration::from_millis(200), || {
        std::hint::black_box(Retargeter::new(sr, tr, &options).unwrap());
    });
    println!(
        "40 clips of 1 s: retarget_clip each {:.2} ms, pipeline::retarget_onto {:.2} ms (saved {:.2} ms; 39 plans cost {:.2} ms)",
        per_clip.as_secs_f64() * 1e3,
        pipeline.as_secs_f64() * 1e3,
        (per_clip.as_secs_f64() - pipeline.as_secs_f64()) * 1e3,
        39.0 * new.as_secs_f64() * 1e3,
    );
}
