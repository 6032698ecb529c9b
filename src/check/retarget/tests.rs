//! The retarget measures on rigs built in code (issue 16): a figure that cannot be measured is
//! `None` with its reason, never a 0; the worst chain end is named with how much of it each side
//! maps; skate needs two frames in contact.

use super::*;
use crate::mapping::testing::{identity_map, rig};
use crate::mapping::BoneMap;
use crate::model::{BoneTracks, Interpolation, SkeletonId, Track};
use crate::profile::Profile;
use crate::retarget::retarget_clip;
use glam::{Mat4, Quat};

/// The profile's rig and its map with the profile bones `unmapped` left out.
fn side(unmapped: &[&str]) -> (Skeleton, BoneMap) {
    let s = rig(&[Quat::IDENTITY], Mat4::IDENTITY);
    let mut map = identity_map(&s, 0);
    for name in unmapped {
        let p = Profile::humanoid().find(name).expect("a profile bone");
        map.entries[p.index()] = None;
    }
    (s, map)
}

/// One second of the hips travelling 0.3 forward (the feet, on the floor, travel with them) and
/// `bent` turning `deg` about its X axis.
fn clip(s: &Skeleton, bent: &str, deg: f32) -> Clip {
    fn linear<T>(values: Vec<T>) -> Track<T> {
        Track {
            interpolation: Interpolation::Linear,
            times: vec![0.0, 1.0].into(),
            values: values.into(),
        }
    }
    let mut tracks = vec![BoneTracks::default(); s.bones.len()];
    let hips = s.find("Hips").expect("hips");
    let at = s.bones[hips.index()].rest.translation;
    tracks[hips.index()].translation = Some(linear(vec![at, at + Vec3::new(0.0, 0.0, 0.3)]));
    let b = s.find(bent).expect("the bent bone");
    let rest = s.bones[b.index()].rest.rotation;
    let turned = (rest * Quat::from_rotation_x(deg.to_radians())).normalize();
    tracks[b.index()].rotation = Some(linear(vec![rest, turned]));
    Clip::new("test", SkeletonId(0), tracks)
}

/// Retargets `clip` from the source side onto the target side and measures it.
fn measured(source: &(Skeleton, BoneMap), target: &(Skeleton, BoneMap), c: &Clip) -> RetargetCheck {
    let profile = Profile::humanoid();
    let s = Rig {
        skeleton: &source.0,
        map: &source.1,
        profile,
    };
    let t = Rig {
        skeleton: &target.0,
        map: &target.1,
        profile,
    };
    let options = RetargetOptions::default();
    let r = retarget_clip(&s, c, &t, SkeletonId(0), &options).expect("retargets");
    retarget((&s, c), (&t, &r.clip), &r.plan, &options)
}

fn effector<'a>(m: &'a RetargetCheck, bone: &str) -> &'a EffectorCheck {
    m.effectors
        .iter()
        .find(|e| e.bone == bone)
        .expect("every hand and foot is listed")
}

#[test]
fn feet_unmapped_in_the_target_are_not_measured_and_say_why() {
    let (source, target) = (side(&[]), side(&["LeftFoot", "RightFoot"]));
    let m = measured(&source, &target, &clip(&source.0, "LeftLowerArm", 30.0));
    for foot in ["LeftFoot", "RightFoot"] {
        let e = effector(&m, foot);
        assert_eq!(e.max_error, None, "{e:?}");
        assert_eq!(e.reason, Some(NotMeasured::NotMappedInTarget), "{e:?}");
        assert!(!e.ik, "no leg IK without feet: {e:?}");
        let k = m.skate.iter().find(|k| k.bone == foot).expect("both feet");
        assert_eq!(k.target, None, "{k:?}");
        assert_eq!(k.reason, Some(NotMeasured::NotMappedInTarget));
        // The source's own skate is still a measure: its foot slides with the hips.
        assert!(k.source.is_some_and(|v| v > 0.0), "{k:?}");
    }
    // Hands are mapped on both sides: measured.
    assert!(effector(&m, "LeftHand").max_error.is_some());
    // In JSON: `null` with the reason beside it.
    let json = serde_json::to_value(&m).expect("serializes");
    let foot = &json["effectors"][2];
    assert_eq!(foot["bone"], "LeftFoot");
    assert!(foot["max_error"].is_null(), "{foot}");
    assert_eq!(foot["reason"], "not_mapped_in_target");
    assert_eq!(json["skate"][0]["reason"], "not_mapped_in_target");
    assert!(
        json["effectors"][0].get("reason").is_none(),
        "a measured hand has no reason"
    );
}

