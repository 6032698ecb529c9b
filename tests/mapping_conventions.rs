//! Issues 3 and 14: every naming convention maps 100% correctly. The first rigs are built in
//! code from the canonical humanoid, renamed and reshaped to their convention; the expected map
//! follows from the canonical ids. The rigs in `tests/conventions/real/` carry each convention's
//! real bone names and real parent layout (each file names where they come from) and the
//! profile bone every bone must map to.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod conventions;

use conventions::rig::{apply_a_pose, Joint, Parts};
use conventions::{
    expected, finger, humanoid, insert, names, place_in_scene, pos, prune, real_rigs,
    real_skeleton, remove, reparent, skeleton, split, title, RealRig,
};
use glam::{Mat4, Vec3};
use skelnorm::mapping::{map_skeleton, MapOptions};
use skelnorm::model::Skeleton;
use skelnorm::profile::Profile;

struct Case {
    name: &'static str,
    parts: Parts,
    names: fn(&str) -> String,
    edit: fn(&mut Vec<Joint>),
    a_pose: bool,
    /// Turn the character to face -Z (VRM 0.x).
    faces_minus_z: bool,
    /// Centimetres under a 0.01 scale, Z up under a -90° X turn.
    cm_z_up: bool,
    /// Ids whose expected profile bone differs from the canonical one (None: unmapped).
    except: &'static [(&'static str, Option<&'static str>)],
}

const ALL: Parts = Parts {
    root: false,
    long_spine: false,
    twist: false,
    ik: false,
    ends: true,
    spine_bones: 0,
};

fn none(_: &mut Vec<Joint>) {}

fn side_word(side: &str) -> &'static str {
    if side == "L" {
        "Left"
    } else {
        "Right"
    }
}

fn mixamo_base(id: &str) -> String {
    match split(id) {
        ("root", _) => "Reference".into(),
        ("chest2", _) => "Spine2".into(),
        ("neck2", _) => "Neck1".into(),
        ("eye", side) => format!("{}Eye", side_word(side)),
        _ => names::human_ik(id),
    }
}

fn mixamo(id: &str) -> String {
    format!("mixamorig:{}", mixamo_base(id))
}

fn mixamo1(id: &str) -> String {
    format!("mixamorig1:{}", mixamo_base(id))
}

fn human_ik(id: &str) -> String {
    match id {
        "chest2" => "Spine2".into(),
        "upper_chest" => "Spine3".into(),
        _ => mixamo_base(id),
    }
}

fn add_eyes(j: &mut Vec<Joint>) {
    let head = pos(j, "head");
    for (s, x) in [("L", 0.03f32), ("R", -0.03)] {
        insert(
            j,
            &format!("eye.{s}"),
            Some("head"),
            &[],
            head + Vec3::new(x, 0.08, 0.08),
        );
    }
}

fn unreal(id: &str) -> String {
    match split(id) {
        ("chest2", _) => "spine_03".into(),
        ("neck2", _) => "neck_02".into(),
        (b, side) if b.ends_with("_meta") => format!(
            "{}_metacarpal_{}",
            b.trim_end_matches("_meta").replace("little", "pinky"),
            side.to_lowercase()
        ),
        _ => names::unreal(id),
    }
}

/// UE5: five spine bones, two neck bones, metacarpals for four fingers.
fn unreal5(id: &str) -> String {
    match id {
        "chest2" => "spine_03".into(),
        "chest3" => "spine_04".into(),
        "upper_chest" => "spine_05".into(),
        _ => unreal(id),
    }
}

fn ue5_edit(j: &mut Vec<Joint>) {
    let c2 = pos(j, "chest2");
    insert(
        j,
        "chest3",
        Some("chest2"),
        &["upper_chest"],
        c2 + Vec3::new(0.0, 0.04, 0.0),
    );
    ue5_meta(j);
}

