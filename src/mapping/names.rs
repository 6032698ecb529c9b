//! Reading bone names: prefixes stripped, words split (camelCase, separators, digits), sides
//! found in every common form, synonyms applied; then scoring a name against a profile bone.

use crate::model::FxMap;
use crate::profile::{Profile, ProfileBone, Side};

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

/// Splits a name into lowercase words: separators, camelCase humps and digit runs.
pub fn split_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    // Where the current word starts, and its last character.
    let mut word: Option<(usize, char)> = None;
    let mut chars = name.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if !c.is_alphanumeric() {
            if let Some((start, _)) = word.take() {
                out.push(name[start..at].to_lowercase());
            }
            continue;
        }
        let start = match word {
            Some((start, p)) => {
                let next_lower = chars.peek().is_some_and(|(_, n)| n.is_lowercase());
                let hump = (p.is_lowercase() && c.is_uppercase())
                    || (p.is_uppercase() && c.is_uppercase() && next_lower)
                    || (p.is_ascii_digit() != c.is_ascii_digit());
                if hump {
                    out.push(name[start..at].to_lowercase());
                    at
                } else {
                    start
                }
            }
            None => at,
        };
        word = Some((start, c));
    }
    if let Some((start, _)) = word {
        out.push(name[start..].to_lowercase());
    }
    out
}

/// Reads a name with a profile's naming rules (one name; to read many, build a [`Lexicon`]
/// once and use [`Lexicon::analyze`]).
pub fn analyze(name: &str, profile: &Profile) -> NameInfo {
    Lexicon::new(profile).analyze(name)
}

/// Marks a word as in one of the naming lists.
type MarkKind = fn(&mut Kinds);

/// Which of a profile's naming lists a word is in.
#[derive(Debug, Clone, Copy, Default)]
struct Kinds {
    left: bool,
    right: bool,
    noise: bool,
    helper: bool,
    end: bool,
    secondary: bool,
    palm: bool,
}

/// A profile's words as lookups (issue 20: reading and scoring names scanned every naming list,
/// synonym rule and profile bone for every word): which naming lists hold each word, the
/// synonym rules that start with it, the profile bones with a name phrase that has it. Built
/// from the profile as it is, once per skeleton mapped.
pub struct Lexicon<'p> {
    profile: &'p Profile,
    kinds: Words<'p, Kinds>,
    /// Indices into `profile.synonym_rules`, in their order.
    synonyms: Words<'p, Vec<usize>>,
    /// Profile bone indices, ascending.
    bones: Words<'p, Vec<usize>>,
}

/// A map from a profile's words (looked up in, never walked; the keys stored are the profile's
/// own words, so no input chooses them).
type Words<'p, V> = FxMap<&'p str, V>;

/// An empty [`Words`] with room for `n` words.
fn sized<'p, V>(n: usize) -> Words<'p, V> {
    Words::with_capacity_and_hasher(n, Default::default())
}

