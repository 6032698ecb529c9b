//! Renaming on rigs built in code: mapped bones take profile names, names stay unique across the
//! model, and the rules of who moves aside hold.

use super::*;
use crate::mapping::testing::{identity_map, rig};
use crate::model::Skeleton;
use glam::{Mat4, Quat};
use std::collections::HashSet;

/// The profile rig with every bone renamed `mixamorig:<name>`, and its map.
fn prefixed() -> (Skeleton, BoneMap) {
    let mut s = rig(&[Quat::IDENTITY], Mat4::IDENTITY);
    let map = identity_map(&s, 5);
    for b in &mut s.bones {
        b.name = format!("mixamorig:{}", b.name);
    }
    (s, map)
}

fn model_of(skeletons: Vec<Skeleton>, other: &[(u32, &str)]) -> Model {
    Model {
        skeletons,
        clips: Vec::new(),
        other_nodes: other
            .iter()
            .map(|&(node, name)| NodeName {
                node,
                name: name.into(),
            })
            .collect(),
        scene_turn: Default::default(),
        view_turn: Default::default(),
        points: Vec::new(),
    }
}

fn all_names(m: &Model) -> Vec<String> {
    m.skeletons
        .iter()
        .flat_map(|s| s.bones.iter().map(|b| b.name.clone()))
        .chain(m.other_nodes.iter().map(|n| n.name.clone()))
        .collect()
}

fn unique(m: &Model) -> bool {
    let names = all_names(m);
    names.iter().collect::<HashSet<_>>().len() == names.len()
}

#[test]
fn mapped_bones_take_profile_names_and_unmapped_keep_theirs() {
    let profile = Profile::humanoid();
    let (s, map) = prefixed();
    let mut model = model_of(vec![s.clone()], &[(0, "Armature"), (200, "Body")]);
    let report = rename(
        &mut model,
        SkeletonId(0),
        &map,
        profile,
        &RenameOptions::default(),
    )
    .unwrap();
    for p in profile.ids() {
        let name = &model.skeletons[0].bones[p.index()].name;
        match map.get(p) {
            Some(_) => assert_eq!(name, &profile.bone(p).name),
            None => assert_eq!(name, &format!("mixamorig:{}", profile.bone(p).name)),
        }
    }
    assert_eq!(report.bones.len(), map.entries.iter().flatten().count());
    assert!(report.moved_aside.is_empty() && report.skeleton.is_none());
    assert!(unique(&model));
    // Nothing but names changed.
    let mut back = model.skeletons[0].clone();
    for (b, o) in back.bones.iter_mut().zip(&s.bones) {
        b.name = o.name.clone();
    }
    assert_eq!(back, s);
}

#[test]
fn holders_of_wanted_names_move_aside_and_swaps_collide_with_nothing() {
    let profile = Profile::humanoid();
    let (mut s, map) = prefixed();
    // Unmapped bone (every 5th optional one is unmapped) named like a profile bone.
    let unmapped = map.unmapped_source(&s)[0];
    s.bones[unmapped.index()].name = "Spine".into();
    // Two mapped bones carrying each other's profile names.
    let (chest, upper) = (
        s.find("mixamorig:Chest").unwrap(),
        s.find("mixamorig:UpperChest").unwrap(),
    );
    s.bones[chest.index()].name = "UpperChest".into();
    s.bones[upper.index()].name = "Chest".into();
    // A mesh node named like a profile bone, and one already holding the suffixed name.
    let mut model = model_of(vec![s], &[(0, "Armature"), (200, "Head"), (201, "Head_2")]);
    let report = rename(
        &mut model,
        SkeletonId(0),
        &map,
        profile,
        &RenameOptions::default(),
    )
    .unwrap();
    assert!(unique(&model), "{:?}", all_names(&model));
    let b = &model.skeletons[0].bones;
    assert_eq!(b[chest.index()].name, "Chest");
    assert_eq!(b[upper.index()].name, "UpperChest");
    assert_eq!(b[unmapped.index()].name, "Spine_2");
    assert_eq!(model.other_nodes[1].name, "Head_3");
    assert_eq!(model.other_nodes[2].name, "Head_2");
    let aside: HashSet<(String, String)> = report
        .moved_aside
        .iter()
        .map(|r| (r.from.clone(), r.to.clone()))
        .collect();
    assert_eq!(
        aside,
        HashSet::from([
            ("Spine".into(), "Spine_2".into()),
            ("Head".into(), "Head_3".into())
        ])
    );
}