fn vrm_id(id: &str) -> String {
    let (base, side) = split(id);
    let s = match side {
        "L" => "left",
        "R" => "right",
        _ => "",
    };
    let cap = |x: &str| {
        if s.is_empty() {
            x.to_string()
        } else {
            format!("{s}{}", title(x))
        }
    };
    match base {
        "hips" | "spine" | "chest" | "neck" | "head" => base.into(),
        "upper_chest" => "upperChest".into(),
        "shoulder" => cap("shoulder"),
        "upper_arm" => cap("upperArm"),
        "lower_arm" => cap("lowerArm"),
        "hand" => cap("hand"),
        "upper_leg" => cap("upperLeg"),
        "lower_leg" => cap("lowerLeg"),
        "foot" => cap("foot"),
        "toes" => cap("toes"),
        "head_end" => "headTop_end".into(),
        "toes_end" => cap("toes_end"),
        b => {
            let (f, n) = finger(b).expect("vrm finger");
            if n == 4 {
                return cap(&format!("{f}_end"));
            }
            let part = if f == "thumb" {
                ["Metacarpal", "Proximal", "Distal"][n - 1]
            } else {
                ["Proximal", "Intermediate", "Distal"][n - 1]
            };
            cap(&format!("{f}{part}"))
        }
    }
}

fn godot(id: &str) -> String {
    match split(id) {
        ("head_end", _) => "HeadTop".into(),
        (b, s) if b.ends_with("_end") => format!("{}_end{}", title(b.trim_end_matches("_end")), s),
        _ => names::godot(id),
    }
}

fn rigify(id: &str) -> String {
    let twist = |limb: &str, side: &str| format!("DEF-{limb}.{side}.001");
    match split(id) {
        ("upper_arm_twist", s) => twist("upper_arm", s),
        ("lower_arm_twist", s) => twist("forearm", s),
        ("upper_leg_twist", s) => twist("thigh", s),
        ("lower_leg_twist", s) => twist("shin", s),
        _ => names::rigify(id),
    }
}

/// Rigify's twist bones (`upper_arm.L.001`) sit in the chain between the limb's two bones.
fn rigify_edit(j: &mut Vec<Joint>) {
    for s in ["L", "R"] {
        for (twist, top, below) in [
            ("upper_arm_twist", "upper_arm", "lower_arm"),
            ("lower_arm_twist", "lower_arm", "hand"),
            ("upper_leg_twist", "upper_leg", "lower_leg"),
            ("lower_leg_twist", "lower_leg", "foot"),
        ] {
            let (t, a, b) = (
                format!("{twist}.{s}"),
                format!("{top}.{s}"),
                format!("{below}.{s}"),
            );
            let p = pos(j, &a).lerp(pos(j, &b), 0.5);
            insert(j, &t, Some(&a), &[&b], p);
        }
    }
}

/// MakeHuman's default skeleton: spine numbered from the top down, doubled limb bones.
fn makehuman(id: &str) -> String {
    let (base, side) = split(id);
    let s = if side.is_empty() {
        String::new()
    } else {
        format!(".{side}")
    };
    match base {
        "root" => "root".into(),
        "hips" => "spine05".into(),
        "spine" => "spine04".into(),
        "chest" => "spine03".into(),
        "chest2" => "spine02".into(),
        "upper_chest" => "spine01".into(),
        "neck" => "neck01".into(),
        "neck2" => "neck02".into(),
        "head" => "head".into(),
        "head_end" => "head_end".into(),
        "shoulder" => format!("clavicle{s}"),
        "upper_arm" => format!("upperarm01{s}"),
        "upper_arm_twist" => format!("upperarm02{s}"),
        "lower_arm" => format!("lowerarm01{s}"),
        "lower_arm_twist" => format!("lowerarm02{s}"),
        "hand" => format!("wrist{s}"),
        "upper_leg" => format!("upperleg01{s}"),
        "upper_leg_twist" => format!("upperleg02{s}"),
        "lower_leg" => format!("lowerleg01{s}"),
        "lower_leg_twist" => format!("lowerleg02{s}"),
        "foot" => format!("foot{s}"),
        "toes" => format!("toe1-1{s}"),
        "toes_end" => format!("toe1-1_end{s}"),
        b if b.ends_with("_meta") => {
            let k = ["index", "middle", "ring", "little"]
                .iter()
                .position(|f| b.starts_with(f))
                .unwrap_or(0);
            format!("metacarpal{}{s}", k + 1)
        }
        b => {
            let (f, n) = finger(b).expect("makehuman finger");
            let k = ["thumb", "index", "middle", "ring", "little"]
                .iter()
                .position(|x| *x == f)
                .unwrap_or(0)
                + 1;
            if n == 4 {
                format!("finger{k}-3_end{s}")
            } else {
                format!("finger{k}-{n}{s}")
            }
        }
    }
}

