//! Issue 21: the retarget op stack. Each op alone and in the stack on the fixture pairs (a walk
//! and a sway on legs ×1.3, a 2- and a 5-bone spine): `alpha` 0 is the op off, exactly; planting
//! keeps planted feet at most as still as the source's; the floor keeps feet and hips above the
//! floor; the filter smooths jitter; directions stay within issue 6's bounds.
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use skelnorm::check::retarget::{ops_check, retarget as measure, OpsCheck, RetargetCheck};
use skelnorm::model::{Clip, Pose, SkeletonId};
use skelnorm::profile::Profile;
use skelnorm::retarget::{
    retarget_clip, FilterOp, FloorOp, Op, PinOp, PinSpace, PlantOp, PoleOp, RetargetOptions,
    Retargeter, StrideOp,
};

use common::{normalized, rig, Normalized};

fn fixture(name: &str) -> Normalized {
    normalized(&common::root().join("fixtures").join(name))
}

const PAIRS: &[(&str, &str)] = &[
    ("identity.gltf", "long_legs.glb"),
    ("spine2.glb", "spine5.glb"),
    ("spine5.glb", "spine2.glb"),
];

fn clip<'a>(n: &'a Normalized, name: &str) -> &'a Clip {
    n.model.clips.iter().find(|c| c.name == name).unwrap()
}

/// Every target pose of `clip` retargeted frame by frame at 30 fps by the runtime.
fn poses(s: &Normalized, t: &Normalized, clip: &Clip, options: &RetargetOptions) -> Vec<Pose> {
    let (sr, tr) = (rig(s), rig(t));
    let mut r = Retargeter::new(&sr, &tr, options).unwrap();
    let frames = (clip.duration() * 30.0).ceil() as usize + 1;
    (0..frames)
        .map(|f| {
            let sp = Pose::sample(sr.skeleton, clip, (f as f32 / 30.0).min(clip.duration()));
            let mut tp = Pose::rest(tr.skeleton);
            r.retarget(&sp, &mut tp).unwrap();
            tp
        })
        .collect()
}

fn with_op(op: Op) -> RetargetOptions {
    RetargetOptions {
        ops: vec![op],
        ..RetargetOptions::default()
    }
}

/// Makes an op from `enabled` and `alpha`.
fn same(a: &[Pose], b: &[Pose]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.locals == y.locals)
}

/// `alpha` 0 gives the very poses of the op disabled; alpha 0.5 and 1 each change them (so the
/// op acts on the clip), and 0.5 differs from 1. Core passes disabled equal their flags off.
#[test]
fn alpha_zero_is_the_op_off_for_every_op() {
    let (s, t) = (fixture("identity.gltf"), fixture("long_legs.glb"));
    let walk = clip(&s, "walk");
    for (name, make) in common::ops::every() {
        let off = poses(&s, &t, walk, &with_op(make(false, 1.0)));
        let zero = poses(&s, &t, walk, &with_op(make(true, 0.0)));
        let half = poses(&s, &t, walk, &with_op(make(true, 0.5)));
        let full = poses(&s, &t, walk, &with_op(make(true, 1.0)));
        assert!(same(&off, &zero), "{name}: alpha 0 differs from the op off");
        assert!(!same(&off, &half), "{name}: alpha 0.5 changes nothing");
        assert!(!same(&half, &full), "{name}: alpha 0.5 is alpha 1");
        let flag = match name {
            "root" => Some(RetargetOptions {
                root: false,
                ..RetargetOptions::default()
            }),
            "fk" => Some(RetargetOptions {
                fk: false,
                ..RetargetOptions::default()
            }),
            "ik" => Some(RetargetOptions {
                ik: false,
                ..RetargetOptions::default()
            }),
            _ => None,
        };
        if let Some(flag) = flag {
            assert!(
                same(&off, &poses(&s, &t, walk, &flag)),
                "{name}: disabled differs from its flag off"
            );
        }
        if !["filter", "plant", "pole", "stride", "pin"].contains(&name) {
            continue;
        }
        // An op listed but absent: the default stack.
        let none = poses(&s, &t, walk, &RetargetOptions::default());
        assert!(same(&off, &none), "{name}: disabled differs from absent");
    }
}

