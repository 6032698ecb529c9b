use super::*;

fn axes(p: &Profile, name: &str) -> [Vec3; 3] {
    let q = p.reference_rotations()[p.find(name).unwrap().index()];
    [q * Vec3::X, q * Vec3::Y, q * Vec3::Z]
}

#[test]
fn humanoid_has_godots_bones() {
    let p = Profile::humanoid();
    assert_eq!(p.bones.len(), 56);
    assert_eq!(p.bones.iter().filter(|b| b.required).count(), 15);
    assert_eq!(p.root, p.find("Root"));
    assert_eq!(p.scale_base, p.find("Hips"));
    assert_eq!(p.mapper, MapperKind::Humanoid);
    let chains: Vec<&str> = p.chains.iter().map(|c| c.name.as_str()).collect();
    for c in [
        "Spine",
        "Neck",
        "Head",
        "LeftArm",
        "RightLeg",
        "LeftThumb",
        "RightLittle",
    ] {
        assert!(chains.contains(&c), "{c}");
    }
}

#[test]
fn humanoid_global_frames_match_the_design() {
    // humanoid.md: "Global frames that follow (X / Y / Z axes of the bone in character space)".
    let p = Profile::humanoid();
    let table = [
        ("LeftUpperArm", [-Vec3::Z, Vec3::X, -Vec3::Y]),
        ("LeftLowerArm", [-Vec3::Y, Vec3::X, Vec3::Z]),
        ("LeftHand", [-Vec3::Z, Vec3::X, -Vec3::Y]),
        ("LeftIndexProximal", [-Vec3::Z, Vec3::X, -Vec3::Y]),
        ("LeftLittleDistal", [-Vec3::Z, Vec3::X, -Vec3::Y]),
        ("LeftUpperLeg", [-Vec3::X, -Vec3::Y, Vec3::Z]),
        ("LeftLowerLeg", [Vec3::X, -Vec3::Y, -Vec3::Z]),
        ("LeftFoot", [-Vec3::X, Vec3::Z, Vec3::Y]),
        ("LeftToes", [Vec3::X, Vec3::Z, -Vec3::Y]),
        ("RightUpperLeg", [-Vec3::X, -Vec3::Y, Vec3::Z]),
        ("Hips", [Vec3::X, Vec3::Y, Vec3::Z]),
        ("Head", [Vec3::X, Vec3::Y, Vec3::Z]),
    ];
    for (name, want) in table {
        let got = axes(p, name);
        for k in 0..3 {
            assert!(
                got[k].abs_diff_eq(want[k], 1e-3),
                "{name} axis {k}: {} vs {}",
                got[k],
                want[k]
            );
        }
    }
    // Right arm bones point along -X; +X stays flexion.
    assert!(axes(p, "RightUpperArm")[1].abs_diff_eq(-Vec3::X, 1e-3));
    assert!(axes(p, "RightHand")[1].abs_diff_eq(-Vec3::X, 1e-3));
    // The thumb points 35.26 degrees forward of the fingers, in the horizontal plane.
    let thumb = axes(p, "LeftThumbMetacarpal")[1];
    assert!(thumb.y.abs() < 1e-3, "{thumb}");
    let angle = thumb.angle_between(Vec3::X).to_degrees();
    assert!((angle - 35.26).abs() < 0.1 && thumb.z > 0.0, "{angle}");
}

#[test]
fn bones_point_at_their_tails() {
    let p = Profile::humanoid();
    let pos = p.reference_positions();
    let rot = p.reference_rotations();
    for (i, b) in p.bones.iter().enumerate() {
        let child = p
            .bones
            .iter()
            .position(|c| c.parent == Some(ProfileBoneId(i as u32)));
        let target = match b.tail {
            Tail::Bone(t) => Some(t.index()),
            Tail::Average => child,
            Tail::End => None,
        };
        let Some(t) = target else { continue };
        if matches!(b.tail, Tail::Average)
            && p.bones
                .iter()
                .filter(|c| c.parent.map(|x| x.index()) == Some(i))
                .count()
                > 1
        {
            continue;
        }
        let dir = (pos[t] - pos[i]).normalize();
        let y = rot[i] * Vec3::Y;
        assert!(
            dir.angle_between(y).to_degrees() < 0.05,
            "{}: +Y {y} vs tail {dir}",
            b.name
        );
    }
}

#[test]
fn loading_names_every_problem() {
    let text = r#"(
        name: "bad",
        root: Some("Nope"),
        bones: [
            (name: "A", rotation: (0.0, 0.0, 0.0, 2.0)),
            (name: "B", parent: Some("C")),
            (name: "C", parent: Some("A"), tail: Bone("A")),
            (name: "A"),
        ],
        chains: [(name: "X", bones: ["C", "A"])],
    )"#;
    let e = Profile::from_ron(text, "bad.ron").unwrap_err();
    let all = e.to_string();
    for needle in [
        "bad.ron:",
        "bone `A`: rotation is not a unit quaternion",
        "bone `B`: parent `C` comes after it",
        "bone `C`: tail `A` is not below it",
        "bone `A` is listed twice",
        "root: bone `Nope` does not exist",
        "chain `X`: `A` is not below `C`",
    ] {
        assert!(all.contains(needle), "missing `{needle}` in {all}");
    }
}