fn makehuman_edit(j: &mut Vec<Joint>) {
    rigify_edit(j);
    ue5_meta(j);
}

fn ue5_meta(j: &mut Vec<Joint>) {
    for s in ["L", "R"] {
        let hand = pos(j, &format!("hand.{s}"));
        for f in ["index", "middle", "ring", "little"] {
            let first = format!("{f}1.{s}");
            let p = hand.lerp(pos(j, &first), 0.3);
            insert(
                j,
                &format!("{f}_meta.{s}"),
                Some(&format!("hand.{s}")),
                &[&first],
                p,
            );
        }
    }
}

/// Character Creator 3/4 (`CC_Base_L_Upperarm`), hip above pelvis and waist, twist necks.
fn cc(id: &str) -> String {
    let (base, side) = split(id);
    let s = if side.is_empty() {
        String::new()
    } else {
        format!("{side}_")
    };
    let name = match base {
        "root" => "BoneRoot".into(),
        "hips" => "Hip".into(),
        "pelvis_split" => "Pelvis".into(),
        "spine" => "Waist".into(),
        "chest" => "Spine01".into(),
        "upper_chest" => "Spine02".into(),
        "neck" => "NeckTwist01".into(),
        "neck2" => "NeckTwist02".into(),
        "head" => "Head".into(),
        "head_end" => "Head_End".into(),
        "shoulder" => format!("{s}Clavicle"),
        "upper_arm" => format!("{s}Upperarm"),
        "upper_arm_twist" => format!("{s}UpperarmTwist01"),
        "lower_arm" => format!("{s}Forearm"),
        "lower_arm_twist" => format!("{s}ForearmTwist01"),
        "hand" => format!("{s}Hand"),
        "upper_leg" => format!("{s}Thigh"),
        "upper_leg_twist" => format!("{s}ThighTwist01"),
        "lower_leg" => format!("{s}Calf"),
        "lower_leg_twist" => format!("{s}CalfTwist01"),
        "foot" => format!("{s}Foot"),
        "toes" => format!("{s}ToeBase"),
        "toes_end" => format!("{s}ToeBase_End"),
        b => {
            let (f, n) = finger(b).expect("cc finger");
            let f = match f {
                "little" => "Pinky".to_string(),
                "middle" => "Mid".to_string(),
                f => title(f),
            };
            if n == 4 {
                format!("{s}{f}3_End")
            } else {
                format!("{s}{f}{n}")
            }
        }
    };
    format!("CC_Base_{name}")
}

/// Legs hang from a pelvis bone below the hips; the neck has two bones.
fn split_pelvis(j: &mut Vec<Joint>) {
    let hips = pos(j, "hips");
    insert(
        j,
        "pelvis_split",
        Some("hips"),
        &["upper_leg.L", "upper_leg.R"],
        hips - Vec3::new(0.0, 0.03, 0.0),
    );
    add_neck2(j);
}

fn add_neck2(j: &mut Vec<Joint>) {
    let p = pos(j, "neck").lerp(pos(j, "head"), 0.5);
    insert(j, "neck2", Some("neck"), &["head"], p);
}

