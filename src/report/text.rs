//! Text summaries of each command's report, for people at a terminal (the HTML report is beside
//! it, in `html`): what `normalize`, `retarget` and `map` did, written to any writer. Renders;
//! computes nothing.

use super::FileReport;
use crate::check::retarget::{
    EffectorCheck, FloorCheck, NotMeasured, OpsCheck, RetargetCheck, SegmentReason, SkateCheck,
};
use crate::mapping::MapReport;
use crate::pipeline::{Measured, MirrorRunReport, NormalizeReport, RetargetReport};
use crate::rename::RenameReport;
use crate::rest::RestReport;
use crate::tracks::{StripReason, StripReport};
use std::io::Write;

/// The text summary of `mirror`: the input and output of `file` (its report as read and
/// written), then per skeleton of `report` the pairs, the plane, the rest's asymmetry and the
/// clips.
pub fn mirror_text(
    w: &mut dyn Write,
    file: &FileReport,
    report: &MirrorRunReport,
) -> std::io::Result<()> {
    writeln!(w, "{} → {}", file.input, output(file))?;
    for s in &report.skeletons {
        let [x, y, z] = s.normal;
        writeln!(
            w,
            "skeleton `{}`: {} pairs through the profile, {} by name, {} bones in place; \
             plane normal ({x:.3}, {y:.3}, {z:.3}){}; rest asymmetry {:.2e} of its size",
            s.skeleton,
            s.mapped_pairs,
            s.named_pairs,
            s.in_place,
            if s.snapped {
                " (snapped to an axis)"
            } else {
                ""
            },
            s.rest_asymmetry
        )?;
        for warn in &s.warnings {
            writeln!(w, "  warning [{}]: {}", warn.code.as_str(), warn.message)?;
        }
        for c in &s.clips {
            if c.output == c.clip {
                writeln!(w, "  clip `{}` mirrored", c.clip)?;
            } else {
                writeln!(w, "  clip `{}` → `{}`", c.clip, c.output)?;
            }
        }
    }
    Ok(())
}

/// The text summary of `normalize`: the input and output of `file` (its report as read and
/// written), their sizes, what the reader noticed, then per skeleton of `report` what each stage
/// did and the measured invariants.
pub fn normalize_text(
    w: &mut dyn Write,
    file: &FileReport,
    report: &NormalizeReport,
) -> std::io::Result<()> {
    writeln!(w, "{} → {}", file.input, output(file))?;
    writeln!(w, "size: {} → {} bytes", file.size_before, file.size_after)?;
    for warn in &file.warnings {
        writeln!(w, "warning [{}]: {}", warn.code.as_str(), warn.message)?;
    }
    for s in &report.skeletons {
        let total = s.mapping.bones.len() + s.mapping.unmapped_profile.len();
        write!(
            w,
            "skeleton `{}`: {}/{} bones mapped",
            s.skeleton,
            s.mapping.bones.len(),
            total
        )?;
        if let Some(why) = &s.skipped {
            writeln!(w, ", left alone ({why})")?;
            continue;
        }
        writeln!(w)?;
        if !s.mapping.missing_required.is_empty() {
            writeln!(
                w,
                "  warning: lacks required bones {}",
                s.mapping.missing_required.join(", ")
            )?;
        }
        if let Some(r) = &s.rest {
            rest_text(w, r)?;
        }
        if let Some(t) = &s.tracks {
            tracks_summary(w, t)?;
        }
        if let Some(r) = &s.rename {
            rename_text(w, r)?;
        }
        if let Some(m) = &s.measured {
            measured_text(w, m)?;
        }
    }
    Ok(())
}

/// The output of `file`, as given.
fn output(file: &FileReport) -> &str {
    file.output.as_deref().unwrap_or_default()
}

