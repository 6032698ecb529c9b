//! Rigs built in code from the fixture generator's canonical humanoid, renamed to a naming
//! convention and reshaped to that convention's hierarchy. The expected map comes from the
//! canonical ids (`upper_arm.L` is LeftUpperArm), never from the mapper.
#![allow(dead_code)]

#[path = "../../examples/make_fixtures/rig.rs"]
pub mod rig;

#[path = "../../examples/make_fixtures/names.rs"]
pub mod names;

use glam::{Mat4, Quat, Vec3};
use rig::{Joint, Parts};
use skelnorm::model::{Bone, BoneId, Skeleton, Transform};

pub use names::{finger, title};

/// `(base, side)` of a canonical id, with `""` for no side: `upper_arm.L` → (`upper_arm`, `L`).
pub fn split(id: &str) -> (&str, &str) {
    let (base, side) = names::split(id);
    (base, side.unwrap_or(""))
}

/// The profile bone a canonical id stands for.
pub fn expected(id: &str) -> Option<String> {
    let (base, side) = split(id);
    let s = match side {
        "L" => "Left",
        "R" => "Right",
        _ => "",
    };
    let body = match base {
        "root" => "Root",
        "hips" => "Hips",
        "spine" => "Spine",
        "chest" => "Chest",
        "upper_chest" => "UpperChest",
        "neck" => "Neck",
        "head" => "Head",
        "eye" => "Eye",
        "jaw" => "Jaw",
        "shoulder" => "Shoulder",
        "upper_arm" => "UpperArm",
        "lower_arm" => "LowerArm",
        "hand" => "Hand",
        "upper_leg" => "UpperLeg",
        "lower_leg" => "LowerLeg",
        "foot" => "Foot",
        "toes" => "Toes",
        b => {
            let (f, n) = finger(b)?;
            if n == 4 {
                return None;
            }
            let part = if f == "thumb" {
                ["Metacarpal", "Proximal", "Distal"][n - 1]
            } else {
                ["Proximal", "Intermediate", "Distal"][n - 1]
            };
            return Some(format!("{s}{}{part}", title(f)));
        }
    };
    Some(format!("{s}{body}"))
}

/// Edits to the canonical hierarchy.
pub fn remove(j: &mut Vec<Joint>, id: &str) {
    let Some(k) = j.iter().position(|x| x.id == id) else {
        panic!("no joint {id}")
    };
    let parent = j[k].parent.clone();
    for x in j.iter_mut() {
        if x.parent.as_deref() == Some(id) {
            x.parent = parent.clone();
        }
    }
    j.remove(k);
}

/// Removes a joint and everything below it.
pub fn prune(j: &mut Vec<Joint>, id: &str) {
    let mut gone = vec![id.to_string()];
    loop {
        let more: Vec<String> = j
            .iter()
            .filter(|x| x.parent.as_ref().is_some_and(|p| gone.contains(p)) && !gone.contains(&x.id))
            .map(|x| x.id.clone())
            .collect();
        if more.is_empty() {
            break;
        }
        gone.extend(more);
    }
    j.retain(|x| !gone.contains(&x.id));
}

/// Adds a joint under `parent` and moves `children` under it.
pub fn insert(j: &mut Vec<Joint>, id: &str, parent: Option<&str>, children: &[&str], pos: Vec3) {
    for x in j.iter_mut() {
        if children.contains(&x.id.as_str()) {
            x.parent = Some(id.into());
        }
    }
    j.push(Joint {
        id: id.into(),
        parent: parent.map(Into::into),
        pos,
        weighted: true,
        in_skin: true,
    });
}

pub fn reparent(j: &mut [Joint], id: &str, parent: &str) {
    j.iter_mut().find(|x| x.id == id).expect("joint").parent = Some(parent.into());
}

pub fn pos(j: &[Joint], id: &str) -> Vec3 {
    j.iter().find(|x| x.id == id).map(|x| x.pos).expect("joint")
}

/// Builds a skeleton (parents first) from joints named by `names`, with rest rotations that
/// follow each bone (+Y toward its first child), in a `base` space.
pub fn skeleton(joints: &[Joint], names: &dyn Fn(&str) -> String, base: Mat4) -> Skeleton {
    let mut order: Vec<usize> = Vec::new();
    while order.len() < joints.len() {
        let before = order.len();
        for (i, x) in joints.iter().enumerate() {
            if order.contains(&i) {
                continue;
            }
            let ready = x
                .parent
                .as_ref()
                .is_none_or(|p| order.iter().any(|&o| &joints[o].id == p));
            if ready {
                order.push(i);
            }
        }
        assert!(order.len() > before, "cycle in rig");
    }
    let index_of = |id: &str| order.iter().position(|&o| joints[o].id == id);
    let mut world_rot: Vec<Quat> = Vec::new();
    let mut bones = Vec::new();
    for &o in &order {
        let x = &joints[o];
        let parent = x.parent.as_deref().and_then(index_of);
        let child = joints.iter().find(|c| c.parent.as_deref() == Some(x.id.as_str()));
        let dir = child.map_or(Vec3::Y, |c| (c.pos - x.pos).normalize_or(Vec3::Y));
        let rot = Quat::from_rotation_arc(Vec3::Y, dir);
        let (p_pos, p_rot) = match parent {
            Some(p) => (joints[order[p]].pos, world_rot[p]),
            None => (Vec3::ZERO, Quat::IDENTITY),
        };
        world_rot.push(rot);
        bones.push(Bone {
            name: names(&x.id),
            parent: parent.map(|p| BoneId(p as u32)),
            rest: Transform {
                translation: p_rot.inverse() * (x.pos - p_pos),
                rotation: (p_rot.inverse() * rot).normalize(),
                scale: Vec3::ONE,
            },
            is_joint: x.in_skin,
            weighted: Some(x.weighted && x.in_skin),
            node: Some(bones.len() as u32),
        });
    }
    Skeleton {
        name: "rig".into(),
        bones,
        skins: vec![],
        attachments: vec![],
        base,
        base_nodes: vec![],
        declared: None,
    }
}

/// A canonical humanoid with the given parts.
pub fn humanoid(parts: Parts) -> Vec<Joint> {
    rig::humanoid(parts)
}
