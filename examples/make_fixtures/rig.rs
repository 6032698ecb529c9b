//! Canonical rigs: joint positions in metres (T-pose, facing +Z, left = +X, Y up), and the
//! styles that turn them into real-world shapes (names, bone frames, units, up axis, facing).

use glam::{Mat3, Quat, Vec3};

/// One canonical joint: id, parent id, world position, and whether it deforms the mesh.
#[derive(Clone)]
pub struct Joint {
    pub id: String,
    pub parent: Option<String>,
    pub pos: Vec3,
    pub weighted: bool,
    pub in_skin: bool,
}

/// Which optional parts a humanoid has.
#[derive(Clone, Copy, Default)]
pub struct Parts {
    pub root: bool,
    pub long_spine: bool,
    /// Spine bones from the hips to the one the neck hangs from: 2 or 5 (0: 3, or 4 with
    /// `long_spine`).
    pub spine_bones: usize,
    pub twist: bool,
    pub ik: bool,
    pub ends: bool,
}

fn j(out: &mut Vec<Joint>, id: &str, parent: Option<&str>, pos: [f32; 3]) {
    out.push(Joint {
        id: id.into(),
        parent: parent.map(Into::into),
        pos: Vec3::from(pos),
        weighted: true,
        in_skin: true,
    });
}

