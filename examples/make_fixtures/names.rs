//! Bone names in the conventions real files use, from canonical ids (`upper_arm.L`).

/// `(base, side)` of a canonical id: `upper_arm.L` → (`upper_arm`, `Some("L")`).
pub fn split(id: &str) -> (&str, Option<&str>) {
    match id.rsplit_once('.') {
        Some((base, side)) => (base, Some(side)),
        None => (id, None),
    }
}

/// `(finger, n)` of a finger id base: `index2` → (`index`, 2); `_end` is 4.
pub fn finger(base: &str) -> Option<(&str, usize)> {
    for f in ["thumb", "index", "middle", "ring", "little"] {
        if let Some(rest) = base.strip_prefix(f) {
            let n = if rest == "_end" {
                4
            } else {
                rest.parse().ok()?
            };
            return Some((f, n));
        }
    }
    None
}

/// The word with its first letter upper-cased.
pub fn title(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// Mixamo: HumanIK names with the `mixamorig:` prefix.
pub fn mixamo(id: &str) -> String {
    format!("mixamorig:{}", human_ik(id))
}

/// Blender Rigify deform bones (`DEF-upper_arm.L`).
pub fn rigify(id: &str) -> String {
    let (base, side) = split(id);
    let s = side.map(|s| format!(".{s}")).unwrap_or_default();
    let name = match base {
        "hips" => "spine".into(),
        "spine" => "spine.001".into(),
        "chest" => "spine.002".into(),
        "upper_chest" => "spine.003".into(),
        "neck" => "spine.004".into(),
        "head" => "spine.006".into(),
        "head_end" => "spine.006_end".into(),
        "shoulder" => format!("shoulder{s}"),
        "upper_arm" => format!("upper_arm{s}"),
        "lower_arm" => format!("forearm{s}"),
        "hand" => format!("hand{s}"),
        "upper_leg" => format!("thigh{s}"),
        "lower_leg" => format!("shin{s}"),
        "foot" => format!("foot{s}"),
        "toes" => format!("toe{s}"),
        "toes_end" => format!("toe{s}_end"),
        b => {
            let (f, n) = finger(b).expect("rigify bone");
            let f = if f == "thumb" {
                "thumb".to_string()
            } else {
                format!("f_{}", if f == "little" { "pinky" } else { f })
            };
            if n == 4 {
                format!("{f}.03{s}_end")
            } else {
                format!("{f}.0{n}{s}")
            }
        }
    };
    format!("DEF-{name}")
}

/// VRoid Studio (`J_Bip_L_UpperArm`).
pub fn vroid(id: &str) -> String {
    let (base, side) = split(id);
    let s = side.unwrap_or("C");
    let name = match base {
        "hips" => "Hips".into(),
        "spine" => "Spine".into(),
        "chest" => "Chest".into(),
        "upper_chest" => "UpperChest".into(),
        "neck" => "Neck".into(),
        "head" => "Head".into(),
        "head_end" => return "J_Adj_C_HeadTop_End".into(),
        "toes_end" => return format!("J_Adj_{s}_Toe_End"),
        "shoulder" => "Shoulder".into(),
        "upper_arm" => "UpperArm".into(),
        "lower_arm" => "LowerArm".into(),
        "hand" => "Hand".into(),
        "upper_leg" => "UpperLeg".into(),
        "lower_leg" => "LowerLeg".into(),
        "foot" => "Foot".into(),
        "toes" => "ToeBase".into(),
        b => {
            let (f, n) = finger(b).expect("vroid bone");
            if n == 4 {
                return format!("J_Adj_{s}_{}3_End", title(f));
            }
            format!("{}{n}", title(f))
        }
    };
    format!("J_Bip_{s}_{name}")
}

/// Unreal Engine 4 mannequin (`upperarm_l`, twist and IK bones included).
pub fn unreal(id: &str) -> String {
    let (base, side) = split(id);
    let s = side
        .map(|s| format!("_{}", s.to_lowercase()))
        .unwrap_or_default();
    match base {
        "root" | "ik_foot_root" | "ik_hand_root" | "ik_hand_gun" => base.into(),
        "ik_foot" | "ik_hand" => format!("{base}{s}"),
        "hips" => "pelvis".into(),
        "spine" => "spine_01".into(),
        "chest" => "spine_02".into(),
        "upper_chest" => "spine_03".into(),
        "neck" => "neck_01".into(),
        "head" => "head".into(),
        "shoulder" => format!("clavicle{s}"),
        "upper_arm" => format!("upperarm{s}"),
        "lower_arm" => format!("lowerarm{s}"),
        "hand" => format!("hand{s}"),
        "upper_arm_twist" => format!("upperarm_twist_01{s}"),
        "lower_arm_twist" => format!("lowerarm_twist_01{s}"),
        "upper_leg_twist" => format!("thigh_twist_01{s}"),
        "lower_leg_twist" => format!("calf_twist_01{s}"),
        "upper_leg" => format!("thigh{s}"),
        "lower_leg" => format!("calf{s}"),
        "foot" => format!("foot{s}"),
        "toes" => format!("ball{s}"),
        b => {
            let (f, n) = finger(b).expect("unreal bone");
            let f = if f == "little" { "pinky" } else { f };
            format!("{f}_0{n}{s}")
        }
    }
}

/// The profile's own names (Godot's SkeletonProfileHumanoid).
pub fn godot(id: &str) -> String {
    let (base, side) = split(id);
    let side = side.map_or("", |s| if s == "L" { "Left" } else { "Right" });
    match base {
        "hips" => "Hips".into(),
        "spine" => "Spine".into(),
        "chest" => "Chest".into(),
        "upper_chest" => "UpperChest".into(),
        "neck" => "Neck".into(),
        "head" => "Head".into(),
        "shoulder" => format!("{side}Shoulder"),
        "upper_arm" => format!("{side}UpperArm"),
        "lower_arm" => format!("{side}LowerArm"),
        "hand" => format!("{side}Hand"),
        "upper_leg" => format!("{side}UpperLeg"),
        "lower_leg" => format!("{side}LowerLeg"),
        "foot" => format!("{side}Foot"),
        "toes" => format!("{side}Toes"),
        b => {
            let (f, n) = finger(b).expect("godot bone");
            let part = if f == "thumb" {
                ["Metacarpal", "Proximal", "Distal"]
            } else {
                ["Proximal", "Intermediate", "Distal"]
            };
            format!("{side}{}{}", title(f), part[n - 1])
        }
    }
}

/// HumanIK / MotionBuilder (`LeftUpLeg`, `LeftHandIndex1`), three-bone spine.
pub fn human_ik(id: &str) -> String {
    let (base, side) = split(id);
    let side = side.map_or("", |s| if s == "L" { "Left" } else { "Right" });
    match base {
        "hips" => "Hips".into(),
        "spine" => "Spine".into(),
        "chest" => "Spine1".into(),
        "upper_chest" => "Spine2".into(),
        "neck" => "Neck".into(),
        "head" => "Head".into(),
        "head_end" => "HeadTop_End".into(),
        "toes_end" => format!("{side}Toe_End"),
        "shoulder" => format!("{side}Shoulder"),
        "upper_arm" => format!("{side}Arm"),
        "lower_arm" => format!("{side}ForeArm"),
        "hand" => format!("{side}Hand"),
        "upper_leg" => format!("{side}UpLeg"),
        "lower_leg" => format!("{side}Leg"),
        "foot" => format!("{side}Foot"),
        "toes" => format!("{side}ToeBase"),
        b => {
            let (f, n) = finger(b).expect("humanik bone");
            let f = if f == "little" {
                "Pinky".to_string()
            } else {
                title(f)
            };
            format!("{side}Hand{f}{n}")
        }
    }
}

/// HumanIK with a four-bone spine and two-bone neck (`Spine3`, `Neck1`).
pub fn human_ik_long(id: &str) -> String {
    match id {
        "chest2" => "Spine2".into(),
        "upper_chest" => "Spine3".into(),
        "neck2" => "Neck1".into(),
        _ => human_ik(id),
    }
}

/// HumanIK with a two-bone spine (`Spine`, `Spine1`).
pub fn human_ik_spine2(id: &str) -> String {
    match id {
        "upper_chest" => "Spine1".into(),
        _ => human_ik(id),
    }
}

/// HumanIK with a five-bone spine (`Spine` … `Spine4`).
pub fn human_ik_spine5(id: &str) -> String {
    match id {
        "chest" => "Spine1".into(),
        "chest2" => "Spine2".into(),
        "chest3" => "Spine3".into(),
        "upper_chest" => "Spine4".into(),
        _ => human_ik(id),
    }
}

/// VRM 0.x humanoid bone names for the `VRM` extension.
pub fn vrm_bone(id: &str) -> Option<String> {
    let (base, side) = split(id);
    let side = side.map_or("", |s| if s == "L" { "left" } else { "right" });
    let cap = |s: &str| {
        if side.is_empty() {
            s.to_string()
        } else {
            format!("{side}{}", title(s))
        }
    };
    Some(match base {
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
        b => {
            let (f, n) = finger(b)?;
            if n == 4 {
                return None;
            }
            cap(&format!(
                "{f}{}",
                ["Proximal", "Intermediate", "Distal"][n - 1]
            ))
        }
    })
}

/// Quadruped names are the ids.
pub fn plain(id: &str) -> String {
    id.to_string()
}

/// Quaternius (`quaternius_Male_Casual.fbx`, RobotExpressive.glb): `Bone`, `Body`, `Hips`,
/// `Abdomen`, `Torso`, `Palm.L`, `MiddleHand.L`, `Fingers.L`, `PoleTarget.L`, …
pub fn quaternius(id: &str) -> String {
    let (base, side) = split(id);
    let s = side.map(|s| format!(".{s}")).unwrap_or_default();
    if let Some(of) = base.strip_suffix("_end") {
        let of = match of {
            "middle" => "middle2",
            "thumb" => "thumb2",
            b => b,
        };
        return format!("{}_end", quaternius(&format!("{of}{s}")));
    }
    let name = match base {
        "root" => "Bone",
        "body" => "Body",
        "hips" => "Hips",
        "spine" => "Abdomen",
        "chest" => "Torso",
        "neck" => "Neck",
        "head" => "Head",
        "shoulder" => "Shoulder",
        "upper_arm" => "UpperArm",
        "lower_arm" => "LowerArm",
        "hand" => "Palm",
        "middle1" => "MiddleHand",
        "middle2" => "Fingers",
        "thumb1" => "Thumb1",
        "thumb2" => "Thumb2",
        "upper_leg" => "UpperLeg",
        "lower_leg" => "LowerLeg",
        "foot" => "Foot",
        "ik_pole" => "PoleTarget",
        b => panic!("no Quaternius bone {b}"),
    };
    format!("{name}{s}")
}

/// KayKit (`Knight.glb`): lowercase `.l`/`.r` deform bones and its IK controls
/// (`kneeIK.l`, `control-toe-roll.l`, `IK-foot.l`, …).
pub fn kaykit(id: &str) -> String {
    let (base, side) = split(id);
    let s = side
        .map(|s| format!(".{}", s.to_lowercase()))
        .unwrap_or_default();
    let name = match base {
        "upper_arm" => "upperarm",
        "lower_arm" => "lowerarm",
        "upper_leg" => "upperleg",
        "lower_leg" => "lowerleg",
        "ik_knee" => "kneeIK",
        "ik_toe_roll" => "control-toe-roll",
        "ik_heel_roll" => "control-heel-roll",
        "ik_foot_roll" => "control-foot-roll",
        "ik_heel" => "heelIK",
        "ik_foot" => "IK-foot",
        "ik_toe" => "IK-toe",
        "ik_elbow" => "elbowIK",
        "ik_hand" => "handIK",
        b => b,
    };
    format!("{name}{s}")
}
