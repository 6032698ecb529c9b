use super::*;

mod makehuman;
mod quaternius;
mod vrma;

/// A chain rig (pelvis → spine → head, say) that only names can tell apart.
fn chain(names: &[&str]) -> Skeleton {
    let mut sk = crate::model::tests::chain(names.len());
    for (bone, name) in sk.bones.iter_mut().zip(names) {
        bone.name = name.to_string();
    }
    sk
}

#[test]
fn a_rig_without_legs_has_no_hips_and_says_so() {
    let sk = chain(&["pelvis", "spine", "head"]);
    let map = map_skeleton(&sk, Profile::humanoid(), &MapOptions::default());
    assert!(map.entries.iter().all(Option::is_none));
    assert!(map
        .warnings
        .iter()
        .any(|w| w.code == WarningCode::RequiredMissing));
}

#[test]
fn overrides_win_and_conflicts_are_reported() {
    let sk = chain(&["pelvis", "spine", "head"]);
    let file = BoneMapFile {
        profile: String::new(),
        bones: [("Hips", "pelvis"), ("Spine", "pelvis"), ("Head", "nope")]
            .into_iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        unmapped: vec![],
    };
    let options = MapOptions {
        overrides: Some(file),
        ignore_declared: false,
    };
    let map = map_skeleton(&sk, Profile::humanoid(), &options);
    let p = Profile::humanoid();
    assert_eq!(map.by_name(p, "Hips"), Some(BoneId(0)));
    let codes: Vec<WarningCode> = map.warnings.iter().map(|w| w.code).collect();
    assert!(codes.contains(&WarningCode::ClaimedTwice), "{codes:?}");
    assert!(codes.contains(&WarningCode::UnknownBone), "{codes:?}");
}

#[test]
fn the_generic_mapper_keeps_the_hierarchy() {
    let text = r#"(
        name: "worm",
        bones: [
            (name: "Tail", names: [("tail", 1.0)]),
            (name: "Body", parent: Some("Tail"), names: [("body", 1.0)]),
            (name: "Head", parent: Some("Body"), names: [("head", 1.0)]),
        ],
    )"#;
    let profile = Profile::from_ron(text, "worm").unwrap();
    // `head` sits below `tail` but above `body`: Body cannot also be below Head.
    let sk = chain(&["tail", "head", "body"]);
    let map = map_skeleton(&sk, &profile, &MapOptions::default());
    assert_eq!(map.get(ProfileBoneId(0)), Some(BoneId(0)));
    let body = map.get(ProfileBoneId(1));
    let head = map.get(ProfileBoneId(2));
    assert!(
        body.is_none() || head.is_none(),
        "one of them breaks the order"
    );
}

#[test]
fn mapping_is_deterministic() {
    let sk = chain(&["pelvis", "spine", "head"]);
    let a = map_skeleton(&sk, Profile::humanoid(), &MapOptions::default());
    let b = map_skeleton(&sk, Profile::humanoid(), &MapOptions::default());
    assert_eq!(a, b);
}