/// A humanoid in the canonical frame. Ids are lowercase with `.L`/`.R` sides.
pub fn humanoid(parts: Parts) -> Vec<Joint> {
    let mut v = Vec::new();
    let top = if parts.root {
        j(&mut v, "root", None, [0.0, 0.0, 0.0]);
        v.last_mut().unwrap().weighted = false;
        Some("root")
    } else {
        None
    };
    j(&mut v, "hips", top, [0.0, 1.0, 0.0]);
    j(&mut v, "spine", Some("hips"), [0.0, 1.1, 0.01]);
    // The two- and five-bone spines stand straight, as the profile's does: the same motion on
    // their authored rests is then the same motion on their T-poses (ground truth).
    match parts.spine_bones {
        2 => {
            v.last_mut().expect("spine").pos.z = 0.0;
            j(&mut v, "upper_chest", Some("spine"), [0.0, 1.27, 0.0]);
        }
        5 => {
            v.last_mut().expect("spine").pos.z = 0.0;
            j(&mut v, "chest", Some("spine"), [0.0, 1.17, 0.0]);
            j(&mut v, "chest2", Some("chest"), [0.0, 1.24, 0.0]);
            j(&mut v, "chest3", Some("chest2"), [0.0, 1.32, 0.0]);
            j(&mut v, "upper_chest", Some("chest3"), [0.0, 1.4, 0.0]);
        }
        _ => {
            j(&mut v, "chest", Some("spine"), [0.0, 1.22, 0.0]);
            let upper_parent = if parts.long_spine {
                j(&mut v, "chest2", Some("chest"), [0.0, 1.32, -0.01]);
                "chest2"
            } else {
                "chest"
            };
            j(
                &mut v,
                "upper_chest",
                Some(upper_parent),
                [0.0, 1.4, -0.015],
            );
        }
    }
    j(&mut v, "neck", Some("upper_chest"), [0.0, 1.52, 0.0]);
    let head_parent = if parts.long_spine {
        j(&mut v, "neck2", Some("neck"), [0.0, 1.57, 0.01]);
        "neck2"
    } else {
        "neck"
    };
    j(&mut v, "head", Some(head_parent), [0.0, 1.62, 0.01]);
    if parts.ends {
        j(&mut v, "head_end", Some("head"), [0.0, 1.82, 0.01]);
    }
    for (side, x) in [("L", 1.0f32), ("R", -1.0)] {
        let s = |id: &str| format!("{id}.{side}");
        let p = |x0: f32, y: f32, z: f32| [x * x0, y, z];
        j(
            &mut v,
            &s("shoulder"),
            Some("upper_chest"),
            p(0.03, 1.46, 0.0),
        );
        j(
            &mut v,
            &s("upper_arm"),
            Some(&s("shoulder")),
            p(0.16, 1.46, 0.0),
        );
        j(
            &mut v,
            &s("lower_arm"),
            Some(&s("upper_arm")),
            p(0.44, 1.46, -0.01),
        );
        j(
            &mut v,
            &s("hand"),
            Some(&s("lower_arm")),
            p(0.70, 1.46, 0.0),
        );
        if parts.twist {
            j(
                &mut v,
                &s("upper_arm_twist"),
                Some(&s("upper_arm")),
                p(0.30, 1.46, -0.005),
            );
            j(
                &mut v,
                &s("lower_arm_twist"),
                Some(&s("lower_arm")),
                p(0.57, 1.46, -0.005),
            );
        }
        let fingers = [
            ("thumb", 0.03f32, [0.02, 0.035, 0.03]),
            ("index", 0.025, [0.09, 0.045, 0.03]),
            ("middle", 0.008, [0.095, 0.05, 0.032]),
            ("ring", -0.01, [0.09, 0.045, 0.03]),
            ("little", -0.028, [0.08, 0.035, 0.025]),
        ];
        for (f, z, seg) in fingers {
            let mut parent = s("hand");
            let (mut px, mut py, mut pz) = (0.70f32, 1.455f32, z);
            let thumb = f == "thumb";
            let n = if parts.ends { 4 } else { 3 };
            for k in 0..n {
                let len = if k == 0 {
                    seg[0]
                } else {
                    seg[(k).min(2)] * if k == 3 { 0.7 } else { 1.0 }
                };
                if thumb {
                    px += len * 0.7;
                    pz += len * 0.7;
                    py -= 0.005;
                } else {
                    px += len;
                    py -= 0.004 * k as f32;
                }
                let id = if k == 3 {
                    s(&format!("{f}_end"))
                } else {
                    s(&format!("{f}{}", k + 1))
                };
                j(&mut v, &id, Some(&parent), p(px, py, pz));
                parent = id;
            }
        }
        j(&mut v, &s("upper_leg"), Some("hips"), p(0.09, 0.95, 0.0));
        j(
            &mut v,
            &s("lower_leg"),
            Some(&s("upper_leg")),
            p(0.09, 0.52, 0.01),
        );
        j(
            &mut v,
            &s("foot"),
            Some(&s("lower_leg")),
            p(0.09, 0.08, -0.01),
        );
        j(&mut v, &s("toes"), Some(&s("foot")), p(0.09, 0.02, 0.12));
        if parts.ends {
            j(&mut v, &s("toes_end"), Some(&s("toes")), p(0.09, 0.02, 0.2));
        }
        if parts.twist {
            j(
                &mut v,
                &s("upper_leg_twist"),
                Some(&s("upper_leg")),
                p(0.09, 0.74, 0.005),
            );
            j(
                &mut v,
                &s("lower_leg_twist"),
                Some(&s("lower_leg")),
                p(0.09, 0.3, 0.0),
            );
        }
    }
    if parts.ik {
        j(&mut v, "ik_foot_root", Some("root"), [0.0, 0.0, 0.0]);
        j(
            &mut v,
            "ik_foot.L",
            Some("ik_foot_root"),
            [0.09, 0.08, -0.01],
        );
        j(
            &mut v,
            "ik_foot.R",
            Some("ik_foot_root"),
            [-0.09, 0.08, -0.01],
        );
        j(&mut v, "ik_hand_root", Some("root"), [0.0, 0.0, 0.0]);
        j(
            &mut v,
            "ik_hand_gun",
            Some("ik_hand_root"),
            [-0.70, 1.46, 0.0],
        );
        j(&mut v, "ik_hand.L", Some("ik_hand_gun"), [0.70, 1.46, 0.0]);
        j(&mut v, "ik_hand.R", Some("ik_hand_gun"), [-0.70, 1.46, 0.0]);
    }
    for joint in v.iter_mut() {
        if joint
            .id
            .split('.')
            .next()
            .is_some_and(|base| base.ends_with("_end"))
        {
            joint.weighted = false;
            joint.in_skin = false;
        }
        if joint.id.starts_with("ik_") {
            joint.weighted = false;
        }
    }
    v
}

/// Marks unweighted joints: IK or control bones (`ik_`) and the root (Quaternius's `Body`
/// carries weights); end nodes (`_end`) are no joints at all.
fn mark_unweighted(v: &mut [Joint]) {
    for joint in v.iter_mut() {
        if joint.id.starts_with("ik_") || joint.id == "root" {
            joint.weighted = false;
        }
        if joint
            .id
            .split('.')
            .next()
            .is_some_and(|b| b.ends_with("_end"))
        {
            joint.weighted = false;
            joint.in_skin = false;
        }
    }
}