#[test]
fn another_skeletons_names_are_left_to_it() {
    let profile = Profile::humanoid();
    let (first, map) = prefixed();
    let mut second = rig(&[Quat::IDENTITY], Mat4::IDENTITY);
    for b in &mut second.bones {
        b.node = b.node.map(|n| n + 100);
    }
    second.base_nodes = vec![100];
    let mut model = model_of(
        vec![first, second.clone()],
        &[(0, "Armature"), (100, "Other")],
    );
    let report = rename(
        &mut model,
        SkeletonId(0),
        &map,
        profile,
        &RenameOptions::default(),
    )
    .unwrap();
    assert_eq!(
        model.skeletons[1], second,
        "the other skeleton is untouched"
    );
    assert!(unique(&model));
    let hips = map.by_name(profile, "Hips").unwrap();
    assert_eq!(model.skeletons[0].bones[hips.index()].name, "Hips_2");
    let w = &report.warnings[0];
    assert_eq!(w.code, crate::model::WarningCode::NameTaken);
    assert!(w.bones.contains(&"Hips_2".to_string()));
}

#[test]
fn the_armature_takes_the_skeleton_name() {
    let profile = Profile::humanoid();
    let options = RenameOptions {
        skeleton_name: Some("GeneralSkeleton".into()),
    };
    // A named armature node; a mesh already called GeneralSkeleton moves aside.
    let (s, map) = prefixed();
    let mut model = model_of(
        vec![s.clone()],
        &[(0, "Armature"), (200, "GeneralSkeleton")],
    );
    model.skeletons[0].name = "Armature".into();
    let report = rename(&mut model, SkeletonId(0), &map, profile, &options).unwrap();
    assert_eq!(model.skeletons[0].name, "GeneralSkeleton");
    assert_eq!(model.other_nodes[0].name, "GeneralSkeleton");
    assert_eq!(model.other_nodes[1].name, "GeneralSkeleton_2");
    assert_eq!(
        report.skeleton,
        Some(Renamed {
            from: "Armature".into(),
            to: "GeneralSkeleton".into()
        })
    );
    // An unnamed armature node gets an entry.
    let mut model = model_of(vec![s.clone()], &[]);
    rename(&mut model, SkeletonId(0), &map, profile, &options).unwrap();
    assert_eq!(
        model.other_nodes,
        vec![NodeName {
            node: 0,
            name: "GeneralSkeleton".into()
        }]
    );
    // Bones straight under the scene: the skeleton's name changes (the writer adds the node).
    let mut loose = s;
    loose.base_nodes.clear();
    let mut model = model_of(vec![loose], &[]);
    rename(&mut model, SkeletonId(0), &map, profile, &options).unwrap();
    assert_eq!(model.skeletons[0].name, "GeneralSkeleton");
    assert!(model.other_nodes.is_empty());
    // An empty name is refused, and nothing changes.
    let before = model.clone();
    let empty = RenameOptions {
        skeleton_name: Some(" ".into()),
    };
    assert_eq!(
        rename(&mut model, SkeletonId(0), &map, profile, &empty),
        Err(RenameError::EmptyName)
    );
    assert_eq!(model, before);
}

#[test]
fn renaming_twice_changes_nothing_more() {
    let profile = Profile::humanoid();
    let (s, map) = prefixed();
    let mut model = model_of(vec![s], &[(0, "Armature"), (200, "Hips")]);
    rename(
        &mut model,
        SkeletonId(0),
        &map,
        profile,
        &RenameOptions::default(),
    )
    .unwrap();
    let once = model.clone();
    let again = rename(
        &mut model,
        SkeletonId(0),
        &map,
        profile,
        &RenameOptions::default(),
    )
    .unwrap();
    assert_eq!(model, once);
    assert!(again.bones.is_empty() && again.moved_aside.is_empty());
}