/// Daz Genesis 8 (`lShldrBend`, `lForearmTwist`, carpals shared by two fingers).
fn daz(id: &str) -> String {
    let (base, side) = split(id);
    let s = side.to_lowercase();
    match base {
        "hips" => "hip".into(),
        "pelvis_split" => "pelvis".into(),
        "spine" => "abdomenLower".into(),
        "chest" => "abdomenUpper".into(),
        "chest2" => "chestLower".into(),
        "upper_chest" => "chestUpper".into(),
        "neck" => "neckLower".into(),
        "neck2" => "neckUpper".into(),
        "head" => "head".into(),
        "head_end" => "head_end".into(),
        "shoulder" => format!("{s}Collar"),
        "upper_arm" => format!("{s}ShldrBend"),
        "upper_arm_twist" => format!("{s}ShldrTwist"),
        "lower_arm" => format!("{s}ForearmBend"),
        "lower_arm_twist" => format!("{s}ForearmTwist"),
        "hand" => format!("{s}Hand"),
        "upper_leg" => format!("{s}ThighBend"),
        "upper_leg_twist" => format!("{s}ThighTwist"),
        "lower_leg" => format!("{s}Shin"),
        "foot" => format!("{s}Foot"),
        "metatarsals" => format!("{s}Metatarsals"),
        "toes" => format!("{s}Toe"),
        "toes_end" => format!("{s}Toe_end"),
        "carpal1" => format!("{s}Carpal1"),
        "carpal2" => format!("{s}Carpal2"),
        b => {
            let (f, n) = finger(b).expect("daz finger");
            let f = match f {
                "little" => "Pinky".to_string(),
                "middle" => "Mid".to_string(),
                f => title(f),
            };
            if n == 4 {
                format!("{s}{f}3_end")
            } else {
                format!("{s}{f}{n}")
            }
        }
    }
}

fn daz_edit(j: &mut Vec<Joint>) {
    split_pelvis(j);
    for s in ["L", "R"] {
        let id = |x: &str| format!("{x}.{s}");
        // Twists in the chain: ShldrBend → ShldrTwist → ForearmBend → ForearmTwist → Hand.
        for (twist, top, below) in [
            ("upper_arm_twist", "upper_arm", "lower_arm"),
            ("lower_arm_twist", "lower_arm", "hand"),
            ("upper_leg_twist", "upper_leg", "lower_leg"),
        ] {
            let p = pos(j, &id(top)).lerp(pos(j, &id(below)), 0.5);
            insert(j, &id(twist), Some(&id(top)), &[&id(below)], p);
        }
        let p = pos(j, &id("foot")).lerp(pos(j, &id("toes")), 0.5);
        insert(j, &id("metatarsals"), Some(&id("foot")), &[&id("toes")], p);
        let hand = pos(j, &id("hand"));
        let c1 = hand.lerp(pos(j, &id("index1")), 0.3);
        let c2 = hand.lerp(pos(j, &id("ring1")), 0.3);
        insert(
            j,
            &id("carpal1"),
            Some(&id("hand")),
            &[&id("index1"), &id("middle1")],
            c1,
        );
        insert(
            j,
            &id("carpal2"),
            Some(&id("hand")),
            &[&id("ring1"), &id("little1")],
            c2,
        );
    }
}

/// 3ds Max Biped: thighs hang from `Spine`, clavicles from `Neck`, nubs at the ends.
fn biped(id: &str) -> String {
    let (base, side) = split(id);
    let s = if side.is_empty() {
        String::new()
    } else {
        format!("{side} ")
    };
    let name = match base {
        "com" => return "Bip01".into(),
        "hips" => "Pelvis".into(),
        "spine" => "Spine".into(),
        "chest" => "Spine1".into(),
        "upper_chest" => "Spine2".into(),
        "neck" => "Neck".into(),
        "head" => "Head".into(),
        "head_end" => "HeadNub".into(),
        "shoulder" => format!("{s}Clavicle"),
        "upper_arm" => format!("{s}UpperArm"),
        "lower_arm" => format!("{s}Forearm"),
        "hand" => format!("{s}Hand"),
        "upper_leg" => format!("{s}Thigh"),
        "lower_leg" => format!("{s}Calf"),
        "foot" => format!("{s}Foot"),
        "toes" => format!("{s}Toe0"),
        "toes_end" => format!("{s}Toe0Nub"),
        b => {
            let (f, n) = finger(b).expect("biped finger");
            let k = ["thumb", "index", "middle", "ring", "little"]
                .iter()
                .position(|x| *x == f)
                .unwrap_or(0);
            match n {
                1 => format!("{s}Finger{k}"),
                4 => format!("{s}Finger{k}Nub"),
                n => format!("{s}Finger{k}{}", n - 1),
            }
        }
    };
    format!("Bip01 {name}")
}