#[test]
fn a_foot_unmapped_in_the_source_is_not_measured_on_that_side() {
    let (source, target) = (side(&["RightFoot"]), side(&[]));
    let m = measured(&source, &target, &clip(&source.0, "LeftLowerArm", 30.0));
    let right = effector(&m, "RightFoot");
    assert_eq!(
        (right.max_error, right.reason),
        (None, Some(NotMeasured::NotMappedInSource))
    );
    let left = effector(&m, "LeftFoot");
    assert!(
        left.max_error.is_some() && left.reason.is_none() && left.ik,
        "{left:?}"
    );
    let k = m
        .skate
        .iter()
        .find(|k| k.bone == "RightFoot")
        .expect("listed");
    assert_eq!(
        (k.source, k.target, k.reason),
        (None, None, Some(NotMeasured::NotMappedInSource))
    );
    // math.md: the target is measured over the source's contacts only, never its own.
    assert_eq!(k.contact_pairs, 0, "{k:?}");
}

#[test]
fn a_chain_that_ends_early_is_compared_bone_for_bone() {
    // Issue 15: the target's little finger lacks its last bone, so its chain ends one bone
    // early. Its last bone is the source's intermediate bone, not a stretch of the source's
    // whole finger: it takes that bone's bend and is compared with it (before, it took the
    // distal bone's change and was compared with the source's distal end: a foot without toes
    // turned like CMU's toes, 37° "off"). The source's distal bone lies past the target's end.
    let source = side(&[]);
    let target = side(&["RightLittleDistal"]);
    let m = measured(
        &source,
        &target,
        &clip(&source.0, "RightLittleIntermediate", 60.0),
    );
    let chain = m
        .chains
        .iter()
        .find(|c| c.chain == "RightLittle")
        .expect("chain");
    assert_eq!(chain.bones, (2, 2), "{chain:?}");
    assert!(chain.end_deg.is_some_and(|e| e < 0.01), "{chain:?}");
    assert!(chain.bones_deg.is_some_and(|e| e < 0.01), "{chain:?}");
    assert_eq!(chain.target_mapping.mapped, 2);
    assert_eq!(
        chain.target_mapping.unmapped,
        vec!["RightLittleDistal".to_string()]
    );
    assert_eq!(
        (chain.source_mapping.mapped, chain.source_mapping.bones),
        (3, 3)
    );
    assert_eq!(
        chain.source_mapping.past_end,
        vec!["RightLittleDistal".to_string()]
    );
    assert_eq!(
        mapping_words(&chain.target_mapping, &chain.source_mapping),
        "2 of 3 bones mapped in the target, no RightLittleDistal; the source's \
         RightLittleDistal past the target's end, not compared"
    );
    // The worst chain end is named with its mapping in the same words.
    let worst = m.worst_end.as_ref().expect("chains were measured");
    let named = m
        .chains
        .iter()
        .find(|c| c.chain == worst.chain)
        .expect("a chain");
    assert_eq!(
        worst.mapping,
        mapping_words(&named.target_mapping, &named.source_mapping)
    );
    for c in &m.chains {
        assert!(c.end_deg.is_none_or(|e| e <= worst.end_deg), "{c:?}");
    }
}

#[test]
fn an_unmeasured_chain_has_no_figures() {
    // The head has no tail: nothing to compare, so no 0 either.
    let s = side(&[]);
    let m = measured(&s, &s, &clip(&s.0, "Head", 20.0));
    let head = m.chains.iter().find(|c| c.chain == "Head").expect("head");
    assert!(!head.measured);
    assert_eq!(
        (head.end_deg, head.rest_deg, head.bones_deg),
        (None, None, None)
    );
    let json = serde_json::to_value(head).expect("serializes");
    assert!(
        json["end_deg"].is_null() && json.get("bones_deg").is_none(),
        "{json}"
    );
}

#[test]
fn skate_needs_two_frames_in_contact() {
    let foot = BoneId(0);
    let at = |x: f32, y: f32| vec![Vec3::new(x, y, 0.0)];
    // One frame: nothing to average.
    assert_eq!(skate(&[at(0.0, 0.0)], foot, 1.0), None);
    // Contact only at isolated frames (up, down, up, down…).
    let hopping: Vec<Vec<Vec3>> = (0..6).map(|k| at(0.0, (k % 2) as f32)).collect();
    assert_eq!(skate(&hopping, foot, 1.0), None);
    // Planted: a real 0.
    assert_eq!(skate(&[at(0.0, 0.0), at(0.0, 0.0)], foot, 1.0), Some(0.0));
    // Sliding 0.02 per frame on the floor, on a character 2 high: 1% of the height.
    let sliding: Vec<Vec<Vec3>> = (0..4).map(|k| at(0.02 * k as f32, 0.0)).collect();
    let s = skate(&sliding, foot, 2.0).expect("in contact");
    assert!((s - 0.01).abs() < 1e-6, "{s}");
}