/// Retargets every clip of the pair with `options` and measures it, with the stack's report.
fn run(
    s: &Normalized,
    t: &Normalized,
    options: &RetargetOptions,
) -> Vec<(String, RetargetCheck, OpsCheck)> {
    let (sr, tr) = (rig(s), rig(t));
    let bare = options.core_only();
    s.model
        .clips
        .iter()
        .map(|c| {
            let r = retarget_clip(&sr, c, &tr, SkeletonId(0), options).unwrap();
            let b = retarget_clip(&sr, c, &tr, SkeletonId(0), &bare).unwrap();
            let m = measure((&sr, c), (&tr, &r.clip), &r.plan, options);
            let o = ops_check((&sr, c), (&tr, &r.clip), &b.clip, &r.plan, options);
            (c.name.clone(), m, o)
        })
        .collect()
}

/// Planting alone and in the stack (math.md's skate: in leg lengths over the source's contacts):
/// where the source's feet are planted (`sway`, under 0.1% of the leg length per frame), the
/// target's feet move at most as much as the source's (plus 0.01% of the leg length per frame
/// for rounding), and no more than without planting; on every clip the core passes alone skate
/// within 5% of the source (math.md; 0.99999–1.0043× on these pairs), and legs and spines keep
/// issue 6's direction bounds. Not bounded: the fixture `walk` and `wave`, whose source feet
/// slide over their contacts (`walk` 7.12% and 5.19% of the leg a frame), with planting (onto
/// long_legs 7.15% and 5.37%). (The real clips, where the core passes skate, are in
/// [`real_clips_keep_planted_feet_and_the_floor`].)
#[test]
fn planting_keeps_feet_at_most_as_still_as_the_source() {
    let stacks = [
        vec![Op::Plant(PlantOp::default())],
        vec![Op::Plant(PlantOp::default()), Op::Floor(FloorOp::default())],
    ];
    for &(a, b) in PAIRS {
        let (s, t) = (fixture(a), fixture(b));
        for ops in &stacks {
            let options = RetargetOptions {
                ops: ops.clone(),
                ..RetargetOptions::default()
            };
            for (clip, m, o) in run(&s, &t, &options) {
                let at = format!("{a} → {b} `{clip}` with {} ops", ops.len());
                common::ops::issue_6_directions(&at, &m);
                for (with, without) in m.skate.iter().zip(&o.skate_without) {
                    let (Some(source), Some(kept), Some(before)) =
                        (with.source, with.target, without.target)
                    else {
                        continue;
                    };
                    eprintln!(
                        "{at} {}: skate over the source's contacts {:.4}% → {:.4}% per frame (source {:.4}%)",
                        with.bone,
                        before * 100.0,
                        kept * 100.0,
                        source * 100.0
                    );
                    assert!(
                        before <= 1.05 * source + 1e-6,
                        "{at} {}: core passes {before} against source {source}",
                        with.bone
                    );
                    // A source foot that moves over 0.1% of the leg per frame at its lowest
                    // is not planted (the synthetic walk swings its legs through the floor
                    // line; `wave` slides its feet 0.4% per frame): only `sway` stands still.
                    if source <= 0.001 {
                        assert!(
                            kept <= source + 1e-4,
                            "{at} {}: {kept} > source {source}",
                            with.bone
                        );
                        assert!(
                            kept <= before + 1e-6,
                            "{at} {}: {kept} > {before} without",
                            with.bone
                        );
                    }
                }
            }
        }
    }
}