/// Quaternius's IK layout, joint for joint as in `quaternius_Male_Casual.fbx` (Quaternius,
/// CC0; `../shared/assets/fbx`; the same layout as three.js's RobotExpressive.glb, also by
/// Quaternius): `Bone` (the root) holds each `Foot.L` and `PoleTarget.L`, and `Body`, which
/// holds `Hips` and both `UpperLeg.L` → `LowerLeg.L` (the shin ends at the foot's joint, but
/// the foot does not hang from it). Positions are the FBX's bone heads (Blender Z-up, forward
/// −Y) turned Y-up facing +Z and scaled by 0.34 to metres; the right side mirrors the left's
/// places (the FBX's right arm is up to 0.08 of its units shorter).
/// The leaf `_end` bones are end nodes, as in Quaternius's glTF exports (RobotExpressive's
/// `LowerLeg.L_end` marks where the shin ends, at the foot's joint).
pub fn quaternius_ik() -> Vec<Joint> {
    let mut v = Vec::new();
    // (x, y, z) in the FBX → (x, z, −y) · 0.34.
    let at = |p: [f32; 3]| [p[0] * 0.34, p[2] * 0.34, -p[1] * 0.34];
    j(&mut v, "root", None, [0.0, 0.0, 0.0]);
    j(&mut v, "body", Some("root"), at([0.0, -0.212, 2.121]));
    j(&mut v, "hips", Some("body"), at([0.0, -0.099, 1.959]));
    j(&mut v, "spine", Some("hips"), at([0.0, -0.022, 2.344]));
    j(&mut v, "chest", Some("spine"), at([0.0, -0.018, 3.115]));
    j(&mut v, "neck", Some("chest"), at([0.0, 0.135, 4.055]));
    j(&mut v, "head", Some("neck"), at([0.0, 0.135, 4.25]));
    j(&mut v, "head_end", Some("head"), at([0.0, 0.135, 4.766]));
    for (side, x) in [("L", 1.0f32), ("R", -1.0)] {
        let s = |id: &str| format!("{id}.{side}");
        let p = |q: [f32; 3]| at([q[0] * x, q[1], q[2]]);
        j(
            &mut v,
            &s("shoulder"),
            Some("chest"),
            p([0.246, 0.029, 3.597]),
        );
        j(
            &mut v,
            &s("upper_arm"),
            Some(&s("shoulder")),
            p([0.467, 0.029, 3.823]),
        );
        j(
            &mut v,
            &s("lower_arm"),
            Some(&s("upper_arm")),
            p([1.205, 0.085, 3.763]),
        );
        // Palm.L → MiddleHand.L → Fingers.L, and Thumb1.L → Thumb2.L.
        j(
            &mut v,
            &s("hand"),
            Some(&s("lower_arm")),
            p([2.026, 0.085, 3.806]),
        );
        j(
            &mut v,
            &s("middle1"),
            Some(&s("hand")),
            p([2.226, 0.085, 3.779]),
        );
        j(
            &mut v,
            &s("middle2"),
            Some(&s("middle1")),
            p([2.435, 0.085, 3.766]),
        );
        j(
            &mut v,
            &s("middle_end"),
            Some(&s("middle2")),
            p([2.594, 0.085, 3.731]),
        );
        // As in the FBX, the right thumb hangs from `MiddleHand.R`, the left from `Palm.L`.
        let thumb_on = if side == "L" { "hand" } else { "middle1" };
        j(
            &mut v,
            &s("thumb1"),
            Some(&s(thumb_on)),
            p([2.103, -0.044, 3.788]),
        );
        j(
            &mut v,
            &s("thumb2"),
            Some(&s("thumb1")),
            p([2.209, -0.159, 3.791]),
        );
        j(
            &mut v,
            &s("thumb_end"),
            Some(&s("thumb2")),
            p([2.387, -0.201, 3.765]),
        );
        j(
            &mut v,
            &s("upper_leg"),
            Some("body"),
            p([0.302, -0.03, 2.155]),
        );
        j(
            &mut v,
            &s("lower_leg"),
            Some(&s("upper_leg")),
            p([0.302, -0.153, 1.336]),
        );
        j(
            &mut v,
            &s("lower_leg_end"),
            Some(&s("lower_leg")),
            p([0.302, 0.039, 0.054]),
        );
        j(&mut v, &s("foot"), Some("root"), p([0.305, 0.039, 0.054]));
        j(
            &mut v,
            &s("foot_end"),
            Some(&s("foot")),
            p([0.305, -0.287, 0.044]),
        );
        j(
            &mut v,
            &s("ik_pole"),
            Some("root"),
            p([0.297, -1.804, 1.095]),
        );
        j(
            &mut v,
            &s("ik_pole_end"),
            Some(&s("ik_pole")),
            p([0.297, -1.804, 1.404]),
        );
    }
    mark_unweighted(&mut v);
    v
}

