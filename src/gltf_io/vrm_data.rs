//! The VRM data that lives in a bone's own space or in the scene's, kept where it was when bones
//! change their rest frames or the scene turns (issue 40): spring-bone colliders (VRM 0.x
//! `secondaryAnimation.colliderGroups`, VRM 1.0 `VRMC_springBone` colliders and the extended
//! colliders of `VRMC_springBone_extended_collider`), the look-at origin (VRM 1.0
//! `lookAt.offsetFromHeadBone`, VRM 0.x `firstPerson.firstPersonBoneOffset`) and gravity
//! directions. The humanoid map names nodes, which never change, so it needs nothing.
//!
//! Reading makes each value fixed in a bone's space a [`BonePoint`] of the model (a point, a
//! length or a direction), which the stages move with its bone as they move attachments;
//! writing puts back the values that changed, found again in the same order. Gravity is a
//! scene direction: it turns with the scene. VRM 0.x stores points with z negated (Unity's
//! left-handed axes), as three-vrm reads them; where a look-at origin is missing, three-vrm's
//! default is taken (and written once it moves).

use super::error::ErrorKind;
use crate::model::{BoneId, BonePoint, Model, SkeletonId, Transform};
use glam::{Mat3, Quat, Vec3};
use serde_json::Value;
use std::collections::HashMap;

/// The look-at origin three-vrm takes when a file gives none, in the head bone's space.
const LOOK_AT_DEFAULT: [f32; 3] = [0.0, 0.06, 0.0];

/// How a point or direction is stored: glTF's axes as an array, or VRM 0.x's (z negated) as an
/// `{x, y, z}` object.
#[derive(Clone, Copy, PartialEq)]
enum Axes {
    Gltf,
    Vrm0,
}