/// The floor alone and after planting, at the floor (height 0) and raised 5 cm: no frame below
/// it with the op, where without it feet go below the raised floor.
#[test]
fn the_floor_keeps_feet_and_hips_above_it() {
    for &(a, b) in PAIRS {
        let (s, t) = (fixture(a), fixture(b));
        for height in [0.0, 0.05] {
            let floor = Op::Floor(FloorOp {
                height,
                ..FloorOp::default()
            });
            for ops in [
                vec![floor.clone()],
                vec![Op::Plant(PlantOp::default()), floor],
            ] {
                let options = RetargetOptions {
                    ops,
                    ..RetargetOptions::default()
                };
                for (clip, m, o) in run(&s, &t, &options) {
                    let at = format!("{a} → {b} `{clip}`, floor at {height}");
                    common::ops::issue_6_directions(&at, &m);
                    eprintln!(
                        "{at}: below the floor on {} frames (worst {:.4}%) → {} ({:.4}%)",
                        o.floor_without.frames_below,
                        o.floor_without.worst_depth * 100.0,
                        o.floor.frames_below,
                        o.floor.worst_depth * 100.0
                    );
                    assert_eq!(o.floor.frames_below, 0, "{at}: {:?}", o.floor);
                    if height > 0.0 {
                        assert!(o.floor_without.frames_below > 0, "{at}: nothing to fix");
                    }
                }
            }
        }
    }
}

/// The filter smooths: on the walk with jitter added to the source's rotations, the target's
/// frame-to-frame change of its rotations varies less with the filter than without, and the
/// first frame passes through unchanged.
#[test]
fn the_filter_smooths_jitter() {
    let (mut s, t) = (fixture("identity.gltf"), fixture("long_legs.glb"));
    let walk = s.model.clips.iter_mut().find(|c| c.name == "walk").unwrap();
    let mut seed = 12345u32;
    let mut noise = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
    };
    for tr in walk.tracks.iter_mut().filter_map(|t| t.rotation.as_mut()) {
        for q in std::sync::Arc::make_mut(&mut tr.values).iter_mut() {
            let jitter = glam::Quat::from_euler(
                glam::EulerRot::XYZ,
                noise() * 0.05,
                noise() * 0.05,
                noise() * 0.05,
            );
            *q = (*q * jitter).normalize();
        }
    }
    let walk = clip(&s, "walk");
    let roughness = |poses: &[Pose]| -> f32 {
        let mut sum = 0.0;
        for w in poses.windows(3) {
            for ((a, b), c) in w[0].locals.iter().zip(&w[1].locals).zip(&w[2].locals) {
                let (a, b, c) = (
                    glam::Vec4::from(a.rotation),
                    glam::Vec4::from(b.rotation),
                    glam::Vec4::from(c.rotation),
                );
                let fix = |x: glam::Vec4| if x.dot(b) < 0.0 { -x } else { x };
                sum += (fix(a) - 2.0 * b + fix(c)).length();
            }
        }
        sum
    };
    let plain = poses(&s, &t, walk, &RetargetOptions::default());
    let filtered = poses(&s, &t, walk, &with_op(Op::Filter(FilterOp::default())));
    assert_eq!(
        plain[0].locals, filtered[0].locals,
        "the first frame passes"
    );
    let (r0, r1) = (roughness(&plain), roughness(&filtered));
    eprintln!("jittered walk: roughness {r0:.4} → {r1:.4} filtered");
    assert!(r1 < 0.7 * r0, "{r1} vs {r0}");
}

/// Options in a settings file: the stack parses, and a bad value names its key.
#[test]
fn settings_files_give_the_stack() {
    let s = skelnorm::settings::Settings::from_ron(
        "(retarget: (ops: [Ik((alpha: 0.5)), Plant((speed: 0.3)), Floor((height: 0.1))]))",
        "x.ron",
    )
    .unwrap();
    assert_eq!(s.retarget.ops.len(), 3);
    assert!(matches!(&s.retarget.ops[1], Op::Plant(p) if p.speed == 0.3 && p.enabled));
    let bad =
        skelnorm::settings::Settings::from_ron("(retarget: (ops: [Floor((alpha: 2.0))]))", "x.ron")
            .unwrap()
            .resolve()
            .unwrap_err()
            .to_string();
    assert!(bad.contains("retarget.ops[0].alpha"), "{bad}");
}