/// KayKit's character rig, joint for joint as in `Knight.glb` of KayKit's Adventurers pack (Kay
/// Lousberg, CC0; mirrored in github.com/Floindil/KayKitAdventure, assets/adventurers): the
/// deform bones `root` → `hips` → `spine` → `chest` → `upperarm.l` → `lowerarm.l` → `wrist.l`
/// → `hand.l` → `handslot.l` (no neck, no shoulders, no fingers; the knees bent 12°), and the
/// controls on `root`: `kneeIK.l`, `control-toe-roll.l` → `control-heel-roll.l` →
/// (`control-foot-roll.l` → `heelIK.l`, `IK-foot.l`) and `IK-toe.l`, `elbowIK.l`, `handIK.l`.
/// Positions are the glTF's world rest joints (metres, Y-up, facing +Z).
pub fn kaykit() -> Vec<Joint> {
    let mut v = Vec::new();
    j(&mut v, "root", None, [0.0, 0.0, 0.0]);
    j(&mut v, "hips", Some("root"), [0.0, 0.406, 0.0]);
    j(&mut v, "spine", Some("hips"), [0.0, 0.598, 0.0]);
    j(&mut v, "chest", Some("spine"), [0.0, 0.973, 0.0]);
    j(&mut v, "head", Some("chest"), [0.0, 1.241, 0.0]);
    for (side, x) in [("L", 1.0f32), ("R", -1.0)] {
        let s = |id: &str| format!("{id}.{side}");
        let p = |q: [f32; 3]| [q[0] * x, q[1], q[2]];
        j(
            &mut v,
            &s("upper_arm"),
            Some("chest"),
            p([0.212, 1.107, 0.0]),
        );
        j(
            &mut v,
            &s("lower_arm"),
            Some(&s("upper_arm")),
            p([0.454, 1.107, -0.014]),
        );
        j(
            &mut v,
            &s("wrist"),
            Some(&s("lower_arm")),
            p([0.713, 1.107, 0.0]),
        );
        j(
            &mut v,
            &s("hand"),
            Some(&s("wrist")),
            p([0.787, 1.107, 0.0]),
        );
        j(
            &mut v,
            &s("handslot"),
            Some(&s("hand")),
            p([0.883, 1.049, 0.0]),
        );
        j(
            &mut v,
            &s("upper_leg"),
            Some("hips"),
            p([0.171, 0.519, 0.0]),
        );
        j(
            &mut v,
            &s("lower_leg"),
            Some(&s("upper_leg")),
            p([0.171, 0.292, 0.008]),
        );
        j(
            &mut v,
            &s("foot"),
            Some(&s("lower_leg")),
            p([0.171, 0.145, -0.019]),
        );
        j(
            &mut v,
            &s("toes"),
            Some(&s("foot")),
            p([0.171, 0.026, 0.096]),
        );
    }
    for (side, x) in [("L", 1.0f32), ("R", -1.0)] {
        let s = |id: &str| format!("{id}.{side}");
        let p = |q: [f32; 3]| [q[0] * x, q[1], q[2]];
        j(
            &mut v,
            &s("ik_knee"),
            Some("root"),
            p([0.171, 0.292, 0.576]),
        );
        j(
            &mut v,
            &s("ik_toe_roll"),
            Some("root"),
            p([0.171, 0.026, 0.246]),
        );
        j(
            &mut v,
            &s("ik_heel_roll"),
            Some(&s("ik_toe_roll")),
            p([0.171, 0.026, -0.117]),
        );
        j(
            &mut v,
            &s("ik_foot_roll"),
            Some(&s("ik_heel_roll")),
            p([0.171, 0.026, 0.096]),
        );
        j(
            &mut v,
            &s("ik_heel"),
            Some(&s("ik_foot_roll")),
            p([0.171, 0.145, -0.019]),
        );
        j(
            &mut v,
            &s("ik_foot"),
            Some(&s("ik_foot_roll")),
            p([0.171, 0.145, -0.019]),
        );
        j(
            &mut v,
            &s("ik_toe"),
            Some(&s("ik_heel_roll")),
            p([0.171, 0.026, -0.117]),
        );
    }
    for (side, x) in [("L", 1.0f32), ("R", -1.0)] {
        let s = |id: &str| format!("{id}.{side}");
        j(
            &mut v,
            &s("ik_elbow"),
            Some("root"),
            [0.454 * x, 1.107, -0.589],
        );
        j(&mut v, &s("ik_hand"), Some("root"), [0.713 * x, 1.107, 0.0]);
    }
    mark_unweighted(&mut v);
    // No vertex uses the weapon sockets `handslot.l/r`.
    for joint in v.iter_mut().filter(|j| j.id.starts_with("handslot")) {
        joint.weighted = false;
    }
    v
}