#[test]
fn unknown_fields_and_syntax_errors_are_reported() {
    let e =
        Profile::from_ron("(name: \"x\", bones: [(name: \"A\", colour: 1)])", "x.ron").unwrap_err();
    assert!(e.to_string().contains("colour"), "{e}");
    let e = Profile::from_ron("(name: ", "y.ron").unwrap_err();
    assert!(
        e.to_string().starts_with("y.ron: not a valid profile"),
        "{e}"
    );
}

#[test]
fn a_small_custom_profile_loads() {
    let text = r#"(
        name: "quadruped",
        bones: [
            (name: "Pelvis", required: true, names: [("pelvis", 1.0)]),
            (name: "Spine", parent: Some("Pelvis"), names: [("spine", 1.0)]),
            (name: "Head", parent: Some("Spine"), required: true, tail: End),
        ],
        chains: [(name: "Body", bones: ["Pelvis", "Spine", "Head"])],
    )"#;
    let p = Profile::from_ron(text, "q.ron").unwrap();
    assert_eq!(p.mapper, MapperKind::Names);
    assert_eq!(p.chains[0].bones.len(), 3);
    assert_eq!(p.bone(p.find("Head").unwrap()).tail, Tail::End);
}

/// Issue 19: the built-in profile is loaded from the JSON the build script writes; that JSON is
/// the file RON reads from `profiles/humanoid.ron`, value for value (floats compared by their
/// shortest text, which tells every two f32 apart), so validating it makes the profile
/// `from_ron` makes.
#[test]
fn built_in_json_is_the_ron_file() {
    let from_ron: ProfileFile = ron::from_str(HUMANOID_RON).expect("the built-in RON parses");
    let from_json: ProfileFile = serde_json::from_str(HUMANOID_JSON).expect("its JSON parses");
    let text = |f: &ProfileFile| serde_json::to_string(f).expect("serializes");
    assert_eq!(text(&from_json), text(&from_ron));
    let ron_profile = Profile::from_ron(HUMANOID_RON, "ron").expect("valid");
    let built_in = Profile::humanoid();
    assert_eq!(built_in.bones, ron_profile.bones);
    assert_eq!(built_in.chains, ron_profile.chains);
    assert_eq!(built_in.vocabulary, ron_profile.vocabulary);
}