impl<'p> Lexicon<'p> {
    /// The lookups of `profile`.
    pub fn new(profile: &'p Profile) -> Self {
        let n = &profile.naming;
        let mut kinds: Words<Kinds> = sized(
            [
                &n.left,
                &n.right,
                &n.noise,
                &n.helpers,
                &n.ends,
                &n.secondary,
                &n.palm,
            ]
            .iter()
            .map(|l| l.len())
            .sum(),
        );
        let lists: [(&[String], MarkKind); 7] = [
            (&n.left, |k| k.left = true),
            (&n.right, |k| k.right = true),
            (&n.noise, |k| k.noise = true),
            (&n.helpers, |k| k.helper = true),
            (&n.ends, |k| k.end = true),
            (&n.secondary, |k| k.secondary = true),
            (&n.palm, |k| k.palm = true),
        ];
        for (list, set) in lists {
            for w in list {
                set(kinds.entry(w.as_str()).or_default());
            }
        }
        let mut synonyms: Words<Vec<usize>> = sized(profile.synonym_rules.len());
        for (i, (from, _)) in profile.synonym_rules.iter().enumerate() {
            if let Some(first) = from.first() {
                synonyms.entry(first.as_str()).or_default().push(i);
            }
        }
        let mut bones: Words<Vec<usize>> = sized(profile.vocabulary.len());
        for (i, b) in profile.bones.iter().enumerate() {
            for w in b.names.iter().flat_map(|(phrase, _)| phrase) {
                let list = bones.entry(w.as_str()).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
        Lexicon {
            profile,
            kinds,
            synonyms,
            bones,
        }
    }

    fn kinds(&self, word: &str) -> Kinds {
        self.kinds.get(word).copied().unwrap_or_default()
    }

    /// Reads a name with the profile's naming rules.
    pub fn analyze(&self, name: &str) -> NameInfo {
        let profile = self.profile;
        let vocab = &profile.vocabulary;
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
        let mut info = NameInfo::default();
        let mut kept = Vec::new();
        for w in words {
            let k = self.kinds(&w);
            if w.chars().all(|c| c.is_ascii_digit()) {
                info.digits.push(w);
            } else if k.left && info.side.is_none() {
                info.side = Some(Side::Left);
            } else if k.right && info.side.is_none() {
                info.side = Some(Side::Right);
            } else if !k.noise {
                info.helper |= k.helper;
                info.end |= k.end;
                info.secondary |= k.secondary;
                kept.push(w);
            }
        }
        info.words = self.apply_synonyms(kept);
        info.palm = info.words.iter().any(|w| self.kinds(w).palm);
        info
    }

    /// The first synonym rule (in the profile's order) that matches at each place, its words
    /// replacing the ones it matched.
    fn apply_synonyms(&self, words: Vec<String>) -> Vec<String> {
        let rules = &self.profile.synonym_rules;
        let mut out = Vec::new();
        let mut i = 0;
        'outer: while i < words.len() {
            for &r in self.synonyms.get(words[i].as_str()).into_iter().flatten() {
                let (from, to) = &rules[r];
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

    /// [`score`] of `info` for every profile bone, in profile order. Only the bones with a
    /// name phrase sharing a word with the name are scored: the others score 0 (no phrase
    /// overlaps the name).
    pub fn scores(&self, info: &NameInfo) -> Vec<f32> {
        let bones = &self.profile.bones;
        let mut out = vec![0.0; bones.len()];
        if info.helper || info.end || info.words.is_empty() {
            return out;
        }
        let mut done = vec![false; bones.len()];
        for w in &info.words {
            for &b in self.bones.get(w.as_str()).into_iter().flatten() {
                if !std::mem::replace(&mut done[b], true) {
                    out[b] = score(&bones[b], info);
                }
            }
        }
        out
    }
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

    /// The name reading as it was before issue 20 (scanning the naming lists and synonym rules
    /// for every word, scoring every profile bone), to compare with.
    mod before {
        use super::super::{score, NameInfo};
        use crate::profile::{Profile, Side};

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

        pub fn analyze(name: &str, profile: &Profile) -> NameInfo {
            let vocab = &profile.vocabulary;
            let n = &profile.naming;
            let stripped = profile.prefixes.strip(name);
            let mut words = Vec::new();
            for w in split_words(stripped) {
                match w.split_at_checked(1) {
                    Some((s @ ("l" | "r"), rest))
                        if !vocab.contains(&w) && vocab.contains(rest) =>
                    {
                        words.push(s.to_string());
                        words.push(rest.to_string());
                    }
                    _ => words.push(w),
                }
            }
            let mut info = NameInfo::default();
            let has = |list: &[String], w: &str| list.iter().any(|x| x == w);
            let mut kept = Vec::new();
            for w in &words {
                if w.chars().all(|c| c.is_ascii_digit()) {
                    info.digits.push(w.clone());
                } else if has(&n.left, w) && info.side.is_none() {
                    info.side = Some(Side::Left);
                } else if has(&n.right, w) && info.side.is_none() {
                    info.side = Some(Side::Right);
                } else if !has(&n.noise, w) {
                    kept.push(w.clone());
                }
            }
            info.helper = kept.iter().any(|w| has(&n.helpers, w));
            info.end = kept.iter().any(|w| has(&n.ends, w));
            info.secondary = kept.iter().any(|w| has(&n.secondary, w));
            info.words = apply_synonyms(&kept, &profile.synonym_rules);
            info.palm = info.words.iter().any(|w| has(&n.palm, w));
            info
        }

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

        pub fn scores(profile: &Profile, info: &NameInfo) -> Vec<f32> {
            profile.bones.iter().map(|pb| score(pb, info)).collect()
        }
    }

    /// Issue 20: the lexicon reads and scores every name as the scans did: names in every
    /// convention, with prefixes, sides, digits, synonyms, helpers, odd case and characters.
    #[test]
    fn lexicon_reads_and_scores_as_the_scans_did() {
        let p = Profile::humanoid();
        let lexicon = Lexicon::new(p);
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
            let info = lexicon.analyze(name);
            assert_eq!(info, before::analyze(name, p), "{name}");
            let (now, then) = (lexicon.scores(&info), before::scores(p, &info));
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&now), bits(&then), "{name}");
        }
    }
}