/// Spreads the legs: every joint of a leg (from the upper leg down) turned `deg` degrees
/// outward about its side's upper-leg joint, as characters that stand with their feet apart.
pub fn spread_legs(joints: &mut [Joint], deg: f32) {
    for side in ["L", "R"] {
        let pivot_id = format!("upper_leg.{side}");
        let Some(pivot) = joints.iter().find(|j| j.id == pivot_id).map(|j| j.pos) else {
            continue;
        };
        let angle = if side == "L" { deg } else { -deg };
        let rot = Quat::from_rotation_z(angle.to_radians());
        for jt in joints.iter_mut() {
            let (base, s) = jt.id.split_once('.').unwrap_or((&jt.id, ""));
            let leg = [
                "upper_leg",
                "lower_leg",
                "lower_leg_end",
                "foot",
                "foot_end",
                "toes",
                "toes_end",
            ];
            if s == side && leg.contains(&base) {
                jt.pos = pivot + rot * (jt.pos - pivot);
            }
        }
    }
}

/// A four-legged animal along +Z: a humanoid mapper must refuse it.
pub fn quadruped() -> Vec<Joint> {
    let mut v = Vec::new();
    j(&mut v, "pelvis", None, [0.0, 0.6, -0.4]);
    j(&mut v, "spine1", Some("pelvis"), [0.0, 0.62, -0.15]);
    j(&mut v, "spine2", Some("spine1"), [0.0, 0.63, 0.1]);
    j(&mut v, "chest", Some("spine2"), [0.0, 0.64, 0.3]);
    j(&mut v, "neck", Some("chest"), [0.0, 0.75, 0.45]);
    j(&mut v, "head", Some("neck"), [0.0, 0.85, 0.55]);
    j(&mut v, "tail1", Some("pelvis"), [0.0, 0.6, -0.5]);
    j(&mut v, "tail2", Some("tail1"), [0.0, 0.55, -0.7]);
    for (side, x) in [("L", 0.12f32), ("R", -0.12)] {
        let s = |id: &str| format!("{id}.{side}");
        j(&mut v, &s("thigh"), Some("pelvis"), [x, 0.55, -0.4]);
        j(&mut v, &s("shin"), Some(&s("thigh")), [x, 0.3, -0.45]);
        j(&mut v, &s("hind_foot"), Some(&s("shin")), [x, 0.05, -0.4]);
        j(&mut v, &s("upper_arm"), Some("chest"), [x, 0.55, 0.3]);
        j(&mut v, &s("forearm"), Some(&s("upper_arm")), [x, 0.3, 0.32]);
        j(
            &mut v,
            &s("front_foot"),
            Some(&s("forearm")),
            [x, 0.05, 0.3],
        );
    }
    v
}

/// Which joints a rig has and where they hang.
#[derive(Clone, Copy, PartialEq)]
pub enum Layout {
    /// [`humanoid`] with the style's parts.
    Humanoid,
    /// [`quadruped`].
    Quadruped,
    /// [`quaternius_ik`].
    QuaterniusIk,
    /// [`kaykit`].
    KayKit,
}

/// How a bone's rest frame relates to the bone.
#[derive(Clone, Copy, PartialEq)]
pub enum Frames {
    /// Every rest rotation is identity (frames follow the armature).
    Identity,
    /// +Y along the bone (Blender, Mixamo, Godot), roll from a reference direction.
    YAlong,
    /// +X along the bone (Unreal, 3ds Max).
    XAlong,
}