/// `skelnorm retarget … --json` with `extra`: the one clip's measures.
fn cli_measures(
    source: &std::path::Path,
    target: &std::path::Path,
    extra: &[&str],
) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["--suffix", "x"];
    args.extend_from_slice(extra);
    let r = common::retarget_stage(source, target, &dir.path().join("out.glb"), &args);
    r["clips"][0]["measured"].clone()
}

/// The feet that skate more than the source's with `--plant --floor` (math.md: in leg lengths
/// over the source's contacts): CMU → RobotExpressive's left foot, 0.998% against the source's
/// 0.940% (1.912% with the core passes alone; the right, 0.288% against 0.322%, is met since
/// a held foot's drag is limited to the source foot's step); see
/// `tests/retarget_planted.rs`'s `real_clips_skate_at_most_the_sources_everywhere`.
const PLANTED_NOT_MET: &[(&str, &str)] = &[(
    "cmu_131_03_maxfriendly.bvh → RobotExpressive.glb",
    "LeftFoot",
)];

/// The shared real clips (CMU's motion capture onto RobotExpressive, ModularMen and the mixamo
/// fixture; test.vrma onto the robot) with `--plant --floor`: over the source's contacts, each
/// foot skates at most as much as the source's (but those of [`PLANTED_NOT_MET`]) and less than
/// without the ops; nothing goes below the floor. Skips with a message when `../shared/assets`
/// is absent.
#[test]
fn real_clips_keep_planted_feet_and_the_floor() {
    let Some([bvh, vrma, robot]) = common::require([
        "bvh/cmu_131_03_maxfriendly.bvh",
        "vrm/test.vrma",
        "threejs/RobotExpressive.glb",
    ]) else {
        return;
    };
    let mut pairs = vec![(bvh.clone(), robot.clone()), (vrma, robot)];
    for t in common::require_any(&["quaternius/ModularMen_Casual.glb"]) {
        pairs.push((bvh.clone(), t));
    }
    pairs.push((bvh, common::root().join("fixtures/mixamo.glb")));
    for (s, t) in pairs {
        let who = format!(
            "{} → {}",
            s.file_name().unwrap().to_string_lossy(),
            t.file_name().unwrap().to_string_lossy()
        );
        // Pole matching alone: the legs bend no further from the source's than without it.
        let settings = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(settings.path(), "(retarget: (ops: [Pole(())]))").unwrap();
        let m = cli_measures(&s, &t, &["--settings", settings.path().to_str().unwrap()]);
        for p in m["ops"]["poles"].as_array().unwrap() {
            let (Some(deg), Some(without)) = (p["deg"].as_f64(), p["deg_without"].as_f64()) else {
                continue;
            };
            eprintln!("{who} {}: pole {without:.2}° → {deg:.2}°", p["bone"]);
            assert!(deg <= without + 1e-3, "{who}: {p}");
        }
        let m = cli_measures(&s, &t, &["--plant", "--floor"]);
        let ops = &m["ops"];
        assert_eq!(ops["floor"]["frames_below"], 0, "{who}: {ops}");
        assert!(m["length_drift"].as_f64().unwrap() <= 1e-5, "{who}");
        for (with, without) in m["skate"]
            .as_array()
            .unwrap()
            .iter()
            .zip(ops["skate_without"].as_array().unwrap())
        {
            let (Some(source), Some(kept), Some(before)) = (
                with["source"].as_f64(),
                with["target"].as_f64(),
                without["target"].as_f64(),
            ) else {
                eprintln!("{who} {}: no contact in the source", with["bone"]);
                continue;
            };
            eprintln!(
                "{who} {}: skate over the source's contacts {:.3}% → {:.3}% per frame (source {:.3}%)",
                with["bone"],
                before * 100.0,
                kept * 100.0,
                source * 100.0
            );
            // On CMU → RobotExpressive the core passes turn its wide stance with the hips'
            // heading; planting holds the stance's heading over a contact (`stance_turn_deg`).
            let foot = with["bone"].as_str().unwrap();
            if !PLANTED_NOT_MET.contains(&(who.as_str(), foot)) {
                assert!(kept <= source + 1e-6, "{who}: {with}");
            }
            assert!(kept <= before + 1e-6, "{who}: {with} vs {without}");
            if before > 1e-4 {
                assert!(kept < 0.9 * before, "{who}: {with} vs {without}");
            }
        }
    }
}

