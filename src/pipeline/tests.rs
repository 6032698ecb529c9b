//! The pipeline's normalize: refusals that leave the model as it came, keys converted where they
//! are, and key values read again to measure against ([`normalize_measuring_later`]).

use super::*;
use crate::model::Channel;
use std::path::Path;

fn fixture(name: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    crate::gltf_io::read(&path).unwrap().model
}

#[test]
fn a_model_no_skeleton_fits_or_without_the_chosen_one_is_refused_unchanged() {
    let model = fixture("quadruped.glb");
    let options = NormalizeOptions::default();
    let mut m = model.clone();
    let err = normalize_measuring_later(&mut m, Profile::humanoid(), &options, None).err();
    assert!(matches!(err, Some(NormalizeError::NoFit { .. })), "{err:?}");
    assert_eq!(m, model);
    let options = NormalizeOptions {
        skeleton: Some(SkeletonId(9)),
        ..Default::default()
    };
    let err = normalize_measuring_later(&mut m, Profile::humanoid(), &options, None).err();
    assert_eq!(err, Some(NormalizeError::NoSkeleton(SkeletonId(9), 1)));
}

#[test]
fn a_stage_refusing_after_the_rest_fix_would_run_leaves_the_model_as_it_came() {
    // One skeleton, nothing to measure: no copy is kept to restore from, so every stage's
    // checks must run before the rest fix changes anything. Strip refuses here (an unknown
    // bone to keep the position of), rename there (an empty armature name).
    let (model, profile) = (fixture("mixamo.glb"), Profile::humanoid());
    let mut strip_refuses = NormalizeOptions::default();
    strip_refuses.tracks.position_bones = vec!["NoSuchBone".into()];
    let mut rename_refuses = NormalizeOptions::default();
    rename_refuses.rename.skeleton_name = Some(" ".into());
    for options in [strip_refuses, rename_refuses] {
        assert!(options.stages.rest && !options.measure);
        let mut m = model.clone();
        let Err(err) = normalize_measuring_later(&mut m, profile, &options, None) else {
            panic!("the stages ran");
        };
        assert!(
            matches!(err, NormalizeError::Tracks(_) | NormalizeError::Rename(_)),
            "{err}"
        );
        assert_eq!(m, model);
    }
}

#[test]
fn with_nothing_to_measure_keys_are_converted_where_they_are() {
    // The model's own key arrays (the document it was read with is gone) are converted in
    // place: no copy is kept to restore from, so the rest fix finds them unshared.
    let (mut model, profile) = (fixture("mixamo.glb"), Profile::humanoid());
    let arrays = |m: &Model| -> Vec<Option<usize>> {
        let tracks = m.clips.iter().flat_map(|c| &c.tracks);
        tracks
            .map(|t| t.rotation.as_ref().map(|r| r.values.as_ptr() as usize))
            .collect()
    };
    let before = arrays(&model);
    let options = NormalizeOptions {
        stages: crate::pipeline::Stages {
            strip: false,
            rename: false,
            ..Default::default()
        },
        ..Default::default()
    };
    // While a clone shares the arrays, the rest fix converts into new ones.
    let mut shared = model.clone();
    normalize_measuring_later(&mut shared, profile, &options, None).unwrap();
    let (report, _) = normalize_measuring_later(&mut model, profile, &options, None).unwrap();
    assert!(report.skeletons[0].rest.is_some());
    assert_eq!(model, shared, "the same result either way");
    let after = arrays(&model);
    let converted = before.iter().zip(&after).filter(|(b, _)| b.is_some());
    assert!(converted.clone().count() > 10);
    for (b, a) in converted {
        assert_eq!(b, a);
    }
}

