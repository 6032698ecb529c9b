//! The pipeline from bone maps made ahead ([`map_skeletons`], [`normalize_mapped`]: issue 20).

use super::*;
use std::path::Path;

fn fixture(name: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    crate::gltf_io::read(&path).unwrap().model
}

#[test]
fn maps_made_ahead_normalize_as_maps_made_inside() {
    let (model, profile) = (fixture("mixamo.glb"), Profile::humanoid());
    let options = NormalizeOptions {
        measure: true,
        ..Default::default()
    };
    let json = |r: &NormalizeReport| serde_json::to_value(r).unwrap();
    let mut inside = model.clone();
    let (want, _) = normalize_measuring_later(&mut inside, profile, &options).unwrap();
    let mut ahead = model.clone();
    let mapped = map_skeletons(&ahead.skeletons, profile, &options).unwrap();
    let (got, _) = normalize_mapped(&mut ahead, mapped, profile, &options).unwrap();
    assert_eq!((&ahead, json(&got)), (&inside, json(&want)));
    assert_ne!(ahead, model);
    // Maps made of other skeletons (other bone counts) are made again.
    let other = fixture("spine5.glb");
    let bones = |m: &Model| {
        m.skeletons
            .iter()
            .map(|s| s.bones.len())
            .collect::<Vec<_>>()
    };
    assert_ne!(bones(&other), bones(&model));
    let mapped = map_skeletons(&other.skeletons, profile, &options).unwrap();
    let mut again = model.clone();
    let (got, _) = normalize_mapped(&mut again, mapped, profile, &options).unwrap();
    assert_eq!((&again, json(&got)), (&inside, json(&want)));
}

#[test]
fn mapping_ahead_fails_as_normalize_does() {
    let model = fixture("quadruped.glb");
    let options = NormalizeOptions::default();
    let ahead = map_skeletons(&model.skeletons, Profile::humanoid(), &options).unwrap_err();
    let mut inside = model.clone();
    let err = normalize_measuring_later(&mut inside, Profile::humanoid(), &options).err();
    assert_eq!(Some(ahead), err);
    assert_eq!(inside, model);
    let options = NormalizeOptions {
        skeleton: Some(SkeletonId(9)),
        ..Default::default()
    };
    let ahead = map_skeletons(&model.skeletons, Profile::humanoid(), &options).unwrap_err();
    assert_eq!(ahead, NormalizeError::NoSkeleton(SkeletonId(9), 1));
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
        let Err(err) = normalize_measuring_later(&mut m, profile, &options) else {
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
    normalize_measuring_later(&mut shared, profile, &options).unwrap();
    let (report, _) = normalize_measuring_later(&mut model, profile, &options).unwrap();
    assert!(report.skeletons[0].rest.is_some());
    assert_eq!(model, shared, "the same result either way");
    let after = arrays(&model);
    let converted = before.iter().zip(&after).filter(|(b, _)| b.is_some());
    assert!(converted.clone().count() > 10);
    for (b, a) in converted {
        assert_eq!(b, a);
    }
}
