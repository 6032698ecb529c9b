//! Reading bone names: prefixes stripped, words split (camelCase, separators, digits), sides
//! found in every common form, synonyms applied; then scoring a name against a profile bone.

use crate::profile::{words, Profile, ProfileBone, Side};

/// What a bone's name says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NameInfo {
    /// Meaningful words after synonyms, lowercase, without side words, digits or noise.
    pub words: Vec<String>,
    /// The side the name states.
    pub side: Option<Side>,
    /// Digit groups in order of appearance (`Finger01` gives `"01"`).
    pub digits: Vec<String>,
    /// A helper, IK, control or twist bone.
    pub helper: bool,
    /// An end bone (tip, end site).
    pub end: bool,
    /// A bone inside the palm (a metacarpal).
    pub palm: bool,
    /// A secondary bone (twist, roll): mapped only when nothing else fits.
    pub secondary: bool,
}

/// Splits a name into lowercase words: separators, camelCase humps and digit runs (the words
/// the profile's side markers are found among).
pub fn split_words(name: &str) -> Vec<String> {
    words(name)
        .into_iter()
        .map(|r| name[r].to_lowercase())
        .collect()
}

/// Reads a name with a profile's naming rules: prefixes stripped, a glued side letter (`lhand`)
/// split off, digits, side, noise, helper, end and secondary words sorted out, synonyms applied.
pub fn analyze(name: &str, profile: &Profile) -> NameInfo {
    let vocab = &profile.vocabulary;
    let n = &profile.naming;
    let stripped = profile.prefixes.strip(name);
    let mut words = Vec::new();
    for w in split_words(stripped) {
        match w.split_at_checked(1) {
            Some((s @ ("l" | "r"), rest)) if !vocab.contains(&w) && vocab.contains(rest) => {
                words.push(s.to_string());
                words.push(rest.to_string());
            }
            _ => words.push(w),
        }
    }
    let has = |list: &[String], w: &str| list.iter().any(|x| x == w);
    let mut info = NameInfo::default();
    let mut kept = Vec::new();
    for w in words {
        if w.chars().all(|c| c.is_ascii_digit()) {
            info.digits.push(w);
        } else if has(&n.left, &w) && info.side.is_none() {
            info.side = Some(Side::Left);
        } else if has(&n.right, &w) && info.side.is_none() {
            info.side = Some(Side::Right);
        } else if !has(&n.noise, &w) {
            info.helper |= has(&n.helpers, &w);
            info.end |= has(&n.ends, &w);
            info.secondary |= has(&n.secondary, &w);
            kept.push(w);
        }
    }
    info.words = apply_synonyms(&kept, &profile.synonym_rules);
    info.palm = info.words.iter().any(|w| has(&n.palm, w));
    info
}

/// `words` with the first synonym rule of `rules` (in order) that matches at each place
/// replacing the words it matched.
fn apply_synonyms(words: &[String], rules: &[(Vec<String>, Vec<String>)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    'outer: while i < words.len() {
        for (from, to) in rules {
            let k = from.len();
            if i + k <= words.len() && words[i..i + k] == from[..] {
                out.extend(to.iter().cloned());
                i += k;
                continue 'outer;
            }
        }
        out.push(words[i].clone());
        i += 1;
    }
    out
}

/// [`score`] of `info` for every profile bone, in profile order.
pub fn scores(profile: &Profile, info: &NameInfo) -> Vec<f32> {
    profile.bones.iter().map(|b| score(b, info)).collect()
}

/// How well a name fits a profile bone, 0..=1: the best of the bone's name phrases, lowered
/// when the name's side disagrees or is missing. Helpers and end bones score 0.
pub fn score(bone: &ProfileBone, info: &NameInfo) -> f32 {
    if info.helper || info.end || info.words.is_empty() {
        return 0.0;
    }
    let best = bone
        .names
        .iter()
        .map(|(phrase, weight)| weight * overlap(phrase, &info.words))
        .fold(0.0f32, f32::max);
    let side = match (bone.side, info.side) {
        (Side::Center, None) => 1.0,
        (Side::Center, Some(_)) => 0.3,
        (_, None) => 0.8,
        (want, Some(got)) if want == got => 1.0,
        _ => 0.0,
    };
    best * side
}

