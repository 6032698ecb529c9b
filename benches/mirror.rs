//! Mirroring speed: the runtime `Mirror::mirror_pose` call per 65-bone pose (mixamo.glb as read,
//! its `walk`), and the whole-clip `mirror_clip` (keys mapped one to one) in bone keys per
//! second. Run with `cargo bench --bench mirror`; each figure is a median of 10 runs.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    reason = "a benchmark run by hand: a panic aborts it, and it prints its timings"
)]

use skelnorm::gltf_io;
use skelnorm::mapping::{map_skeleton, MapOptions};
use skelnorm::mirror::{mirror_clip, Mirror, MirrorOptions};
use skelnorm::model::Pose;
use skelnorm::profile::Profile;
use std::path::Path;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mixamo.glb");
    let doc = gltf_io::read(&path).unwrap();
    let (skeleton, clip) = (&doc.model.skeletons[0], &doc.model.clips[0]);
    let profile = Profile::humanoid();
    let map = map_skeleton(skeleton, profile, &MapOptions::default());
    let start = Instant::now();
    let mirror = Mirror::new(skeleton, &map, profile, &MirrorOptions::default()).unwrap();
    let new_us = start.elapsed().as_secs_f64() * 1e6;
    let poses: Vec<Pose> = (0..30)
        .map(|f| Pose::sample(skeleton, clip, f as f32 / 30.0))
        .collect();
    let mut out = Pose::rest(skeleton);
    let calls = 20_000;
    let per_pose: Vec<f64> = (0..10)
        .map(|_| {
            let start = Instant::now();
            for k in 0..calls {
                mirror
                    .mirror_pose(std::hint::black_box(&poses[k % 30]), &mut out)
                    .unwrap();
            }
            start.elapsed().as_secs_f64() * 1e9 / calls as f64
        })
        .collect();
    let keys: usize = clip
        .tracks
        .iter()
        .map(|t| {
            t.rotation.as_ref().map_or(0, |r| r.times.len())
                + t.translation.as_ref().map_or(0, |r| r.times.len())
        })
        .sum();
    let per_clip: Vec<f64> = (0..10)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..100 {
                std::hint::black_box(mirror_clip(&mirror, skeleton, clip, &[]));
            }
            start.elapsed().as_secs_f64() / 100.0
        })
        .collect();
    let clip_s = median(per_clip);
    println!(
        "{} bones; Mirror::new {new_us:.0} µs (one run)",
        skeleton.bones.len()
    );
    println!("mirror_pose: {:.0} ns per pose", median(per_pose));
    println!(
        "mirror_clip `{}`: {:.1} µs, {:.1} M bone keys/s",
        clip.name,
        clip_s * 1e6,
        keys as f64 / clip_s / 1e6
    );
}