impl Axes {
    /// Between the file's axes and glTF's (the z flip is its own inverse).
    fn flip(self, v: Vec3) -> Vec3 {
        match self {
            Axes::Gltf => v,
            Axes::Vrm0 => Vec3::new(v.x, v.y, -v.z),
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Point(Axes),
    Length,
    Direction(Axes),
}

/// One value fixed in a node's space, by its JSON pointer in `extensions` (whose last token
/// names an object's member).
struct Slot {
    node: u64,
    path: String,
    kind: Kind,
    /// What a reader takes when the value is missing (only look-at origins have one).
    default: Option<Vec3>,
}

fn array_of(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// Every slot of the file's VRM extensions (`ext`: the document's `extensions`), in one order.
fn slots(ext: &Value) -> Vec<Slot> {
    let mut out = Vec::new();
    let node_of = |v: &Value, key: &str| v.get(key).and_then(Value::as_u64);
    if let Some(vrm) = ext.get("VRM") {
        let head = array_of(vrm.pointer("/humanoid/humanBones"))
            .iter()
            .find(|b| b.get("bone").and_then(Value::as_str) == Some("head"))
            .and_then(|b| node_of(b, "node"));
        if let Some(first) = vrm.get("firstPerson") {
            if let Some(node) = node_of(first, "firstPersonBone").or(head) {
                out.push(Slot {
                    node,
                    path: "/VRM/firstPerson/firstPersonBoneOffset".into(),
                    kind: Kind::Point(Axes::Vrm0),
                    default: Some(Vec3::from(LOOK_AT_DEFAULT)),
                });
            }
        }
        for (g, group) in array_of(vrm.pointer("/secondaryAnimation/colliderGroups"))
            .iter()
            .enumerate()
        {
            let Some(node) = node_of(group, "node") else {
                continue;
            };
            for (c, _) in array_of(group.get("colliders")).iter().enumerate() {
                let at =
                    |k| format!("/VRM/secondaryAnimation/colliderGroups/{g}/colliders/{c}/{k}");
                out.push(slot(node, at("offset"), Kind::Point(Axes::Vrm0)));
                out.push(slot(node, at("radius"), Kind::Length));
            }
        }
    }
    if let Some(vrm) = ext.get("VRMC_vrm") {
        let head = vrm
            .pointer("/humanoid/humanBones/head/node")
            .and_then(Value::as_u64);
        if let (Some(node), Some(_)) = (head, vrm.get("lookAt")) {
            out.push(Slot {
                node,
                path: "/VRMC_vrm/lookAt/offsetFromHeadBone".into(),
                kind: Kind::Point(Axes::Gltf),
                default: Some(Vec3::from(LOOK_AT_DEFAULT)),
            });
        }
    }
    if let Some(spring) = ext.get("VRMC_springBone") {
        for (i, collider) in array_of(spring.get("colliders")).iter().enumerate() {
            let Some(node) = node_of(collider, "node") else {
                continue;
            };
            let base = format!("/VRMC_springBone/colliders/{i}");
            shape_slots(
                &mut out,
                node,
                collider.get("shape"),
                format!("{base}/shape"),
            );
            let extended = "/extensions/VRMC_springBone_extended_collider/shape";
            shape_slots(
                &mut out,
                node,
                collider.pointer(extended),
                format!("{base}{extended}"),
            );
        }
    }
    out
}

fn slot(node: u64, path: String, kind: Kind) -> Slot {
    Slot {
        node,
        path,
        kind,
        default: None,
    }
}

/// A VRM 1.0 collider shape (sphere, capsule, plane), in its node's space.
fn shape_slots(out: &mut Vec<Slot>, node: u64, shape: Option<&Value>, path: String) {
    for kind in ["sphere", "capsule", "plane"] {
        if shape.and_then(|s| s.get(kind)).is_none() {
            continue;
        }
        let at = |k| format!("{path}/{kind}/{k}");
        out.push(slot(node, at("offset"), Kind::Point(Axes::Gltf)));
        match kind {
            "capsule" => {
                out.push(slot(node, at("radius"), Kind::Length));
                out.push(slot(node, at("tail"), Kind::Point(Axes::Gltf)));
            }
            "plane" => out.push(slot(node, at("normal"), Kind::Direction(Axes::Gltf))),
            _ => out.push(slot(node, at("radius"), Kind::Length)),
        }
    }
}

fn vec3_of(v: &Value, axes: Axes) -> Option<Vec3> {
    let v = match (v, axes) {
        (Value::Array(a), Axes::Gltf) if a.len() == 3 => Vec3::new(
            a[0].as_f64()? as f32,
            a[1].as_f64()? as f32,
            a[2].as_f64()? as f32,
        ),
        (Value::Object(o), Axes::Vrm0) => {
            let c = |k: &str| o.get(k).and_then(Value::as_f64).unwrap_or(0.0) as f32;
            Vec3::new(c("x"), c("y"), c("z"))
        }
        _ => return None,
    };
    Some(axes.flip(v)).filter(|v| v.is_finite())
}

fn json_of(v: Vec3, axes: Axes) -> Value {
    let v = axes.flip(v);
    let n = super::patch::num;
    match axes {
        Axes::Gltf => Value::Array(vec![n(v.x), n(v.y), n(v.z)]),
        Axes::Vrm0 => serde_json::json!({ "x": n(v.x), "y": n(v.y), "z": n(v.z) }),
    }
}

/// The slot's value as a frame in its node's space, or `None` when it cannot be read.
fn read(ext: &Value, s: &Slot) -> Option<Transform> {
    let v = ext.pointer(&s.path);
    Some(match s.kind {
        Kind::Point(axes) => Transform::from_translation(match v {
            Some(v) => vec3_of(v, axes)?,
            None => s.default?,
        }),
        Kind::Length => {
            let r = v?.as_f64()? as f32;
            if !(r.is_finite() && r >= 0.0) {
                return None;
            }
            Transform {
                scale: Vec3::splat(r),
                ..Transform::IDENTITY
            }
        }
        Kind::Direction(axes) => {
            let d = vec3_of(v?, axes)?.try_normalize()?;
            Transform {
                rotation: Quat::from_rotation_arc(Vec3::Y, d),
                ..Transform::IDENTITY
            }
        }
    })
}

/// The model's bone frames of the VRM data in `ext` (the document's `extensions`), for the
/// nodes that are bones (`bone_of`: by node index).
pub(crate) fn points(
    ext: Option<&Value>,
    bone_of: &HashMap<usize, (SkeletonId, BoneId)>,
) -> Vec<BonePoint> {
    let Some(ext) = ext else {
        return Vec::new();
    };
    slots(ext)
        .iter()
        .filter_map(|s| {
            let &(skeleton, bone) = bone_of.get(&usize::try_from(s.node).ok()?)?;
            Some(BonePoint {
                skeleton,
                bone,
                transform: read(ext, s)?,
            })
        })
        .collect()
}

/// The value of a frame as its slot stores it, in glTF axes (a length as x).
fn value(kind: Kind, t: &Transform) -> Vec3 {
    match kind {
        Kind::Point(_) => t.translation,
        Kind::Length => Vec3::splat(t.scale.x),
        Kind::Direction(_) => t.rotation * Vec3::Y,
    }
}

/// Puts the VRM data of `json` where the model moved it: each bone frame of `model` that differs
/// from `original`'s (the model as read) is written back to its slot; gravity directions turn
/// with the scene (`turn`). Leaves everything else alone, and a file without VRM data untouched.
pub(crate) fn apply(
    json: &mut Value,
    original: &Model,
    model: &Model,
    turn: Quat,
) -> Result<(), ErrorKind> {
    let Some(ext) = json.get_mut("extensions") else {
        return Ok(());
    };
    if !["VRM", "VRMC_vrm", "VRMC_springBone"]
        .iter()
        .any(|k| ext.get(*k).is_some())
    {
        return Ok(());
    }
    let bones: HashMap<usize, (SkeletonId, BoneId)> = original
        .skeletons
        .iter()
        .enumerate()
        .flat_map(|(k, s)| {
            s.bones.iter().enumerate().filter_map(move |(i, b)| {
                Some((b.node? as usize, (SkeletonId(k as u32), BoneId(i as u32))))
            })
        })
        .collect();
    let found: Vec<Slot> = slots(ext)
        .into_iter()
        .filter(|s| {
            usize::try_from(s.node).is_ok_and(|n| bones.contains_key(&n)) && read(ext, s).is_some()
        })
        .collect();
    if found.len() == original.points.len() && found.len() == model.points.len() {
        for ((s, old), new) in found.iter().zip(&original.points).zip(&model.points) {
            let (was, now) = (value(s.kind, &old.transform), value(s.kind, &new.transform));
            if now.abs_diff_eq(was, 1e-7 * was.length().max(1e-3)) || !now.is_finite() {
                continue;
            }
            let Some((up, key)) = s.path.rsplit_once('/') else {
                continue;
            };
            let Some(holder) = ext.pointer_mut(up).and_then(Value::as_object_mut) else {
                continue;
            };
            let written = match s.kind {
                Kind::Point(axes) | Kind::Direction(axes) => json_of(now, axes),
                Kind::Length => super::patch::num(now.x),
            };
            holder.insert(key.to_string(), written);
        }
    }
    if !turn.abs_diff_eq(Quat::IDENTITY, 1e-7) {
        turn_gravity(ext, Mat3::from_quat(turn));
    }
    Ok(())
}

/// Gravity directions are the scene's: they turn with it (VRM 0.x's `{x, y, z}` as three-vrm
/// reads them, as they are).
fn turn_gravity(ext: &mut Value, turn: Mat3) {
    let turned = |v: &mut Value| {
        let shape = if v.is_array() { Axes::Gltf } else { Axes::Vrm0 };
        let read = match &*v {
            Value::Object(o) => {
                let c = |k: &str| o.get(k).and_then(Value::as_f64).unwrap_or(0.0) as f32;
                Some(Vec3::new(c("x"), c("y"), c("z")))
            }
            v => vec3_of(v, Axes::Gltf),
        };
        if let Some(g) = read {
            // The object form is taken as it is (no z flip): write it back the same way.
            let g = turn * g;
            *v = match shape {
                Axes::Gltf => json_of(g, Axes::Gltf),
                Axes::Vrm0 => json_of(Axes::Vrm0.flip(g), Axes::Vrm0),
            };
        }
    };
    if let Some(groups) = ext
        .pointer_mut("/VRM/secondaryAnimation/boneGroups")
        .and_then(Value::as_array_mut)
    {
        for g in groups.iter_mut().filter_map(|g| g.get_mut("gravityDir")) {
            turned(g);
        }
    }
    if let Some(springs) = ext
        .pointer_mut("/VRMC_springBone/springs")
        .and_then(Value::as_array_mut)
    {
        for joint in springs
            .iter_mut()
            .filter_map(|s| s.get_mut("joints").and_then(Value::as_array_mut))
            .flatten()
            .filter_map(|j| j.get_mut("gravityDir"))
        {
            turned(joint);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Bone, Skeleton};
    use serde_json::json;

    fn document() -> Value {
        json!({
            "extensions": {
                "VRMC_vrm": {"humanoid": {"humanBones": {"head": {"node": 1}}}, "lookAt": {}},
                "VRMC_springBone": {
                    "colliders": [{"node": 1, "shape": {"capsule": {"offset": [0.1, 0.2, 0.3], "radius": 0.05, "tail": [0.0, 0.1, 0.0]}}},
                                  {"node": 7, "shape": {"sphere": {"offset": [0.5, 0.5, 0.5], "radius": 0.5}}}],
                    "springs": [{"joints": [{"node": 1, "gravityDir": [1.0, 0.0, 0.0]}]}]
                },
                "VRM": {
                    "humanoid": {"humanBones": [{"bone": "head", "node": 1}]},
                    "firstPerson": {"firstPersonBone": 1, "firstPersonBoneOffset": {"x": 0, "y": 0.1, "z": 0.2}},
                    "secondaryAnimation": {"colliderGroups": [{"node": 1, "colliders": [{"offset": {"x": 0.1, "y": 0, "z": 0.3}, "radius": 0.1}]}]}
                }
            }
        })
    }

    /// Nodes 0 and 1 are bones 0 and 1 of skeleton 0; node 7 is no bone.
    fn model(points: Vec<BonePoint>) -> Model {
        let bone = |node: u32| Bone {
            name: format!("b{node}"),
            parent: None,
            rest: Transform::IDENTITY,
            is_joint: true,
            weighted: None,
            node: Some(node),
        };
        Model {
            skeletons: vec![Skeleton {
                name: "s".into(),
                bones: vec![bone(0), bone(1)],
                skins: Vec::new(),
                attachments: Vec::new(),
                base: glam::Mat4::IDENTITY,
                base_nodes: Vec::new(),
                declared: None,
            }],
            points,
            ..Model::default()
        }
    }

    fn read_points(json: &Value) -> Vec<BonePoint> {
        let bone_of = HashMap::from([
            (0, (SkeletonId(0), BoneId(0))),
            (1, (SkeletonId(0), BoneId(1))),
        ]);
        points(json.get("extensions"), &bone_of)
    }

    #[test]
    fn bone_frames_are_read_in_gltf_axes_and_written_back_where_they_moved() {
        let mut json = document();
        let read = read_points(&json);
        // VRM 0.x first person, collider offset and radius; the look-at origin (three-vrm's
        // default); the capsule's offset, radius and tail; the sphere on node 7 is no bone's
        assert_eq!(read.len(), 7);
        assert_eq!(read[0].transform.translation, Vec3::new(0.0, 0.1, -0.2));
        assert_eq!(read[3].transform.translation, Vec3::new(0.0, 0.06, 0.0));
        // every point turned half about +Y and lengths doubled, as a bone's new frame would
        let turn = Quat::from_xyzw(0.0, 1.0, 0.0, 0.0);
        let mut moved: Vec<BonePoint> = read
            .iter()
            .map(|p| BonePoint {
                transform: Transform {
                    translation: turn * p.transform.translation,
                    scale: p.transform.scale * 2.0,
                    ..p.transform
                },
                ..*p
            })
            .collect();
        // the look-at origin lies on the turn's axis: moved off it, the missing value is written
        moved[3].transform.translation.z = 0.01;
        apply(&mut json, &model(read.clone()), &model(moved), turn).unwrap();
        let e = &json["extensions"];
        assert_eq!(
            e["VRMC_vrm"]["lookAt"]["offsetFromHeadBone"],
            json!([0.0, 0.06, 0.01])
        );
        assert_eq!(
            e["VRM"]["firstPerson"]["firstPersonBoneOffset"],
            json!({"x": 0.0, "y": 0.1, "z": -0.2}),
            "stored (0, 0.1, 0.2) is (0, 0.1, -0.2) in glTF, turned (0, 0.1, 0.2), stored z negated"
        );
        let capsule = &e["VRMC_springBone"]["colliders"][0]["shape"]["capsule"];
        assert_eq!(capsule["offset"], json!([-0.1, 0.2, -0.3]));
        assert_eq!(capsule["radius"], json!(0.1));
        assert_eq!(
            capsule["tail"],
            json!([0.0, 0.1, 0.0]),
            "on the axis: kept as written"
        );
        let sphere = &e["VRMC_springBone"]["colliders"][1]["shape"]["sphere"];
        assert_eq!(
            sphere["offset"],
            json!([0.5, 0.5, 0.5]),
            "no bone's: untouched"
        );
        let c = &e["VRM"]["secondaryAnimation"]["colliderGroups"][0]["colliders"][0];
        assert_eq!(c["offset"], json!({"x": -0.1, "y": 0.0, "z": -0.3}));
        assert_eq!(c["radius"], json!(0.2));
        // gravity is the scene's: it turned with it
        let g = &e["VRMC_springBone"]["springs"][0]["joints"][0]["gravityDir"];
        assert_eq!(g, &json!([-1.0, 0.0, 0.0]));
    }

    #[test]
    fn nothing_changes_when_no_frame_moved() {
        let mut json = document();
        let before = json.clone();
        let read = read_points(&json);
        apply(
            &mut json,
            &model(read.clone()),
            &model(read),
            Quat::IDENTITY,
        )
        .unwrap();
        assert_eq!(json, before);
    }
}