/// `n` and the noun, singular for one (`1 clip`, `2 clips`).
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What the rest fix did, as text lines.
fn rest_text(w: &mut dyn Write, r: &RestReport) -> std::io::Result<()> {
    if r.base.folded {
        writeln!(
            w,
            "  folded the nodes above it (scale {}, rotation {:.1}°)",
            r.base.scale, r.base.rotation_deg
        )?;
    }
    if r.facing_turn_deg != 0.0 {
        if r.scene_turned {
            writeln!(
                w,
                "  turned the whole scene {}° so the character faces +Z (nothing above the skeleton)",
                r.facing_turn_deg
            )?;
        } else {
            writeln!(
                w,
                "  turned {}° inside the skeleton to face +Z (the node above keeps the opposite turn: the scene is unchanged)",
                r.facing_turn_deg
            )?;
        }
    }
    let moved = r.bones.iter().filter(|b| b.silhouette_deg > 0.01).count();
    let most = r
        .bones
        .iter()
        .max_by(|a, b| a.silhouette_deg.total_cmp(&b.silhouette_deg));
    if let Some(m) = most.filter(|m| m.silhouette_deg > 0.01) {
        writeln!(
            w,
            "  silhouette: {} turned at rest, most {:.1}° ({})",
            count(moved, "bone", "bones"),
            m.silhouette_deg,
            m.bone
        )?;
    }
    if r.complemented_tracks > 0 {
        writeln!(
            w,
            "  {} added to keep clips' poses",
            count(r.complemented_tracks, "one-key track", "one-key tracks")
        )?;
    }
    if let Some(h) = r.motion_scale {
        writeln!(w, "  motion scale {h:.4} m")?;
    }
    for warn in &r.warnings {
        let code = warn.code.as_str();
        writeln!(w, "  warning [{code}]: {}", warn.message)?;
    }
    Ok(())
}

/// What renaming did, as text lines.
fn rename_text(w: &mut dyn Write, r: &RenameReport) -> std::io::Result<()> {
    if !r.bones.is_empty() || r.skeleton.is_some() {
        write!(
            w,
            "  renamed {} to profile names",
            count(r.bones.len(), "bone", "bones")
        )?;
        if let Some(sk) = &r.skeleton {
            write!(w, ", the skeleton `{}` → `{}`", sk.from, sk.to)?;
        }
        writeln!(w)?;
    }
    for m in &r.moved_aside {
        writeln!(w, "  moved node `{}` aside to `{}`", m.from, m.to)?;
    }
    for warn in &r.warnings {
        writeln!(
            w,
            "  warning [{}]: {}: {}",
            warn.code,
            warn.message,
            warn.bones.join(", ")
        )?;
    }
    Ok(())
}

/// The measured invariants, as text lines.
fn measured_text(w: &mut dyn Write, m: &Measured) -> std::io::Result<()> {
    if m.skin.clips == 0 || m.skin.frames == 0 {
        writeln!(w, "  skin: no clips to compare (rest pose only)")?;
    } else {
        writeln!(
            w,
            "  skin: max error {:.1e} of height over {} of {}",
            m.skin.max_error,
            count(m.skin.frames, "frame", "frames"),
            count(m.skin.clips, "clip", "clips")
        )?;
    }
    writeln!(
        w,
        "  rest: directions within {:.3}°, +Y to tail within {:.4}°, faces {}",
        m.rest.max_direction_deg,
        m.rest.max_tail_deg,
        if m.rest.faces_plus_z { "+Z" } else { "not +Z" }
    )?;
    Ok(())
}

fn tracks_summary(w: &mut dyn Write, t: &StripReport) -> std::io::Result<()> {
    if t.removed_tracks > 0 {
        let reasons = [
            (StripReason::UnimportantPosition, "unimportant positions"),
            (StripReason::UnmappedBone, "of unmapped bones"),
            (StripReason::Separated, "moved to companion clips"),
            (StripReason::NotBoneTransform, "not bone transforms"),
            (StripReason::AtRest, "at rest"),
        ];
        let parts: Vec<String> = reasons
            .iter()
            .filter_map(|(r, what)| {
                let n = t
                    .clips
                    .iter()
                    .flat_map(|c| &c.removed)
                    .filter(|x| x.reason == *r)
                    .count();
                (n > 0).then(|| format!("{n} {what}"))
            })
            .collect();
        let clips = t.clips.iter().filter(|c| !c.removed.is_empty()).count();
        writeln!(
            w,
            "  tracks: removed {} from {} ({})",
            count(t.removed_tracks, "channel", "channels"),
            count(clips, "clip", "clips"),
            parts.join(", ")
        )?;
    }
    if !t.companions.is_empty() {
        writeln!(
            w,
            "  added {} (`.unmapped`)",
            count(t.companions.len(), "companion clip", "companion clips")
        )?;
    }
    for warn in &t.warnings {
        let names: Vec<&str> = warn
            .bones
            .iter()
            .chain(&warn.clips)
            .map(String::as_str)
            .collect();
        writeln!(
            w,
            "  warning [{}]: {}: {}",
            warn.code,
            warn.message,
            names.join(", ")
        )?;
    }
    Ok(())
}