fn biped_edit(j: &mut Vec<Joint>) {
    let hips = pos(j, "hips");
    insert(j, "com", None, &["hips"], hips + Vec3::new(0.0, 0.0, 0.01));
    for s in ["L", "R"] {
        reparent(j, &format!("upper_leg.{s}"), "spine");
        reparent(j, &format!("shoulder.{s}"), "neck");
    }
}

/// Second Life (`mHipLeft`, `mShoulderLeft` is the upper arm, no fingers).
fn second_life(id: &str) -> String {
    let (base, side) = split(id);
    let s = if side.is_empty() { "" } else { side_word(side) };
    match base {
        "hips" => "mPelvis".into(),
        "spine" => "mTorso".into(),
        "upper_chest" => "mChest".into(),
        "neck" => "mNeck".into(),
        "head" => "mHead".into(),
        "head_end" => "mSkull".into(),
        "shoulder" => format!("mCollar{s}"),
        "upper_arm" => format!("mShoulder{s}"),
        "lower_arm" => format!("mElbow{s}"),
        "hand" => format!("mWrist{s}"),
        "upper_leg" => format!("mHip{s}"),
        "lower_leg" => format!("mKnee{s}"),
        "foot" => format!("mAnkle{s}"),
        "toes" => format!("mFoot{s}"),
        "toes_end" => format!("mToe{s}"),
        other => panic!("second life has no {other}"),
    }
}

fn second_life_edit(j: &mut Vec<Joint>) {
    remove(j, "chest");
    for s in ["L", "R"] {
        for f in ["thumb", "index", "middle", "ring", "little"] {
            prune(j, &format!("{f}1.{s}"));
        }
    }
}

/// CMU motion capture in 3ds Max-friendly names (`LeftHip` is the upper leg, `LeftShoulder`
/// the upper arm), as in `bvh/cmu_131_03_maxfriendly.bvh`.
fn cmu(id: &str) -> String {
    let (base, side) = split(id);
    let s = if side.is_empty() { "" } else { side_word(side) };
    let l = side.to_lowercase();
    match base {
        "hips" => "Hips".into(),
        "hip_joint" => format!("{side}HipJoint"),
        "spine" => "lowerback".into(),
        "chest" => "Chest".into(),
        "upper_chest" => "Chest2".into(),
        "neck" => "lowerneck".into(),
        "neck2" => "Neck".into(),
        "head" => "Head".into(),
        "head_end" => "Head_End".into(),
        "shoulder" => format!("{s}Collar"),
        "upper_arm" => format!("{s}Shoulder"),
        "lower_arm" => format!("{s}Elbow"),
        "hand" => format!("{s}Wrist"),
        "palm" => format!("{l}hand"),
        "middle1" => format!("{side}Fingers"),
        "thumb1" => format!("{side}Thumb"),
        "upper_leg" => format!("{s}Hip"),
        "lower_leg" => format!("{s}Knee"),
        "foot" => format!("{s}Ankle"),
        "toes" => format!("{s}Toe"),
        "toes_end" => format!("{s}Toe_End"),
        b if b.ends_with("_end") => format!("{side}{}_End", title(b)),
        other => panic!("cmu has no {other}"),
    }
}

fn cmu_edit(j: &mut Vec<Joint>) {
    add_neck2(j);
    let hips = pos(j, "hips");
    for s in ["L", "R"] {
        let id = |x: &str| format!("{x}.{s}");
        insert(j, &id("hip_joint"), Some("hips"), &[&id("upper_leg")], hips);
        for f in ["index", "ring", "little"] {
            prune(j, &id(&format!("{f}1")));
        }
        for x in ["middle2", "thumb2"] {
            prune(j, &id(x));
        }
        let hand = pos(j, &id("hand"));
        let p = hand.lerp(pos(j, &id("middle1")), 0.4);
        insert(j, &id("palm"), Some(&id("hand")), &[&id("middle1")], p);
    }
}

