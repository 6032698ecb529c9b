//! Side markers in bone names: which side a name states, and the name of the bone on the other
//! side (which the mirror stage and the retarget stack's `Mirror` op pair bones by), in the
//! conventions tools use: `Left`/`Right` words (Mixamo `mixamorig:LeftHand`, VRM,
//! CMU `LeftUpLeg`), single letters set off by separators or case (Blender `hand.L`, Unreal
//! `hand_l`, `Bip01 L Hand`, VRoid `J_Bip_L_Hand`, CMU `LHipJoint`, DAZ `lShldrBend`).

use super::{Profile, Side};
use std::ops::Range;

/// Byte ranges of the words of a name: runs of letters or digits, split where case goes from
/// lower to upper (`LeftHand`), where an upper-case run meets a capitalized word (`LHip` gives
/// `L`, `Hip`), and between letters and digits.
pub(crate) fn words(name: &str) -> Vec<Range<usize>> {
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

/// Side words of other languages than the profile's (French, Spanish, Italian, German).
const MORE_LEFT: [&str; 5] = ["gauche", "izquierda", "izquierdo", "sinistra", "links"];
const MORE_RIGHT: [&str; 6] = ["droite", "droit", "derecha", "derecho", "destra", "rechts"];

/// `word` in the case style of `like`: all upper, capitalized or all lower.
fn cased(word: &str, like: &str) -> String {
    if like.chars().all(char::is_uppercase) {
        word.to_uppercase()
    } else if like.chars().next().is_some_and(char::is_uppercase) {
        let mut s = word.to_string();
        if let Some(first) = s.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        s
    } else {
        word.to_string()
    }
}

/// The side a word states and the words that could stand for the other side, in the same
/// case (single letters swap with single letters, words with words). A word glued to a side
/// letter (`lhand`, when `hand` is a word of the profile and `lhand` is not) counts too.
fn swap_word(word: &str, profile: &Profile) -> Option<(Side, Vec<String>)> {
    let lower = word.to_lowercase();
    let naming = &profile.naming;
    let side_of = |w: &str| {
        let left = naming.left.iter().any(|x| x == w) || MORE_LEFT.contains(&w);
        let right = naming.right.iter().any(|x| x == w) || MORE_RIGHT.contains(&w);
        match (left, right) {
            (true, false) => Some(Side::Left),
            (false, true) => Some(Side::Right),
            _ => None,
        }
    };
    if let Some(side) = side_of(&lower) {
        let single = lower.chars().count() == 1;
        let others: Vec<&str> = match side {
            Side::Left => naming
                .right
                .iter()
                .map(String::as_str)
                .chain(MORE_RIGHT)
                .collect(),
            _ => naming
                .left
                .iter()
                .map(String::as_str)
                .chain(MORE_LEFT)
                .collect(),
        };
        let candidates = others
            .into_iter()
            .filter(|o| (o.chars().count() == 1) == single)
            .map(|o| cased(o, word))
            .collect();
        return Some((side, candidates));
    }
    let (first, rest) = lower.split_at_checked(1)?;
    let glued = matches!(first, "l" | "r")
        && !profile.vocabulary.contains(&lower)
        && profile.vocabulary.contains(rest);
    if !glued {
        return None;
    }
    let side = if first == "l" {
        Side::Left
    } else {
        Side::Right
    };
    let other = cased(if first == "l" { "r" } else { "l" }, &word[..1]);
    Some((side, vec![format!("{other}{}", &word[1..])]))
}

/// The side a name states and the names the bone on the other side could have (the first side
/// word is the marker; most likely first), or `None` when the name states no side.
/// `mixamorig:LeftHand` gives `(Left, ["mixamorig:RightHand", …])`, `hand.L` gives
/// `(Left, ["hand.R"])`, `calf_r` gives `(Right, ["calf_l"])`, `LHipJoint` gives
/// `(Left, ["RHipJoint"])`. Side words are the profile's (`naming.left`, `naming.right`) and a
/// few of other languages (`gauche`/`droite`, `izquierda`/`derecha`).
pub fn counterpart_names(name: &str, profile: &Profile) -> Option<(Side, Vec<String>)> {
    words(name).into_iter().find_map(|r| {
        let (side, others) = swap_word(&name[r.clone()], profile)?;
        let names = others
            .iter()
            .map(|o| format!("{}{o}{}", &name[..r.start], &name[r.end..]))
            .collect();
        Some((side, names))
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
            let p = Profile::humanoid();
            let (got, names) = counterpart_names(name, p).unwrap();
            assert_eq!((got, names[0].as_str()), (side, other), "{name}");
            let back = counterpart_names(other, p).unwrap().1;
            assert!(
                back.iter().any(|n| n == name),
                "{other} swaps back: {back:?}"
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
            "lower",
            "rib",
        ] {
            assert_eq!(counterpart_names(name, Profile::humanoid()), None, "{name}");
        }
    }
}