/// The text summary of `retarget`: the source, target and output of `file` (its report as read
/// and written) and what the readers noticed, then the plan of `r`, its warnings, and the
/// measures of each new clip.
pub fn retarget_text(
    w: &mut dyn Write,
    file: &FileReport,
    r: &RetargetReport,
) -> std::io::Result<()> {
    let target = file.target.as_deref().unwrap_or_default();
    writeln!(w, "{} → {target} → {}", file.input, output(file))?;
    for warn in &file.warnings {
        writeln!(w, "warning [{}]: {}", warn.code.as_str(), warn.message)?;
    }
    let plan = &r.plan;
    let (what, a, b) = plan.compared_lengths();
    writeln!(
        w,
        "skeleton `{}` → `{}`: {what} {a:.3} → {b:.3} (ratio {:.3}), {} chains",
        r.source_skeleton,
        r.target_skeleton,
        plan.hips_ratio,
        plan.chains.len()
    )?;
    for warn in &r.plan.warnings {
        let code = warn.code.as_str();
        writeln!(w, "  warning [{code}]: {}", warn.message)?;
    }
    for c in &r.clips {
        write!(
            w,
            "clip `{}` → `{}`: {}",
            c.source_clip,
            c.clip,
            count(c.frames, "frame", "frames")
        )?;
        match (&c.replaced, &c.clashed_with) {
            (Some(old), _) => write!(w, " (replaced the target's `{old}`)")?,
            (None, Some(kept)) => write!(w, " (the target's `{kept}` kept)")?,
            (None, None) => {}
        }
        if let Some(m) = &c.measured {
            write!(w, "; {}", retarget_measures(m))?;
        }
        writeln!(w)?;
    }
    Ok(())
}

/// A retargeted clip's measures in words: directions per segment (math.md, on the final
/// output) and the segments not measured, the worst chain end and its mapping, feet, skate in
/// leg lengths over the source's contacts and bone lengths; a figure that was not measured is
/// `n/a` with its reason.
fn retarget_measures(m: &RetargetCheck) -> String {
    let ends = match &m.worst_end {
        Some(e) => format!("ends {:.2}° ({}: {})", e.end_deg, e.chain, e.mapping),
        None => "ends n/a (no chain end measured)".into(),
    };
    let feet: Vec<&EffectorCheck> = m
        .effectors
        .iter()
        .filter(|e| e.bone.ends_with("Foot"))
        .collect();
    let foot_error = match feet.iter().filter_map(|e| e.max_error).reduce(f32::max) {
        Some(x) => format!("feet within {:.2}% of height", x * 100.0),
        None => "feet n/a".into(),
    };
    // Feet measured where the FK pass put them, the IK pass off or unavailable.
    let fk: Vec<&str> = feet
        .iter()
        .filter(|e| e.max_error.is_some() && !e.ik)
        .map(|e| e.bone.as_str())
        .collect();
    let no_ik = match fk.len() {
        0 => None,
        n if n == feet.iter().filter(|e| e.max_error.is_some()).count() => {
            Some("no leg IK".to_string())
        }
        _ => Some(format!("no leg IK on {}", fk.join(", "))),
    };
    let foot_na: Vec<(&str, NotMeasured)> = feet
        .iter()
        .filter_map(|e| Some((e.bone.as_str(), e.reason?)))
        .collect();
    let treadmill = m.treadmill.as_ref().map_or(String::new(), |t| {
        format!(
            "; over its treadmill ({:.3}% of leg length a frame) {}",
            t.speed * 100.0,
            skates(&t.skate, None)
        )
    });
    format!(
        "{}; chain {ends}, beyond the rests' own difference; {}, skate in % of leg length per frame over \
         the source's contacts {}{treadmill}; bone lengths kept within {:.1e}{}",
        directions(m),
        with_reasons(foot_error, no_ik, &foot_na),
        skates(&m.skate, None),
        m.length_drift,
        m.ops.as_ref().map_or(String::new(), |o| ops_measures(m, o))
    )
}

/// math.md's direction error in words: `directions over 20 segments mean 0.41°, worst 10.40°
/// (LeftLowerLeg); not measured: LeftFoot, RightFoot (its tail not mapped in the source)`.
fn directions(m: &RetargetCheck) -> String {
    let worst = m
        .segments
        .iter()
        .reduce(|a, b| if b.worst_deg > a.worst_deg { b } else { a });
    let mut out = match worst {
        Some(w) => format!(
            "directions over {} mean {:.2}°, worst {:.2}° ({})",
            count(m.segments.len(), "segment", "segments"),
            m.segments.iter().map(|g| g.mean_deg).sum::<f32>() / m.segments.len() as f32,
            w.worst_deg,
            w.bone
        ),
        None => "directions n/a (no segment measured on both sides)".into(),
    };
    let mut groups: Vec<(SegmentReason, Vec<&str>)> = Vec::new();
    for g in &m.segments_not_measured {
        match groups.iter_mut().find(|(r, _)| *r == g.reason) {
            Some((_, bones)) => bones.push(&g.bone),
            None => groups.push((g.reason, vec![&g.bone])),
        }
    }
    if !groups.is_empty() {
        let why: Vec<String> = groups
            .iter()
            .map(|(r, bones)| format!("{} ({})", bones.join(", "), r.message()))
            .collect();
        out.push_str(&format!("; not measured: {}", why.join("; ")));
    }
    out
}