/// Issue 19: the prefixes compiled as one regex strip what each compiled alone strips (the old
/// way: `find`, kept when it starts the name and is not all of it), for the built-in patterns
/// and for patterns that are not anchored, can match nothing, or overlap.
#[test]
fn prefixes_as_one_regex_strip_what_each_alone_strips() {
    let one_by_one = |patterns: &[String], name: &str| -> String {
        let mut left = name;
        for p in patterns {
            let re = regex::RegexBuilder::new(p)
                .case_insensitive(true)
                .build()
                .expect("compiles");
            if let Some(m) = re.find(left) {
                if m.start() == 0 && m.end() < left.len() {
                    left = &left[m.end()..];
                }
            }
        }
        left.to_string()
    };
    let mut sets = vec![Profile::humanoid().naming.prefixes.clone()];
    sets.push(
        ["bone", "x*", "(a|ab)(c|bcd)", "[0-9]+_", "^ſ", "^.*?_", "_"]
            .map(String::from)
            .to_vec(),
    );
    let names = [
        "mixamorig:Hips",
        "MIXAMORIG12_LeftHand",
        "Armature|mixamorig:Spine",
        "DEF-upper_arm.L",
        "J_Bip_C_Hips",
        "CC_Base_L_Thigh",
        "ValveBiped.Bip01_Pelvis",
        "Bip01 L Foot",
        "Skeleton_torso_joint_1",
        "rig_",
        "bone_Bone_bone",
        "xxabcd_tail",
        "abcd",
        "12_34_end",
        "ſkeleton_ſpine",
        "SKELETON_SPINE",
        "Kelvin_K",
        "",
        ":",
        "Hips",
        "腕_左",
    ];
    for patterns in &sets {
        let mut problems = Vec::new();
        let prefixes = Prefixes::compile(patterns, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        for name in names {
            assert_eq!(prefixes.strip(name), one_by_one(patterns, name), "{name}");
        }
    }
    // A pattern that does not compile is named, with the `regex` crate's error, as before.
    let patterns: Vec<String> = vec!["^ok_".into(), "(unclosed".into()];
    let mut problems = Vec::new();
    Prefixes::compile(&patterns, &mut problems);
    let error = regex::RegexBuilder::new(&patterns[1])
        .case_insensitive(true)
        .build()
        .map(|_| ())
        .expect_err("does not compile");
    assert_eq!(
        problems,
        [format!(
            "naming prefix `(unclosed` is not a valid regex: {error}"
        )]
    );
}

/// Issue 20, then 44: each pattern of a set compiled as one regex matches where, and as far as,
/// the `regex` crate's case-insensitive search of it alone does from the name's start, on names
/// with every troublesome character at every place (the patterns issue 20's hand matcher took,
/// and those it left to the regex engine).
#[test]
fn each_prefix_matches_as_the_regex_crate_does() {
    let built_in = &Profile::humanoid().naming.prefixes;
    let mut patterns: Vec<&str> = built_in.iter().map(String::as_str).collect();
    let simple = [
        "bone",
        "x*",
        "(a|ab)(c|bcd)",
        "[0-9]+_",
        "_",
        "x?(xy|yzz)",
        "a*(b|ab)",
        "(DEF|ORG)[-_]?",
        "[-]",
        "[-_.]",
        "[ -/]+x",
        "\\.",
        "\\-x",
        "[\\.\\-]s",
        "((ab|a)(bc|c))d?",
        "[:|]",
        "[:]",
        "[|]k",
        "k+s?",
        "[+-]",
        "(x|(y|z.))q",
        "[0-9]*_x",
        ".?kx",
        "s*(k|x)y",
    ];
    let harder = [
        "^.*?_", "[--]", "[]a]", "a{2}", "(?i)x", "(a|)", "a||b", "()", "^", "", "$", "a$", "\\_",
        "[a-z]", "(x|y)+", "(-|_)?", "Sk(e|ɛ)", "\\d", "ſ", "^^a", "a^", "|a", "a|", "(a))",
        "((a)", "[0-9", "[9-0]", ".*.*.*:", "[^_]", "#", "a**", ".*.*:", "k+s*", "a*a*b",
    ];
    patterns.extend(simple);
    patterns.extend(harder);
    let bases = [
        "mixamorig:Hips",
        "MIXAMORIG12_LeftHand",
        "Armature|mixamorig:Spine",
        "DEF-upper_arm.L",
        "ORG_x",
        "J_Bip_C_Hips",
        "J_Sec_Hair",
        "CC_Base_L_Thigh",
        "ValveBiped.Bip01_Pelvis",
        "Bip01 L Foot",
        "Skeleton_torso_joint_1",
        "Armature_Bone_rig_x",
        "abcd_bcd",
        "xxyzz",
        "aab:b:c",
        "a.-s",
        "kkss",
        "q/x",
        "",
    ];
    let odd = [
        '\n', '\r', '\u{212A}', '\u{017F}', '\u{0130}', '\u{0131}', 'é', '腕', ':', '|', '_', '-',
        '.', ' ', '0', '9', 'a', 'Z', 'k', 'S', '\0',
    ];
    let mut names: Vec<String> = Vec::new();
    for base in bases {
        let chars: Vec<char> = base.chars().collect();
        names.push(base.to_string());
        for i in 0..=chars.len() {
            for c in odd {
                let mut put: Vec<char> = chars.clone();
                put.insert(i, c);
                names.push(put.iter().collect());
                if i < chars.len() {
                    let mut swap = chars.clone();
                    swap[i] = c;
                    names.push(swap.iter().collect());
                }
            }
        }
    }
    let compiled: Vec<(String, regex::Regex)> = patterns
        .iter()
        .filter_map(|p| {
            let regex = regex::RegexBuilder::new(p).case_insensitive(true).build();
            regex.ok().map(|r| (p.to_string(), r))
        })
        .collect();
    assert!(compiled.len() > 60, "{} patterns compile", compiled.len());
    let set: Vec<String> = compiled.iter().map(|(p, _)| p.clone()).collect();
    let mut problems = Vec::new();
    let prefixes = Prefixes::compile(&set, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    for (k, (p, regex)) in compiled.iter().enumerate() {
        for name in &names {
            let want = regex.find(name).filter(|m| m.start() == 0).map(|m| m.end());
            assert_eq!(
                prefixes.match_end(k, name),
                want,
                "pattern `{p}`, name {name:?}"
            );
        }
    }
    // Every character a letter matches, case-insensitively.
    let letters: Vec<String> = ('a'..='z').map(String::from).collect();
    let any_letter = format!("({})", letters.join("|"));
    let prefixes = Prefixes::compile(std::slice::from_ref(&any_letter), &mut problems);
    let regex = regex::RegexBuilder::new(&format!("^{any_letter}"))
        .case_insensitive(true)
        .build()
        .expect("compiles");
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let s = c.to_string();
        let want = regex.find(&s).map(|m| m.end());
        assert_eq!(prefixes.match_end(0, &s), want, "{c:?}");
    }
}