/// What a copy of the model as read holds to measure against does not change what is measured:
/// a copy that let go of the key values its reader reads again ([`normalize_measuring_later`])
/// measures as a whole copy does, on one thread and on two, and the model comes out the same.
#[test]
fn values_read_again_measure_as_a_whole_copy() {
    let profile = Profile::humanoid();
    let options = NormalizeOptions {
        measure: true,
        ..Default::default()
    };
    let json = |r: &NormalizeReport| serde_json::to_value(r).unwrap();
    for name in [
        "mixamo.glb",
        "vrm0.vrm",
        "ue_zup.glb",
        "blender.glb",
        "mixamo_meshopt.glb",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name);
        let doc = crate::gltf_io::read(&path).unwrap();
        for threads in [1, 2] {
            let mut whole = doc.model.clone();
            let (mut want, measuring) =
                normalize_measuring_later(&mut whole, profile, &options, None).unwrap();
            measuring.run_beside(&whole, &mut want, threads, || ());
            let mut without_keys = doc.model.clone();
            let rereading = doc.rereadable_keys();
            let (mut got, measuring) =
                normalize_measuring_later(&mut without_keys, profile, &options, rereading).unwrap();
            assert_eq!(
                measuring.rereading.is_some(),
                name != "mixamo_meshopt.glb",
                "{name}: compressed keys are not read rereading"
            );
            measuring.run_beside(&without_keys, &mut got, threads, || ());
            assert_eq!((&without_keys, json(&got)), (&whole, json(&want)), "{name}");
            let skin = &got.skeletons[0].measured.as_ref().unwrap().skin;
            assert!(
                skin.matrices > 0 && skin.max_error < 1e-5,
                "{name}: {skin:?}"
            );
        }
    }
}

/// Values that cannot be read again after all make the check say so (an infinite error at the
/// clip's first frame) rather than compare a clip that holds no values, or panic.
#[test]
fn values_that_cannot_be_read_again_are_an_infinite_error() {
    #[derive(Debug)]
    struct Lost;
    impl RereadableKeys for Lost {
        fn has(&self, _: usize, _: usize, _: Channel, _: &std::sync::Arc<[f32]>) -> bool {
            true
        }
        fn vec3s(&self, _: usize, _: usize, _: Channel) -> Option<std::sync::Arc<[glam::Vec3]>> {
            None
        }
        fn quats(&self, _: usize, _: usize) -> Option<std::sync::Arc<[glam::Quat]>> {
            None
        }
    }
    let model = fixture("mixamo.glb");
    let mut without_keys = model.clone();
    assert!(drop_rereadable(&mut without_keys, &Lost) > 0);
    let skin = check::skin_rereading(&without_keys, &model, SkeletonId(0), Some(&Lost));
    assert_eq!(
        (skin.max_error, skin.matrices),
        (f32::INFINITY, 0),
        "{skin:?}"
    );
    let worst = skin.worst.as_deref().unwrap();
    let named = |c: &crate::model::Clip| worst.starts_with(&format!("clip `{}`", c.name));
    assert!(model.clips.iter().any(named), "{skin:?}");
    // Read again as read, the same copy measures as the model itself.
    let doc =
        crate::gltf_io::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mixamo.glb"))
            .unwrap();
    let rereading = doc.rereadable_keys().unwrap();
    let mut without_keys = doc.model.clone();
    assert!(drop_rereadable(&mut without_keys, rereading.as_ref()) > 0);
    let same = check::skin_rereading(
        &without_keys,
        &doc.model,
        SkeletonId(0),
        Some(rereading.as_ref()),
    );
    assert_eq!(same, check::skin(&doc.model, &doc.model, SkeletonId(0)));
    assert_eq!(same.max_error, 0.0);
}