/// Everything that shapes a canonical rig into a file.
pub struct Style {
    pub name: &'static str,
    pub parts: Parts,
    pub layout: Layout,
    pub names: fn(&str) -> String,
    pub frames: Frames,
    /// Extra local rotation of the hips about X, degrees (Blender's −90°).
    pub hips_x_deg: f32,
    /// Give every bone a small roll of its own about its length, as hand-made rigs have.
    pub roll_jitter: bool,
    pub a_pose: bool,
    pub centimetres: bool,
    pub z_up: bool,
    pub faces_minus_z: bool,
    pub vrm0: bool,
    /// Legs turned this many degrees outward about the upper-leg joints ([`spread_legs`]).
    pub leg_spread_deg: f32,
    /// Legs (from the upper-leg joints down) this many times as long; the body above stands
    /// higher by the difference.
    pub leg_scale: f32,
    /// Add the clips retargeting is measured on: `bend` (the spine bends forward along its
    /// length, each spine bone's world turn proportional to its joint's arc length along the
    /// spine, the same field whatever the bone count), `sway` (the hips sway while the feet
    /// stay planted: legs bent by IK) and `planted_walk` (a walk whose stance feet stand still:
    /// ground-truth contacts, see `planted.rs`).
    pub retarget_clips: bool,
    /// Key the rest translation and rotation of every bone the motion leaves alone, in every
    /// clip, as Mixamo and many FBX exports do.
    pub key_every_bone: bool,
}

/// A basis with `axis` along `dir` and the next axis as close as possible to `reference`.
pub fn frame(frames: Frames, dir: Vec3, reference: Vec3, alternative: Vec3) -> Quat {
    let d = dir.normalize();
    let r = if d.dot(reference).abs() > 0.9 {
        alternative
    } else {
        reference
    };
    let ortho = (r - d * d.dot(r)).normalize();
    let m = match frames {
        Frames::Identity => Mat3::IDENTITY,
        Frames::YAlong => Mat3::from_cols(d.cross(ortho), d, ortho),
        Frames::XAlong => Mat3::from_cols(d, ortho, d.cross(ortho)),
    };
    Quat::from_mat3(&m).normalize()
}

/// The A-pose: arms turned 45° down about the upper-arm joint.
pub fn apply_a_pose(joints: &mut [Joint]) {
    for side in ["L", "R"] {
        let pivot_id = format!("upper_arm.{side}");
        let Some(pivot) = joints.iter().find(|j| j.id == pivot_id).map(|j| j.pos) else {
            continue;
        };
        let angle = if side == "L" { -45f32 } else { 45.0 };
        let rot = Quat::from_rotation_z(angle.to_radians());
        let below: Vec<bool> = joints
            .iter()
            .map(|j| descends(joints, &j.id, &pivot_id))
            .collect();
        for (jt, b) in joints.iter_mut().zip(below) {
            if b && !jt.id.starts_with("ik_") {
                jt.pos = pivot + rot * (jt.pos - pivot);
            }
        }
    }
}

fn descends(joints: &[Joint], id: &str, ancestor: &str) -> bool {
    let mut at = Some(id.to_string());
    while let Some(cur) = at {
        if cur == ancestor {
            return true;
        }
        at = joints
            .iter()
            .find(|j| j.id == cur)
            .and_then(|j| j.parent.clone());
    }
    false
}

/// Makes the legs `scale` times as long (every joint from the upper legs down, scaled about
/// its side's upper-leg joint, so the legs keep their shape), raising the body above them by the
/// difference so the feet stay on the floor.
pub fn scale_legs(joints: &mut [Joint], scale: f32) {
    let hip_joint = 0.95;
    let hips: Vec<(String, Vec3)> = joints
        .iter()
        .filter(|j| j.id.starts_with("upper_leg."))
        .map(|j| (j.id.trim_start_matches("upper_leg").to_string(), j.pos))
        .collect();
    for joint in joints.iter_mut() {
        let base = joint.id.split('.').next().unwrap_or("");
        let leg = [
            "upper_leg",
            "lower_leg",
            "foot",
            "toes",
            "toes_end",
            "upper_leg_twist",
            "lower_leg_twist",
        ]
        .contains(&base);
        if let (true, Some((_, h))) = (
            leg,
            hips.iter()
                .find(|(side, _)| joint.id.ends_with(side.as_str())),
        ) {
            let raised = Vec3::new(h.x, h.y * scale, h.z);
            joint.pos = raised + (joint.pos - *h) * scale;
        } else if !joint.id.starts_with("ik_") && joint.id != "root" {
            joint.pos.y += (scale - 1.0) * hip_joint;
        }
    }
}