/// Pole matching on the fixture pairs: the knees bend where the source's do (within 0.1° on
/// average, no worse than without the op), and a static `offset_deg` of 30° turns them 30°
/// (within 0.5°) off the source's; feet stay where the passes put them (issue 6's bounds).
#[test]
fn poles_follow_the_source_and_the_offset() {
    for &(a, b) in PAIRS {
        let (s, t) = (fixture(a), fixture(b));
        for offset in [0.0f32, 30.0] {
            let options = with_op(Op::Pole(PoleOp {
                offset_deg: offset,
                ..PoleOp::default()
            }));
            for (clip, m, o) in run(&s, &t, &options) {
                let at = format!("{a} → {b} `{clip}`, offset {offset}°");
                for e in m.effectors.iter().filter(|e| e.bone.ends_with("Foot")) {
                    assert!(e.max_error.is_some_and(|x| x <= 0.01), "{at}: {e:?}");
                }
                let legs: Vec<_> = o.poles.iter().filter(|p| p.bone.ends_with("Leg")).collect();
                assert_eq!(legs.len(), 2, "{at}: {:?}", o.poles);
                for p in legs {
                    let (Some(deg), Some(without)) = (p.deg, p.deg_without) else {
                        continue;
                    };
                    eprintln!("{at} {}: pole {without:.3}° → {deg:.3}°", p.bone);
                    if offset == 0.0 {
                        assert!(deg <= 0.1 && deg <= without + 1e-3, "{at}: {p:?}");
                    } else {
                        assert!((deg - offset).abs() <= 0.5, "{at}: {p:?}");
                    }
                }
            }
        }
    }
}