/// Meaningless names: only hierarchy and geometry can decide.
fn joint_n(id: &str) -> String {
    // A stable number per id, unrelated to the role.
    let h = id
        .bytes()
        .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
    format!("joint{}", h % 100_000)
}

fn cases() -> Vec<Case> {
    let base = Case {
        name: "",
        parts: ALL,
        names: mixamo,
        edit: none,
        a_pose: false,
        faces_minus_z: false,
        cm_z_up: false,
        except: &[],
    };
    vec![
        Case {
            name: "Mixamo (mixamorig:)",
            a_pose: true,
            cm_z_up: true,
            ..base
        },
        Case {
            name: "Mixamo (mixamorig1:)",
            names: mixamo1,
            ..base
        },
        Case {
            name: "Mixamo without prefix",
            names: mixamo_base,
            a_pose: true,
            ..base
        },
        Case {
            name: "Ready Player Me",
            names: mixamo_base,
            edit: add_eyes,
            ..base
        },
        Case {
            name: "HumanIK / MotionBuilder",
            names: human_ik,
            parts: Parts {
                root: true,
                long_spine: true,
                ..ALL
            },
            except: &[("root", Some("Root"))],
            ..base
        },
        Case {
            name: "UE4 mannequin",
            names: unreal,
            parts: Parts {
                root: true,
                twist: true,
                ik: true,
                ends: false,
                long_spine: false,
                spine_bones: 0,
            },
            cm_z_up: true,
            ..base
        },
        Case {
            name: "UE5 mannequin",
            names: unreal5,
            parts: Parts {
                root: true,
                twist: true,
                ik: true,
                ends: false,
                long_spine: true,
                spine_bones: 0,
            },
            edit: ue5_edit,
            a_pose: true,
            ..base
        },
        Case {
            name: "Godot / Unity humanoid ids",
            names: godot,
            ..base
        },
        Case {
            name: "VRM bone ids",
            names: vrm_id,
            faces_minus_z: true,
            ..base
        },
        Case {
            name: "VRoid J_Bip_",
            names: names::vroid,
            faces_minus_z: true,
            ..base
        },
        Case {
            name: "Blender Rigify DEF-",
            names: rigify,
            edit: rigify_edit,
            ..base
        },
        Case {
            name: "MakeHuman",
            names: makehuman,
            parts: Parts {
                root: true,
                long_spine: true,
                ..ALL
            },
            edit: makehuman_edit,
            ..base
        },
        Case {
            name: "CC3/CC4",
            names: cc,
            parts: Parts {
                root: true,
                twist: true,
                ..ALL
            },
            edit: split_pelvis,
            ..base
        },
        Case {
            name: "Daz Genesis",
            names: daz,
            parts: Parts {
                long_spine: true,
                ..ALL
            },
            edit: daz_edit,
            a_pose: true,
            ..base
        },
        Case {
            name: "3ds Max Biped",
            names: biped,
            edit: biped_edit,
            cm_z_up: true,
            ..base
        },
        Case {
            name: "Second Life",
            names: second_life,
            edit: second_life_edit,
            // A two-bone spine whose upper bone says chest: Chest, as VRM would have it.
            except: &[("upper_chest", Some("Chest"))],
            ..base
        },
        Case {
            name: "CMU BVH",
            names: cmu,
            edit: cmu_edit,
            except: &[],
            ..base
        },
        Case {
            name: "meaningless names (joint1, joint2, …)",
            names: joint_n,
            a_pose: true,
            ..base
        },
        Case {
            name: "no names at all (every joint unnamed)",
            names: |_| String::new(),
            a_pose: true,
            ..base
        },
        Case {
            name: "meaningless names facing -Z",
            names: joint_n,
            faces_minus_z: true,
            ..base
        },
    ]
}

/// A case's canonical joints, edited to its convention and posed.
fn case_joints(case: &Case) -> Vec<Joint> {
    let mut joints = humanoid(case.parts);
    (case.edit)(&mut joints);
    if case.a_pose {
        apply_a_pose(&mut joints);
    }
    joints
}