/// Each foot's skate in words, in % of its side's leg length per frame over the source's
/// contacts: `LeftFoot 0.245 → 0.270, RightFoot no contact`; `without` (the core passes') put
/// before the stack's: `LeftFoot 0.245 → 0.300 → 0.270 (source → core passes → stack)`.
fn skates(with: &[SkateCheck], without: Option<&[SkateCheck]>) -> String {
    let per: Vec<String> = with
        .iter()
        .enumerate()
        .map(|(k, sk)| match (sk.source, sk.target, sk.reason) {
            (Some(a), Some(b), _) => {
                let core = without
                    .and_then(|w| w.get(k)?.target)
                    .map_or(String::new(), |c| format!("{:.3} → ", c * 100.0));
                format!("{} {:.3} → {core}{:.3}", sk.bone, a * 100.0, b * 100.0)
            }
            (Some(a), None, Some(r)) => {
                format!("{} {:.3} → n/a ({})", sk.bone, a * 100.0, r.message())
            }
            (_, _, Some(NotMeasured::NoContactInSource)) => format!("{} no contact", sk.bone),
            (_, _, r) => format!(
                "{} n/a ({})",
                sk.bone,
                r.map_or("not measured", |r| r.message())
            ),
        })
        .collect();
    per.join(", ")
}

/// What the ops after the core passes changed, in words: `; ops: skate LeftFoot 0.649 →
/// 0.578 → 0.492, … (source → core passes → stack), legs mean 0.40° worst 2.00° → mean 1.10°
/// worst 7.80° (LeftLowerLeg), frames below the floor 3 (0.120%) → 0`.
fn ops_measures(m: &RetargetCheck, o: &OpsCheck) -> String {
    let floor = |f: &FloorCheck| match f.frames_below {
        0 => "0".to_string(),
        n => format!("{n} ({:.3}%)", f.worst_depth * 100.0),
    };
    let mirror = o.mirror.as_ref().map_or(String::new(), |r| {
        let [x, y, z] = r.normal;
        format!(
            "; mirrored across the plane with normal ({x:.3}, {y:.3}, {z:.3}), {} pairs, joints \
             within {:.1e} of the height of their counterparts' reflections (measures above: \
             without the mirror)",
            r.pairs, r.joint_error
        )
    });
    let contacts = o
        .contacts
        .as_ref()
        .and_then(|c| c.curves())
        .map_or(String::new(), |[l, r]| {
            format!("; planted on the contacts of curves `{l}` and `{r}`")
        });
    let legs = o
        .legs
        .as_ref()
        .map_or("legs n/a (no thigh or shin measured)".into(), |l| {
            format!(
                "legs (thighs, shins) mean {:.2}° worst {:.2}° → mean {:.2}° worst {:.2}° ({})",
                l.mean_deg_without, l.worst_deg_without, l.mean_deg, l.worst_deg, l.worst_bone
            )
        });
    format!(
        "; ops: skate {} (source → core passes → stack), {legs}, frames below the floor {} → \
         {}{contacts}{mirror}",
        skates(&m.skate, Some(&o.skate_without)),
        floor(&o.floor_without),
        floor(&o.floor)
    )
}

/// `figures` followed by `note` and why some are n/a: `(LeftFoot, RightFoot not mapped in the
/// target)`, the reasons prefixed `n/a: ` when `figures` itself shows no `n/a`.
fn with_reasons(figures: String, note: Option<String>, na: &[(&str, NotMeasured)]) -> String {
    if na.is_empty() {
        return match note {
            Some(n) => format!("{figures} ({n})"),
            None => figures,
        };
    }
    let mut groups: Vec<(NotMeasured, Vec<&str>)> = Vec::new();
    for &(bone, reason) in na {
        match groups.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, bones)) => bones.push(bone),
            None => groups.push((reason, vec![bone])),
        }
    }
    let why: Vec<String> = groups
        .iter()
        .map(|(r, bones)| format!("{} {}", bones.join(", "), r.message()))
        .collect();
    let prefix = if figures.contains("n/a") { "" } else { "n/a: " };
    let note = note.map(|n| format!("{n}; ")).unwrap_or_default();
    format!("{figures} ({note}{prefix}{})", why.join("; "))
}