#[test]
fn mapping_in_words() {
    let full = |n| ChainMapping {
        bones: n,
        mapped: n,
        ..ChainMapping::default()
    };
    assert_eq!(
        mapping_words(&full(3), &full(3)),
        "all 3 bones mapped on both sides"
    );
    let robot_leg = ChainMapping {
        bones: 4,
        mapped: 2,
        unmapped: vec!["RightToes".into()],
        detached: vec!["RightFoot".into()],
        ..ChainMapping::default()
    };
    assert_eq!(
        mapping_words(&robot_leg, &full(4)),
        "2 of 4 bones mapped in the target, RightFoot detached, no RightToes"
    );
    // Issue 15: a source leg read only down to where the target's stops.
    let cmu_leg = ChainMapping {
        past_end: vec!["RightFoot".into(), "RightToes".into()],
        ..full(4)
    };
    assert_eq!(
        mapping_words(&robot_leg, &cmu_leg),
        "2 of 4 bones mapped in the target, RightFoot detached, no RightToes; the source's \
         RightFoot, RightToes past the target's end, not compared"
    );
    let thumb = ChainMapping {
        bones: 3,
        mapped: 1,
        unmapped: vec!["LeftThumbProximal".into(), "LeftThumbDistal".into()],
        ..ChainMapping::default()
    };
    assert_eq!(
        mapping_words(&robot_leg, &thumb),
        "2 of 4 bones mapped in the target, RightFoot detached, no RightToes; 1 of 3 bones \
         mapped in the source, no LeftThumbProximal, no LeftThumbDistal"
    );
    // Issue 42: a source arm read from where the target's (without a shoulder) starts.
    let kaykit_arm = ChainMapping {
        bones: 4,
        mapped: 3,
        unmapped: vec!["LeftShoulder".into()],
        ..ChainMapping::default()
    };
    let xbot_arm = ChainMapping {
        before_start: vec!["LeftShoulder".into()],
        ..full(4)
    };
    assert_eq!(
        mapping_words(&kaykit_arm, &xbot_arm),
        "3 of 4 bones mapped in the target, no LeftShoulder; the source's LeftShoulder above \
         the target's start, not compared"
    );
}

#[test]
fn the_effector_error_series_peaks_at_the_measured_maximum() {
    // Issue 17: the report charts the series whose largest value the check reports.
    let (source, target) = (side(&[]), side(&["RightFoot"]));
    let c = clip(&source.0, "LeftLowerArm", 40.0);
    let profile = Profile::humanoid();
    let (s, t) = (
        Rig {
            skeleton: &source.0,
            map: &source.1,
            profile,
        },
        Rig {
            skeleton: &target.0,
            map: &target.1,
            profile,
        },
    );
    // A hand that moves less than the source's: an error that grows over the clip.
    let options = RetargetOptions {
        horizontal_scale: 0.5,
        ..RetargetOptions::default()
    };
    let r = retarget_clip(&s, &c, &t, SkeletonId(0), &RetargetOptions::default()).expect("ok");
    let times: Vec<f32> = (0..=30).map(|f| f as f32 / 30.0).collect();
    let series = effector_errors((&s, &c), (&t, &r.clip), &r.plan, &options, &times);
    let names: Vec<&str> = series.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["LeftHand", "RightHand", "LeftFoot", "RightFoot"]);
    let m = retarget((&s, &c), (&t, &r.clip), &r.plan, &options);
    for (name, values) in &series {
        match values {
            Ok(v) => {
                assert_eq!(v.len(), times.len(), "{name}: one value per time");
                let peak = v.iter().copied().fold(0.0, f32::max);
                let max = effector(&m, name).max_error.expect("measured");
                assert!((peak - max).abs() < 1e-4 * max.max(1.0), "{name}");
            }
            Err(why) => assert_eq!(Some(*why), effector(&m, name).reason, "{name}"),
        }
    }
    let left = series[0].1.as_ref().expect("the left hand is measured");
    assert!(left[0] < 1e-4, "no error at the start: {}", left[0]);
    assert!(left[30] > left[15] && left[15] > 1e-3, "{left:?}");
    assert!(series[3].1.is_err(), "the right foot is not mapped");
}