/// Maps `sk` and lists every profile bone whose source bone differs from `want`'s (the name
/// of the bone it must map to, or `None`), with the map's warnings.
fn map_wrong(sk: &Skeleton, want: impl Fn(&str) -> Option<String>) -> Vec<String> {
    let profile = Profile::humanoid();
    let map = map_skeleton(sk, profile, &MapOptions::default());
    let mut wrong = Vec::new();
    for id in profile.ids() {
        let pname = &profile.bone(id).name;
        let want = want(pname);
        let got = map.get(id).map(|b| sk.bones[b.index()].name.clone());
        if want != got {
            wrong.push(format!("{pname}: want {want:?}, got {got:?}"));
        }
    }
    if !wrong.is_empty() {
        wrong.push(format!("warnings: {:?}", map.warnings));
    }
    wrong
}

fn run(case: &Case) -> Vec<String> {
    let mut joints = case_joints(case);
    let base = place_in_scene(&mut joints, case.faces_minus_z, case.cm_z_up);
    let sk = skeleton(&joints, &|id| (case.names)(id), base);
    map_wrong(&sk, |pname| {
        joints
            .iter()
            .find(|j| {
                let e = case
                    .except
                    .iter()
                    .find(|(x, _)| *x == j.id)
                    .map(|(_, e)| e.map(String::from));
                e.unwrap_or_else(|| expected(&j.id)).as_deref() == Some(pname)
            })
            .map(|j| (case.names)(&j.id))
    })
}