/// Values read again by their place in the model as read, which is not the place of a clip
/// among the skeleton's pairs: a second skeleton (one that does not fit, so one is staged) whose
/// clips come first. Measured in the loop (the skeleton before another) and beside.
#[test]
fn values_read_again_by_their_place_in_the_model_as_read() {
    /// Reads again from a whole copy, by place.
    #[derive(Debug)]
    struct ByPlace(Model);
    impl ByPlace {
        fn tracks(&self, c: usize, b: usize) -> Option<&crate::model::BoneTracks> {
            self.0.clips.get(c)?.tracks.get(b)
        }
    }
    impl RereadableKeys for ByPlace {
        fn has(&self, c: usize, b: usize, channel: Channel, times: &std::sync::Arc<[f32]>) -> bool {
            use Channel::*;
            let same = |read: &std::sync::Arc<[f32]>| std::sync::Arc::ptr_eq(read, times);
            self.tracks(c, b).is_some_and(|t| match channel {
                Translation => t.translation.as_ref().is_some_and(|t| same(&t.times)),
                Rotation => t.rotation.as_ref().is_some_and(|t| same(&t.times)),
                Scale => t.scale.as_ref().is_some_and(|t| same(&t.times)),
            })
        }
        fn vec3s(
            &self,
            c: usize,
            b: usize,
            channel: Channel,
        ) -> Option<std::sync::Arc<[glam::Vec3]>> {
            let t = self.tracks(c, b)?;
            let track = match channel {
                Channel::Translation => t.translation.as_ref(),
                Channel::Scale => t.scale.as_ref(),
                Channel::Rotation => None,
            }?;
            Some(std::sync::Arc::from(&track.values[..]))
        }
        fn quats(&self, c: usize, b: usize) -> Option<std::sync::Arc<[glam::Quat]>> {
            let t = self.tracks(c, b)?.rotation.as_ref()?;
            Some(std::sync::Arc::from(&t.values[..]))
        }
    }
    let profile = Profile::humanoid();
    let json = |r: &NormalizeReport| serde_json::to_value(r).unwrap();
    let mut model = fixture("mixamo.glb");
    let quad = fixture("quadruped.glb");
    model.skeletons.push(quad.skeletons[0].clone());
    for (i, clip) in quad.clips.iter().enumerate() {
        let mut clip = clip.clone();
        clip.skeleton = SkeletonId(1);
        model.clips.insert(i, clip);
    }
    for skeleton in [None, Some(SkeletonId(0))] {
        let options = NormalizeOptions {
            measure: true,
            skeleton,
            ..Default::default()
        };
        for threads in [1, 2] {
            let mut whole = model.clone();
            let (mut want, measuring) =
                normalize_measuring_later(&mut whole, profile, &options, None).unwrap();
            measuring.run_beside(&whole, &mut want, threads, || ());
            let mut without_keys = model.clone();
            let rereading: std::sync::Arc<dyn RereadableKeys> =
                std::sync::Arc::new(ByPlace(model.clone()));
            let (mut got, measuring) =
                normalize_measuring_later(&mut without_keys, profile, &options, Some(rereading))
                    .unwrap();
            assert!(measuring.rereading.is_some());
            measuring.run_beside(&without_keys, &mut got, threads, || ());
            assert_eq!(
                (&without_keys, json(&got)),
                (&whole, json(&want)),
                "{skeleton:?}"
            );
            let skin = &got.skeletons[0].measured.as_ref().unwrap().skin;
            assert!(skin.matrices > 0 && skin.max_error < 1e-5, "{skin:?}");
        }
    }
}

/// A refusal with the copy's rereadable keys dropped leaves the model as it came: that copy is not
/// restored.
#[test]
fn a_refusal_with_values_read_again_leaves_the_model_as_it_came() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mixamo.glb");
    let doc = crate::gltf_io::read(&path).unwrap();
    let profile = Profile::humanoid();
    let mut options = NormalizeOptions {
        measure: true,
        ..Default::default()
    };
    options.rename.skeleton_name = Some(" ".into());
    let mut m = doc.model.clone();
    let result = normalize_measuring_later(&mut m, profile, &options, doc.rereadable_keys());
    assert!(matches!(result, Err(NormalizeError::Rename(_))));
    assert_eq!(m, doc.model);
}