/// Stride warping on the walk onto legs ×1.3: each foot's forward swing about the pelvis (its
/// range over the clip, in the hips' heading) scales by `forward` (0.7, within 3%); its sideways
/// range (none on this walk, whose feet swing straight) and its height stay (within 2% of the
/// range, 1e-4 of the height); on `sway` (hips swaying over planted feet) `sideways` 0.5 halves
/// the feet's sideways range about the pelvis (within 3%); `forward` and `sideways` 1
/// change nothing beyond rounding.
#[test]
fn stride_warping_scales_the_feet_about_the_pelvis() {
    let (s, t) = (fixture("identity.gltf"), fixture("long_legs.glb"));
    let walk = clip(&s, "walk");
    let ts = &t.model.skeletons[0];
    let bone = |n: &str| {
        t.map
            .get(Profile::humanoid().find(n).unwrap())
            .unwrap()
            .index()
    };
    let (lf, lu, ru) = (
        bone("LeftFoot"),
        bone("LeftUpperLeg"),
        bone("RightUpperLeg"),
    );
    let hips = bone("Hips");
    let below = ts.base.inverse();
    let rot = |m: &glam::Mat4| (below * *m).to_scale_rotation_translation().1;
    let rest_hips = rot(&ts.rest_world()[hips]).inverse();
    // Per frame: the left foot from the pelvis, skeleton space, in the hips' heading.
    let feet = |poses: &[Pose]| -> Vec<glam::Vec3> {
        poses
            .iter()
            .map(|p| {
                let w = p.world(ts);
                let at = |i: usize| below.transform_point3(w[i].w_axis.truncate());
                let heading = skelnorm::model::yaw_of(rot(&w[hips]) * rest_hips);
                heading.inverse() * (at(lf) - (at(lu) + at(ru)) * 0.5)
            })
            .collect()
    };
    let range = |v: &[glam::Vec3], f: fn(&glam::Vec3) -> f32| {
        let lo = v.iter().map(f).fold(f32::INFINITY, f32::min);
        let hi = v.iter().map(f).fold(f32::NEG_INFINITY, f32::max);
        hi - lo
    };
    let stride = |clip: &Clip, forward: f32, sideways: f32| {
        feet(&poses(
            &s,
            &t,
            clip,
            &with_op(Op::Stride(StrideOp {
                forward,
                sideways,
                ..StrideOp::default()
            })),
        ))
    };
    let plain = feet(&poses(&s, &t, walk, &RetargetOptions::default()));
    let same = stride(walk, 1.0, 1.0);
    let short = stride(walk, 0.7, 1.0);
    // `sway` moves the hips sideways over planted feet: the feet move sideways about the pelvis.
    let sway = clip(&s, "sway");
    let (sway_plain, narrow) = (
        feet(&poses(&s, &t, sway, &RetargetOptions::default())),
        stride(sway, 1.0, 0.5),
    );
    let (w0, w1) = (range(&sway_plain, |v| v.x), range(&narrow, |v| v.x));
    eprintln!("sway onto legs ×1.3, sideways 0.5: sideways swing {w0:.4} → {w1:.4}");
    assert!(w0 > 0.01 && (w1 / w0 - 0.5).abs() <= 0.03, "{w0} → {w1}");
    let height = ts.height();
    for (a, b) in plain.iter().zip(&same) {
        assert!(a.distance(*b) <= 1e-5 * height, "{a} vs {b}");
    }
    let (z0, z1) = (range(&plain, |v| v.z), range(&short, |v| v.z));
    let (x0, x1) = (range(&plain, |v| v.x), range(&short, |v| v.x));
    eprintln!("walk onto legs ×1.3, forward 0.7: forward swing {z0:.4} → {z1:.4}, sideways {x0:.4} → {x1:.4}");
    assert!((z1 / z0 - 0.7).abs() <= 0.03, "{z0} → {z1}");
    assert!((x1 - x0).abs() <= 0.02 * x0, "{x0} → {x1}");
    for (a, b) in plain.iter().zip(&short) {
        assert!((a.y - b.y).abs() <= 1e-4 * height, "height {a} vs {b}");
    }
}

/// Pin bones on the walk onto legs ×1.3: the left hand pinned to the right hand lands on it
/// (`global`: the same joint place and rotation) or where the right hand carries it at rest
/// (`rest_relative`), within 1e-5 of the height and 0.001°, on every frame, offline as at
/// runtime; a bone cannot follow one below it.
#[test]
fn pinned_bones_follow_their_bone() {
    let (s, t) = (fixture("identity.gltf"), fixture("long_legs.glb"));
    let walk = clip(&s, "walk");
    let ts = &t.model.skeletons[0];
    let bone = |n: &str| {
        t.map
            .get(Profile::humanoid().find(n).unwrap())
            .unwrap()
            .index()
    };
    let (l, r) = (bone("LeftHand"), bone("RightHand"));
    let height = ts.height();
    let rest = ts.rest_world();
    let rest_offset = rest[r].inverse() * rest[l];
    for space in [PinSpace::Global, PinSpace::RestRelative] {
        let options = with_op(Op::Pin(PinOp {
            bone: "LeftHand".into(),
            from: "RightHand".into(),
            space,
            ..PinOp::default()
        }));
        let check = |w: &[glam::Mat4], at: &str| {
            let want = match space {
                PinSpace::Global => w[r],
                PinSpace::RestRelative => w[r] * rest_offset,
            };
            let (_, qa, pa) = w[l].to_scale_rotation_translation();
            let (_, qb, pb) = want.to_scale_rotation_translation();
            assert!(
                pa.distance(pb) <= 1e-5 * height,
                "{space:?} {at}: {pa} vs {pb}"
            );
            // Within 1e-5 as 4-vectors (0.001°; f32's acos cannot resolve angles this small).
            let gap = (qa - qb).length().min((qa + qb).length());
            assert!(gap <= 1e-5, "{space:?} {at}: {qa} vs {qb}");
        };
        for (f, p) in poses(&s, &t, walk, &options).iter().enumerate() {
            check(&p.world(ts), &format!("runtime frame {f}"));
        }
        let out = retarget_clip(&rig(&s), walk, &rig(&t), SkeletonId(0), &options).unwrap();
        // At the keys (between them, the two bones' tracks interpolate each on its own).
        for f in [0, 11, 24] {
            let time = f as f32 / 30.0;
            let w = Pose::sample(ts, &out.clip, time).world(ts);
            check(&w, &format!("offline frame {f}"));
        }
    }
    let bad = with_op(Op::Pin(PinOp {
        bone: "LeftUpperArm".into(),
        from: "LeftHand".into(),
        ..PinOp::default()
    }));
    let err = Retargeter::new(&rig(&s), &rig(&t), &bad)
        .unwrap_err()
        .to_string();
    assert!(err.contains("cannot follow"), "{err}");
}

