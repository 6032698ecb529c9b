//! `rest::carry_back` undoes the rest fix for a clip: every clip of every humanoid fixture
//! (LINEAR, STEP and CUBICSPLINE keys, 0.01 and Z-up bases, a VRM 0.x facing −Z), normalized and
//! carried back, moves every joint as the original clip does, with and without motion scale.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use skelnorm::gltf_io;
use skelnorm::model::{Clip, Pose, Skeleton};
use skelnorm::pipeline::{normalize, NormalizeOptions, Stages};
use skelnorm::profile::Profile;
use skelnorm::rest::{carry_back, RestOptions};

/// The largest distance between the joints of `a` playing `ca` and `b` playing `cb`, at 30
/// frames per second, relative to the height of `a`.
fn largest_difference(a: &Skeleton, ca: &Clip, b: &Skeleton, cb: &Clip) -> f32 {
    let height = a.height().max(1e-6);
    let frames = (ca.duration() * 30.0).floor() as usize + 1;
    let mut worst = 0.0f32;
    for f in 0..frames {
        let t = (f as f32 / 30.0).min(ca.duration());
        let (wa, wb) = (
            Pose::sample(a, ca, t).world(a),
            Pose::sample(b, cb, t).world(b),
        );
        for (x, y) in wa.iter().zip(&wb) {
            worst = worst.max(x.w_axis.truncate().distance(y.w_axis.truncate()) / height);
        }
    }
    worst
}

#[test]
fn every_clip_normalized_and_carried_back_moves_as_before() {
    let mut checked = 0;
    for file in common::fixtures() {
        let input = gltf_io::read(&file).unwrap();
        for motion_scale in [false, true] {
            let mut model = input.model.clone();
            let options = NormalizeOptions {
                // The rest fix alone: stripping and renaming change no key that carry_back maps.
                stages: Stages {
                    rest: true,
                    strip: false,
                    rename: false,
                },
                rest: RestOptions {
                    motion_scale,
                    ..RestOptions::default()
                },
                ..NormalizeOptions::default()
            };
            let Ok(report) = normalize(&mut model, Profile::humanoid(), &options) else {
                continue; // not a humanoid
            };
            for sk in report.skeletons.iter().filter(|s| s.skipped.is_none()) {
                let keys = &sk.rest.as_ref().unwrap().keys;
                let (original, normalized) =
                    (input.model.skeleton(sk.index), model.skeleton(sk.index));
                let pairs = input.model.clips.iter().zip(&model.clips);
                for (before, after) in pairs.filter(|(c, _)| c.skeleton == sk.index) {
                    assert_eq!(before.name, after.name);
                    let back = carry_back(after, keys, normalized, original).unwrap();
                    let e = largest_difference(original, before, original, &back);
                    eprintln!(
                        "{} `{}` (motion scale {motion_scale}): {e:.2e} of height",
                        file.display(),
                        before.name
                    );
                    assert!(
                        e <= 1e-5,
                        "{}: `{}` off by {e}",
                        file.display(),
                        before.name
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 20, "only {checked} clips checked");
}