#[test]
fn every_convention_maps_exactly() {
    let mut failures = Vec::new();
    for case in cases() {
        let wrong = run(&case);
        if !wrong.is_empty() {
            failures.push(format!("{}:\n  {}", case.name, wrong.join("\n  ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} conventions wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// What a real rig maps wrong: one line per profile bone whose source bone differs.
fn real_wrong(rig: &RealRig) -> Vec<String> {
    let sk = real_skeleton(rig, &|n| n.to_string());
    map_wrong(&sk, |pname| {
        rig.bones
            .iter()
            .find(|b| b.expected.as_deref() == Some(pname))
            .map(|b| b.name.clone())
    })
}

#[test]
fn real_convention_files_are_well_formed() {
    let profile = Profile::humanoid();
    let rigs = real_rigs();
    for (file, rig) in &rigs {
        assert!(!rig.name.is_empty(), "{file}: no name");
        assert!(!rig.sources.is_empty(), "{file}: no source");
        let mut seen = std::collections::BTreeSet::new();
        for n in rig.weightless.iter().chain(&rig.not_joints) {
            assert!(
                rig.bones.iter().any(|b| &b.name == n),
                "{file}: no bone `{n}`"
            );
        }
        for b in &rig.bones {
            if let Some(e) = &b.expected {
                assert!(
                    profile.find(e).is_some(),
                    "{file}: `{e}` is no profile bone"
                );
                assert!(seen.insert(e.clone()), "{file}: `{e}` expected twice");
            }
        }
        for req in profile.ids().filter(|&id| profile.bone(id).required) {
            let n = &profile.bone(req).name;
            // Upper-body rigs lack the legs, and half-body avatars the arms too.
            let upper_body = rig.has("upper_body");
            let limb = ["Leg", "Foot", "Arm"].iter().any(|w| n.contains(w));
            assert!(
                seen.contains(n) || (upper_body && limb),
                "{file}: required `{n}` expected of no bone"
            );
        }
    }
    assert!(
        cases().len() + rigs.len() >= 30,
        "{} conventions, want at least 30",
        cases().len() + rigs.len()
    );
}

#[test]
fn every_real_convention_maps_exactly() {
    let mut failures = Vec::new();
    for (file, rig) in real_rigs() {
        let wrong = real_wrong(&rig);
        if !wrong.is_empty() {
            failures.push(format!("{} ({file}):\n  {}", rig.name, wrong.join("\n  ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} real conventions wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The profile bones the scrambled-name property covers: torso, arms, legs and hands (not the
/// root, eyes or jaw, which only names can tell).
fn structural(profile: &Profile, id: skelnorm::profile::ProfileBoneId) -> bool {
    let b = profile.bone(id);
    profile.root != Some(id) && b.group != "Face"
}

/// Maps `sk` with its names and with every name replaced by `joint<N>`; lists the structural
/// profile bones the names mapped that the scrambled names map elsewhere or not at all.
fn scrambled_differences(sk: &Skeleton) -> Vec<String> {
    scrambled_except(sk, &[])
}

/// [`scrambled_differences`], leaving out the profile bones in `names_decide`, each of which
/// must map differently without names (else it is listed: names do not decide it).
fn scrambled_except(sk: &Skeleton, names_decide: &[String]) -> Vec<String> {
    let profile = Profile::humanoid();
    let options = MapOptions {
        ignore_declared: true,
        ..MapOptions::default()
    };
    let named = map_skeleton(sk, profile, &options);
    let ends = ["Head", "Hand", "Foot", "UpperLeg", "LowerLeg"];
    let torso_missing = named
        .missing_required(profile)
        .iter()
        .any(|&id| !ends.iter().any(|e| profile.bone(id).name.ends_with(e)));
    if torso_missing {
        return Vec::new(); // not a humanoid (a quadruped): nothing to compare
    }
    let mut blind = sk.clone();
    for (i, b) in blind.bones.iter_mut().enumerate() {
        b.name = format!("joint{}", (i * 7919 + 13) % 10007);
    }
    let scrambled = map_skeleton(&blind, profile, &options);
    let mut out: Vec<String> = names_decide
        .iter()
        .filter(|n| {
            let id = profile.find(n).expect("a profile bone");
            named.get(id).is_some() && scrambled.get(id) == named.get(id)
        })
        .map(|n| format!("{n}: listed in names_decide, but scrambled names map it the same"))
        .collect();
    let differences = profile
        .ids()
        .filter(|&id| structural(profile, id))
        .filter(|&id| !names_decide.contains(&profile.bone(id).name))
        .filter_map(|id| {
            let want = named.get(id)?;
            let got = scrambled.get(id);
            (got != Some(want)).then(|| {
                format!(
                    "{}: names map `{}`, scrambled names map {:?}",
                    profile.bone(id).name,
                    sk.bones[want.index()].name,
                    got.map(|g| &sk.bones[g.index()].name)
                )
            })
        });
    out.extend(differences);
    out
}

/// Issue 14: a rig whose names are all replaced by `joint<N>` maps its torso, arms, legs and
/// hands as its real names do, for every convention rig, fixture file and real asset.
#[test]
fn scrambled_names_map_like_real_names() {
    let mut failures = Vec::new();
    for (file, rig) in real_rigs() {
        let d = scrambled_except(&real_skeleton(&rig, &|n| n.to_string()), &rig.names_decide);
        if !d.is_empty() {
            failures.push(format!("{file}:\n  {}", d.join("\n  ")));
        }
    }
    for case in cases() {
        let joints = case_joints(&case);
        let d = scrambled_differences(&skeleton(&joints, &|id| (case.names)(id), Mat4::IDENTITY));
        if !d.is_empty() {
            failures.push(format!("{}:\n  {}", case.name, d.join("\n  ")));
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("fixtures"))
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .collect();
    let assets = root.join("../shared/assets");
    if assets.is_dir() {
        for dir in ["khronos", "quaternius", "threejs", "vrm"] {
            if let Ok(rd) = std::fs::read_dir(assets.join(dir)) {
                files.extend(rd.map(|e| e.expect("entry").path()));
            }
        }
    } else {
        // Past libtest's capture, like tests/common's skip lines.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr().lock(),
            "skipped: real assets (../shared/assets absent) in {}",
            std::thread::current().name().unwrap_or("this test")
        );
    }
    files.sort();
    for path in files {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !["glb", "gltf", "vrm", "vrma"].contains(&ext) {
            continue;
        }
        let doc = skelnorm::gltf_io::read(&path).unwrap_or_else(|e| panic!("{e}"));
        for sk in &doc.model.skeletons {
            let d = scrambled_differences(sk);
            if !d.is_empty() {
                failures.push(format!("{}:\n  {}", path.display(), d.join("\n  ")));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} rigs map differently without names:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