/// A source chain end whose tail sits on its joint (CMU's upper chest carries the neck and the
/// collars) has no direction of its own: the target's end is measured against its own rest end
/// turned as the source's end bone turns. The retarget turns it so (0°); a target end that does
/// not turn is off by the source's bend.
#[test]
fn a_source_end_without_a_direction_is_measured_by_its_turn() {
    let mut source = side(&[]);
    for b in ["Neck", "LeftShoulder", "RightShoulder"] {
        let i = source.0.find(b).expect("a bone").index();
        source.0.bones[i].rest.translation = Vec3::ZERO;
    }
    let target = side(&[]);
    let bent = clip(&source.0, "UpperChest", 30.0);
    let spine = |m: &RetargetCheck| {
        m.chains
            .iter()
            .find(|c| c.chain == "Spine")
            .and_then(|c| c.end_deg)
            .expect("the spine's end is measured")
    };
    let m = measured(&source, &target, &bent);
    assert!(spine(&m) < 0.01, "{}", spine(&m));
    let profile = Profile::humanoid();
    let (s, t) = (
        Rig {
            skeleton: &source.0,
            map: &source.1,
            profile,
        },
        Rig {
            skeleton: &target.0,
            map: &target.1,
            profile,
        },
    );
    let options = RetargetOptions::default();
    let plan = crate::retarget::Retargeter::new(&s, &t, &options)
        .expect("plans")
        .plan()
        .clone();
    let unbent = clip(&target.0, "LeftLowerArm", 30.0);
    let m = retarget((&s, &bent), (&t, &unbent), &plan, &options);
    assert!((spine(&m) - 30.0).abs() < 0.5, "{}", spine(&m));
}

/// Issue 42: math.md's directions are taken per segment on the clip measured, every segment
/// both sides map: a forearm the target's clip does not bend reads the source's bend, and a
/// segment whose tail one side lacks is listed as not measured, never as 0.
#[test]
fn segments_read_what_the_clip_does_and_list_what_they_cannot() {
    let (source, target) = (side(&[]), side(&["LeftToes"]));
    let profile = Profile::humanoid();
    let (s, t) = (
        Rig {
            skeleton: &source.0,
            map: &source.1,
            profile,
        },
        Rig {
            skeleton: &target.0,
            map: &target.1,
            profile,
        },
    );
    let options = RetargetOptions::default();
    let plan = crate::retarget::Retargeter::new(&s, &t, &options)
        .expect("plans")
        .plan()
        .clone();
    let bent = clip(&source.0, "LeftLowerArm", 30.0);
    let segment = |m: &RetargetCheck, bone: &str| {
        m.segments
            .iter()
            .find(|g| g.bone == bone)
            .cloned()
            .expect("measured")
    };
    // Retargeted: the forearm follows, 0 at every frame.
    let r = retarget_clip(&s, &bent, &t, SkeletonId(0), &options).expect("retargets");
    let m = retarget((&s, &bent), (&t, &r.clip), &plan, &options);
    let forearm = segment(&m, "LeftLowerArm");
    assert!(forearm.worst_deg < 0.01, "{forearm:?}");
    // The target's clip bends another bone: the forearm is 30° off at the last frame, 15° on
    // average over the linear bend.
    let unbent = clip(&target.0, "RightLowerArm", 0.0);
    let m = retarget((&s, &bent), (&t, &unbent), &plan, &options);
    let forearm = segment(&m, "LeftLowerArm");
    assert!((forearm.worst_deg - 30.0).abs() < 0.1, "{forearm:?}");
    assert!((forearm.mean_deg - 15.0).abs() < 1.0, "{forearm:?}");
    assert_eq!(forearm.worst_frame, m.frames - 1, "{forearm:?}");
    assert_eq!(forearm.chain.as_deref(), Some("LeftArm"));
    // The left foot's tail (its toes) is not mapped in the target: listed, not given a 0.
    assert!(m.segments.iter().all(|g| g.bone != "LeftFoot"));
    assert!(
        m.segments_not_measured.contains(&SegmentGap {
            bone: "LeftFoot".into(),
            reason: SegmentReason::TailNotMappedInTarget,
        }),
        "{:?}",
        m.segments_not_measured
    );
    assert!(m.segments.iter().any(|g| g.bone == "RightFoot"));
}

/// math.md's skate is in leg lengths over the source's contacts: the same travelling clip on a
/// rig twice the size, its legs twice as long, skates the same.
#[test]
fn skate_is_in_leg_lengths_over_the_sources_contacts() {
    let frames: Vec<Vec<Vec3>> = (0..10)
        .map(|f| vec![Vec3::new(0.0, 0.0, 0.01 * f as f32)])
        .collect();
    let twice: Vec<Vec<Vec3>> = frames
        .iter()
        .map(|f| f.iter().map(|p| *p * 2.0).collect())
        .collect();
    let (a, b) = (
        skate(&frames, BoneId(0), 0.5).expect("in contact"),
        skate(&twice, BoneId(0), 1.0).expect("in contact"),
    );
    assert!((a - 0.02).abs() < 1e-6 && (a - b).abs() < 1e-6, "{a} {b}");
}
