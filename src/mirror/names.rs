//! Side markers in bone names: which side a name states, and the name of the bone on the other
//! side, in the conventions tools use: `Left`/`Right` words (Mixamo `mixamorig:LeftHand`, VRM,
//! CMU `LeftUpLeg`), single letters set off by separators or case (Blender `hand.L`, Unreal
//! `hand_l`, `Bip01 L Hand`, VRoid `J_Bip_L_Hand`, CMU `LHipJoint`, DAZ `lShldrBend`).

use crate::profile::Side;
use std::ops::Range;

/// Byte ranges of the words of a name: runs of letters or digits, split where case goes from
/// lower to upper (`LeftHand`), where an upper-case run meets a capitalized word (`LHip` gives
/// `L`, `Hip`), and between letters and digits.
fn words(name: &str) -> Vec<Range<usize>> {
    let chars: Vec<(usize, char)> = name.char_indices().collect();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (k, &(at, c)) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if let Some(s) = start.take() {
                out.push(s..at);
            }
            continue;
        }
        if let (Some(s), Some(&(_, p))) = (start, k.checked_sub(1).map(|j| &chars[j])) {
            let next_lower = chars.get(k + 1).is_some_and(|(_, n)| n.is_lowercase());
            let hump = (p.is_lowercase() && c.is_uppercase())
                || (p.is_uppercase() && c.is_uppercase() && next_lower)
                || (p.is_ascii_digit() != c.is_ascii_digit());
            if hump {
                out.push(s..at);
                start = Some(at);
            }
        }
        start.get_or_insert(at);
    }
    if let Some(s) = start {
        out.push(s..name.len());
    }
    out
}

/// The side a word states and the word for the other side, in the same case.
fn swap_word(word: &str) -> Option<(Side, String)> {
    let lower = word.to_lowercase();
    let (side, other) = match lower.as_str() {
        "left" | "l" => (Side::Left, if lower == "l" { "r" } else { "right" }),
        "right" | "r" => (Side::Right, if lower == "r" { "l" } else { "left" }),
        _ => return None,
    };
    let upper = word.chars().all(|c| c.is_uppercase());
    let capital = word.chars().next().is_some_and(char::is_uppercase);
    let swapped = if upper {
        other.to_uppercase()
    } else if capital {
        let mut s = other.to_string();
        s[..1].make_ascii_uppercase();
        s
    } else {
        other.to_string()
    };
    Some((side, swapped))
}

/// The side a name states and the name with that side swapped (the first side word is the
/// marker), or `None` when the name states no side. `mixamorig:LeftHand` gives
/// `(Left, "mixamorig:RightHand")`, `hand.L` gives `(Left, "hand.R")`, `calf_r` gives
/// `(Right, "calf_l")`, `LHipJoint` gives `(Left, "RHipJoint")`.
pub fn counterpart_name(name: &str) -> Option<(Side, String)> {
    words(name).into_iter().find_map(|r| {
        let (side, other) = swap_word(&name[r.clone()])?;
        Some((
            side,
            format!("{}{other}{}", &name[..r.start], &name[r.end..]),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swaps_every_convention() {
        for (name, side, other) in [
            ("mixamorig:LeftHand", Side::Left, "mixamorig:RightHand"),
            (
                "mixamorig:RightHandIndex1",
                Side::Right,
                "mixamorig:LeftHandIndex1",
            ),
            ("hand.L", Side::Left, "hand.R"),
            ("thigh.R.001", Side::Right, "thigh.L.001"),
            ("hand_l", Side::Left, "hand_r"),
            ("ik_foot_r", Side::Right, "ik_foot_l"),
            ("Bip01 L UpperArm", Side::Left, "Bip01 R UpperArm"),
            ("J_Bip_R_UpperArm", Side::Right, "J_Bip_L_UpperArm"),
            ("LHipJoint", Side::Left, "RHipJoint"),
            ("LThumb", Side::Left, "RThumb"),
            ("lShldrBend", Side::Left, "rShldrBend"),
            ("l_hand", Side::Left, "r_hand"),
            ("mShoulderLeft", Side::Left, "mShoulderRight"),
            ("LEFT_ARM", Side::Left, "RIGHT_ARM"),
            ("leg_joint_R_1", Side::Right, "leg_joint_L_1"),
            (
                "Skeleton_arm_joint_L__4_",
                Side::Left,
                "Skeleton_arm_joint_R__4_",
            ),
        ] {
            assert_eq!(
                counterpart_name(name),
                Some((side, other.to_string())),
                "{name}"
            );
            assert_eq!(
                counterpart_name(other).map(|(_, n)| n).as_deref(),
                Some(name),
                "{other} swaps back"
            );
        }
    }

    #[test]
    fn center_names_state_no_side() {
        for name in [
            "Hips",
            "LowerBack",
            "mixamorig:Spine1",
            "Skeleton_torso_joint_1",
            "Ring1",
            "root",
            "Leftover",
            "hair_01",
            "Head_end",
        ] {
            assert_eq!(counterpart_name(name), None, "{name}");
        }
    }
}
