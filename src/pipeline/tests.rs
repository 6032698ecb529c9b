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