/// 1 when the words equal the phrase, less when one contains the other, 0 otherwise.
fn overlap(phrase: &[String], words: &[String]) -> f32 {
    if phrase == words {
        return 1.0;
    }
    let contains = |big: &[String], small: &[String]| small.iter().all(|s| big.contains(s));
    if contains(words, phrase) {
        0.9 * phrase.len() as f32 / words.len() as f32
    } else if contains(phrase, words) {
        0.6 * words.len() as f32 / phrase.len() as f32
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str) -> NameInfo {
        let p = Profile::humanoid();
        analyze(name, p)
    }

    #[test]
    fn splits_humps_separators_and_digits() {
        assert_eq!(
            split_words("mixamorig:LeftHandIndex1"),
            ["mixamorig", "left", "hand", "index", "1"]
        );
        assert_eq!(split_words("LHipJoint"), ["l", "hip", "joint"]);
        assert_eq!(
            split_words("upperarm_twist_01_l"),
            ["upperarm", "twist", "01", "l"]
        );
        assert_eq!(split_words("DEF-thigh.L.001"), ["def", "thigh", "l", "001"]);
    }

    #[test]
    fn sides_in_every_form() {
        for (name, side) in [
            ("LeftArm", Side::Left),
            ("L_UpperArm", Side::Left),
            ("upperarm_l", Side::Left),
            ("upper_arm.L", Side::Left),
            ("Bip01 L UpperArm", Side::Left),
            ("lShldrBend", Side::Left),
            ("mShoulderLeft", Side::Left),
            ("Left arm", Side::Left),
            ("J_Bip_R_UpperArm", Side::Right),
            ("RightHand", Side::Right),
            ("rhand", Side::Right),
            ("CC_Base_R_Upperarm", Side::Right),
        ] {
            assert_eq!(read(name).side, Some(side), "{name}");
        }
        assert_eq!(read("Ring1").side, None);
        assert_eq!(read("leg_joint_R_1").side, Some(Side::Right));
    }

    #[test]
    fn synonyms_and_prefixes() {
        assert_eq!(read("mixamorig:LeftUpLeg").words, ["upper", "leg"]);
        assert_eq!(read("mixamorig1:LeftForeArm").words, ["lower", "arm"]);
        assert_eq!(read("DEF-thigh.L").words, ["upper", "leg"]);
        assert_eq!(read("calf_r").words, ["lower", "leg"]);
        assert_eq!(read("clavicle_l").words, ["shoulder"]);
        assert_eq!(read("ValveBiped.Bip01_L_Forearm").words, ["lower", "arm"]);
        assert_eq!(read("CC_Base_L_Thigh").words, ["upper", "leg"]);
        assert_eq!(read("J_Bip_L_ToeBase").words, ["toes"]);
        // Meta's body-tracking bone ids (OVRPlugin.BoneId), issue 43.
        assert_eq!(read("FullBody_LeftArmUpper").words, ["arm", "upper"]);
        assert_eq!(read("FullBody_Hips").words, ["hips"]);
        assert!(read("ik_foot_l").helper);
        assert!(read("mixamorig:LeftToe_End").end);
        assert!(read("index_metacarpal_l").palm);
    }

    #[test]
    fn scores_prefer_the_right_bone() {
        let p = Profile::humanoid();
        let s = |bone: &str, name: &str| score(p.bone(p.find(bone).unwrap()), &read(name));
        assert!(s("LeftUpperArm", "mixamorig:LeftArm") > s("LeftLowerArm", "mixamorig:LeftArm"));
        assert!(s("LeftLowerLeg", "mixamorig:LeftLeg") > s("LeftUpperLeg", "mixamorig:LeftLeg"));
        assert_eq!(s("RightUpperArm", "mixamorig:LeftArm"), 0.0);
        assert!(s("LeftUpperLeg", "mHipLeft") > s("Hips", "mHipLeft"));
        assert!(s("Hips", "pelvis") > 0.9);
        assert_eq!(s("LeftFoot", "ik_foot_l"), 0.0);
    }

    /// The word splitting as it was before issue 20 (a word built character by character), to
    /// compare with.
    mod before {

        pub fn split_words(name: &str) -> Vec<String> {
            let chars: Vec<char> = name.chars().collect();
            let mut out = Vec::new();
            let mut cur = String::new();
            for (i, &c) in chars.iter().enumerate() {
                if !c.is_alphanumeric() {
                    if !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                    continue;
                }
                if let Some(&p) = cur.chars().last().as_ref() {
                    let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
                    let hump = (p.is_lowercase() && c.is_uppercase())
                        || (p.is_uppercase() && c.is_uppercase() && next_lower)
                        || (p.is_ascii_digit() != c.is_ascii_digit());
                    if hump {
                        out.push(std::mem::take(&mut cur));
                    }
                }
                cur.push(c);
            }
            if !cur.is_empty() {
                out.push(cur);
            }
            out.into_iter().map(|w| w.to_lowercase()).collect()
        }
    }

    /// Issue 20: words are split as they were before, in names in every convention, with
    /// prefixes, sides, digits, synonyms, helpers, odd case and characters.
    #[test]
    fn words_split_as_before() {
        let p = Profile::humanoid();
        let stems = [
            "mixamorig:",
            "mixamorig12_",
            "Armature|",
            "DEF-",
            "ORG.",
            "J_Bip_",
            "J_Sec_",
            "CC_Base_",
            "ValveBiped.",
            "Bip01 ",
            "Bone_",
            "Skeleton_",
            "rig_",
            "",
            "ik_",
            "c_",
        ];
        let mut words: Vec<String> = p
            .bones
            .iter()
            .flat_map(|b| {
                b.names
                    .iter()
                    .flat_map(|(phrase, _)| phrase.iter().cloned())
            })
            .chain(
                p.synonym_rules
                    .iter()
                    .flat_map(|(a, b)| a.iter().chain(b).cloned()),
            )
            .chain(
                [
                    &p.naming.noise,
                    &p.naming.helpers,
                    &p.naming.ends,
                    &p.naming.palm,
                ]
                .into_iter()
                .flatten()
                .cloned(),
            )
            .collect();
        words.sort();
        words.dedup();
        let mut names = Vec::new();
        for (k, w) in words.iter().enumerate() {
            let other = &words[(k * 7 + 3) % words.len()];
            let stem = stems[k % stems.len()];
            let cap = |s: &str| {
                let mut c = s.chars();
                c.next()
                    .map(|f| f.to_uppercase().chain(c).collect::<String>())
                    .unwrap_or_default()
            };
            for form in [
                format!("{stem}Left{}{}", cap(w), cap(other)),
                format!("{stem}{w}_{other}_r"),
                format!("{stem}{}.L.00{}", w.to_uppercase(), k % 10),
                format!("{stem}l{w}{k}"),
                format!("{stem}R_{w} {other}_end"),
                format!("{w}{other}"),
                format!("{stem}{} {}", cap(w), cap(other)),
                format!("{stem}ŞİK_{w}_ſide_腕_{k}"),
            ] {
                names.push(form);
            }
        }
        names.extend(
            [
                "",
                "_",
                "123",
                "LeftLeft",
                "RightLeft",
                "l",
                "lr",
                "Ǆx",
                "ΣΑΣ",
            ]
            .map(String::from),
        );
        assert!(names.len() > 1000, "{}", names.len());
        for name in &names {
            assert_eq!(split_words(name), before::split_words(name), "{name}");
        }
    }
}