#[test]
fn new_clip_names_never_equal_another_ignoring_case() {
    use super::retarget::{ClipNaming, OnClash};
    let names = |on_clash, clips: &[&str], taken: &[&str]| {
        let naming = ClipNaming {
            on_clash,
            ..ClipNaming::default()
        };
        naming.names(clips, taken)
    };
    // Onto a target with `Idle`, `Run` and `Walk` (as Soldier has), and new clips also
    // clashing among themselves.
    let taken = ["Idle", "Run", "Walk", "walk (retargeted)"];
    let clips = ["idle", "run", "WALK", "jump", "Jump"];
    let renamed = names(OnClash::Rename, &clips, &taken).unwrap();
    let got: Vec<(&str, Option<&str>)> = renamed
        .iter()
        .map(|n| (n.name.as_str(), n.clashed_with.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("idle (retargeted)", Some("Idle")),
            ("run (retargeted)", Some("Run")),
            ("WALK (retargeted 2)", Some("Walk")),
            ("jump", None),
            ("Jump (retargeted)", None),
        ]
    );
    assert!(renamed.iter().all(|n| n.replaced.is_none()));
    let all: Vec<String> = taken
        .iter()
        .map(|t| t.to_lowercase())
        .chain(renamed.iter().map(|n| n.name.to_lowercase()))
        .collect();
    let unique: std::collections::BTreeSet<&String> = all.iter().collect();
    assert_eq!(unique.len(), all.len(), "{all:?}");
    let replaced = names(OnClash::Replace, &clips, &taken).unwrap();
    let got: Vec<(&str, Option<&str>)> = replaced
        .iter()
        .map(|n| (n.name.as_str(), n.replaced.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("idle", Some("Idle")),
            ("run", Some("Run")),
            ("WALK", Some("Walk")),
            ("jump", None),
            // Another new clip is not replaced: it is renamed.
            ("Jump (retargeted)", None),
        ]
    );
    assert_eq!(
        names(OnClash::Refuse, &clips, &taken),
        Err("Idle".to_string())
    );
    assert_eq!(
        names(OnClash::Refuse, &["jump", "JUMP"], &taken),
        Err("JUMP".to_string())
    );
    // Issue 42: a prefix or suffix is part of the name compared: `walk` + ` X` is the target's
    // `WALK x` ignoring case, and is renamed; an animation-only output (no target clips kept)
    // still never holds two new clips equal ignoring case.
    let suffixed = ClipNaming {
        suffix: " X".into(),
        ..ClipNaming::default()
    };
    let got = suffixed
        .names(&["walk", "run"], &["WALK x", "Run"])
        .unwrap();
    assert_eq!(
        (got[0].name.as_str(), got[0].clashed_with.as_deref()),
        ("walk X (retargeted)", Some("WALK x"))
    );
    assert_eq!(
        (got[1].name.as_str(), got[1].clashed_with.as_deref()),
        ("run X", None)
    );
    let got = names(OnClash::Replace, &["Walk", "walk"], &[]).unwrap();
    assert_eq!(got[1].name, "walk (retargeted)");
}

#[test]
fn a_retarget_replaces_or_keeps_the_targets_clip_as_asked() {
    use super::retarget::{retarget, OnClash, RetargetJob, RetargetOutput};
    let profile = Profile::humanoid();
    for (on_clash, output) in [
        (OnClash::Rename, RetargetOutput::Original),
        (OnClash::Replace, RetargetOutput::Original),
        (OnClash::Replace, RetargetOutput::Normalized),
    ] {
        let mut source = fixture("mixamo.glb");
        let mut target = fixture("mixamo.glb");
        let own = target.clips.len();
        let first = target.clips[0].name.clone();
        // The source's clip differs from the target's only by case.
        source.clips.truncate(1);
        source.clips[0].name = first.to_uppercase();
        let mut job = RetargetJob {
            output,
            ..RetargetJob::default()
        };
        job.naming.on_clash = on_clash;
        let report = retarget(&mut source, &mut target, profile, &job).unwrap();
        let [new] = report.clips.as_slice() else {
            panic!("{:?}", report.clips)
        };
        let names: Vec<String> = target.clips.iter().map(|c| c.name.to_lowercase()).collect();
        let unique: std::collections::BTreeSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{on_clash:?}: {names:?}");
        assert_eq!(new.clashed_with.as_deref(), Some(first.as_str()));
        match on_clash {
            OnClash::Replace => {
                assert_eq!(new.replaced.as_deref(), Some(first.as_str()));
                assert_eq!(new.clip, first.to_uppercase());
                assert_eq!(target.clips.len(), own, "{output:?}");
                assert!(!target.clips.iter().any(|c| c.name == first));
            }
            _ => {
                assert_eq!(new.clip, format!("{} (retargeted)", first.to_uppercase()));
                assert_eq!(target.clips.len(), own + 1);
                assert!(target.clips.iter().any(|c| c.name == first));
            }
        }
    }
}