/// The text form of one skeleton's map (also used by `inspect`).
pub fn map_text(w: &mut dyn Write, r: &MapReport) -> std::io::Result<()> {
    let total = r.bones.len() + r.unmapped_profile.len();
    writeln!(
        w,
        "\nskeleton `{}` → profile `{}`: {}/{} bones mapped",
        r.skeleton,
        r.profile,
        r.bones.len(),
        total
    )?;
    let width = r.bones.keys().map(|k| k.chars().count()).max().unwrap_or(0);
    for (name, m) in &r.bones {
        writeln!(
            w,
            "  {name:width$}  ← {}  ({:.2}, {})",
            m.source, m.confidence, m.reason
        )?;
    }
    if !r.unmapped_profile.is_empty() {
        writeln!(w, "  not mapped: {}", r.unmapped_profile.join(", "))?;
    }
    if !r.unmapped_source.is_empty() {
        writeln!(
            w,
            "  source bones left over: {}",
            r.unmapped_source.join(", ")
        )?;
    }
    for warn in &r.warnings {
        let code = warn.code.as_str();
        writeln!(w, "  warning [{code}]: {}", warn.message)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::retarget::{ChainCheck, ChainMapping, SkateCheck, WorstEnd};

    fn foot(bone: &str, max_error: Option<f32>, ik: bool) -> EffectorCheck {
        EffectorCheck {
            bone: bone.into(),
            max_error,
            reason: max_error
                .is_none()
                .then_some(NotMeasured::NotMappedInTarget),
            ik,
        }
    }

    fn check(feet: [EffectorCheck; 2], chains: Vec<ChainCheck>) -> RetargetCheck {
        let skate = feet
            .iter()
            .map(|f| SkateCheck {
                bone: f.bone.clone(),
                source: f.max_error.map(|_| 0.01),
                target: f.max_error.map(|_| 0.02),
                contact_pairs: if f.max_error.is_some() { 4 } else { 0 },
                reason: f.reason,
            })
            .collect();
        RetargetCheck {
            frames: 2,
            chains,
            worst_end: None,
            segments: Vec::new(),
            segments_not_measured: Vec::new(),
            effectors: feet.into(),
            skate,
            length_drift: 0.0,
            ops: None,
            treadmill: None,
        }
    }

    /// A one-bone chain with no tail: nothing measured.
    fn head() -> ChainCheck {
        ChainCheck {
            chain: "Head".into(),
            source_chain: "Head".into(),
            bones: (1, 1),
            target_mapping: ChainMapping::default(),
            source_mapping: ChainMapping::default(),
            bones_deg: None,
            end_deg: None,
            span_deg: None,
            rest_deg: None,
            measured: false,
        }
    }

    #[test]
    fn figures_not_measured_are_na_with_the_reason() {
        let m = check(
            [
                foot("LeftFoot", None, false),
                foot("RightFoot", None, false),
            ],
            vec![head()],
        );
        let text = retarget_measures(&m);
        assert!(
            text.contains("feet n/a (LeftFoot, RightFoot not mapped in the target)"),
            "{text}"
        );
        assert!(
            text.contains(
                "skate in % of leg length per frame over the source's contacts LeftFoot n/a (not \
                 mapped in the target), RightFoot n/a (not mapped in the target)"
            ),
            "{text}"
        );
        assert!(
            text.contains("directions n/a") && text.contains("ends n/a"),
            "{text}"
        );
        assert!(!text.contains("0.00%"), "{text}");
    }

    #[test]
    fn feet_placed_without_ik_say_so() {
        let mut m = check(
            [
                foot("LeftFoot", Some(0.05), false),
                foot("RightFoot", None, false),
            ],
            vec![head()],
        );
        m.worst_end = Some(WorstEnd {
            chain: "RightLittle".into(),
            end_deg: 86.7,
            mapping: "2 of 3 bones mapped in the target, no RightLittleDistal".into(),
        });
        let text = retarget_measures(&m);
        assert!(
            text.contains(
                "feet within 5.00% of height (no leg IK; n/a: RightFoot not mapped in the target)"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "ends 86.70° (RightLittle: 2 of 3 bones mapped in the target, no RightLittleDistal)"
            ),
            "{text}"
        );
        m.effectors[0].ik = true;
        let text = retarget_measures(&m);
        assert!(!text.contains("no leg IK"), "{text}");
    }
}