/// math.md's leg cost of the ops (issue 42): with `--plant --floor`, `ops.legs` gives the
/// thighs' and shins' direction error with the stack beside the core passes alone; the same
/// figures as the segments of two runs, one with the ops and one without (`worst_deg` of the
/// four leg segments, and their mean over segments of equal frame counts), on a fixture pair
/// and CMU's capture onto ModularMen_Casual.
#[test]
fn the_leg_cost_is_the_legs_segments_with_and_without_the_ops() {
    let fixture = |n: &str| common::root().join("fixtures").join(n);
    let mut pairs = vec![(fixture("mixamo.glb"), fixture("long_legs.glb"), "walk")];
    if let (Some(bvh), Some(men)) = (
        common::asset("bvh/cmu_131_03_maxfriendly.bvh"),
        common::asset("quaternius/ModularMen_Casual.glb"),
    ) {
        pairs.push((bvh, men, "cmu_131_03_maxfriendly"));
    }
    let legs = [
        "LeftUpperLeg",
        "LeftLowerLeg",
        "RightUpperLeg",
        "RightLowerLeg",
    ];
    // The legs' segments of a run: (mean of their means, worst).
    let of = |m: &serde_json::Value| {
        let segs: Vec<&serde_json::Value> = m["segments"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| legs.contains(&g["bone"].as_str().unwrap()))
            .collect();
        assert_eq!(segs.len(), 4, "{m}");
        let mean = segs
            .iter()
            .map(|g| g["mean_deg"].as_f64().unwrap())
            .sum::<f64>()
            / 4.0;
        let worst = segs
            .iter()
            .map(|g| g["worst_deg"].as_f64().unwrap())
            .fold(0.0, f64::max);
        (mean, worst)
    };
    for (s, t, clip) in pairs {
        let who = format!("{} → {}", s.display(), t.display());
        let with = cli_measures(&s, &t, &["--plant", "--floor", "--clip", clip]);
        let core = cli_measures(&s, &t, &["--clip", clip]);
        let cost = &with["ops"]["legs"];
        let (mean, worst) = of(&with);
        let (mean0, worst0) = of(&core);
        eprintln!("{who}: legs mean {mean0:.3}° worst {worst0:.3}° → mean {mean:.3}° worst {worst:.3}°: {cost}");
        let near = |a: &serde_json::Value, b: f64| (a.as_f64().unwrap() - b).abs() <= 1e-3;
        assert!(
            near(&cost["worst_deg"], worst) && near(&cost["mean_deg"], mean),
            "{who}: {cost}"
        );
        assert!(
            near(&cost["worst_deg_without"], worst0) && near(&cost["mean_deg_without"], mean0),
            "{who}: {cost}"
        );
        assert!(core["ops"].is_null(), "{who}: no ops, no leg cost");
    }
}
