//! The profile file format's validation into a [`Profile`].

use super::spec::{BoneSpec, ProfileFile, TailSpec};
use super::{Chain, Prefixes, Profile, ProfileBone, ProfileBoneId, Tail};
use crate::model::Transform;
use glam::{Quat, Vec3};
use std::collections::{HashMap, HashSet};

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_lowercase).collect()
}

impl ProfileFile {
    /// Checks every rule and builds the profile, or returns every problem found:
    /// 1. bone names are unique and not empty;
    /// 2. a parent exists and comes before its child; there is at least one bone;
    /// 3. rotations are unit quaternions (within 1e-3) and origins finite;
    /// 4. tails, roll lines, root and scale base name existing bones; a tail bone descends from its
    ///    bone, and a roll line joins two different bones at or below it;
    /// 5. chains are non-empty paths down the tree with unique names;
    /// 6. name weights lie in 0..=1 and prefix patterns are valid regexes.
    pub fn validate(&self) -> Result<Profile, Vec<String>> {
        let mut problems = Vec::new();
        let (mut bones, index) = self.read_bones(&mut problems);
        let root = self
            .root
            .as_deref()
            .and_then(|r| index.lookup(r, "root", &mut problems));
        let scale_base = self
            .scale_base
            .as_deref()
            .and_then(|r| index.lookup(r, "scale_base", &mut problems));
        let parents: Vec<Option<ProfileBoneId>> = bones.iter().map(|b| b.parent).collect();
        self.resolve_tails(&mut bones, &index, &parents, &mut problems);
        self.resolve_rolls(&mut bones, &index, &parents, &mut problems);
        let chains = self.read_chains(&bones, &index, &parents, &mut problems);
        let prefixes = Prefixes::compile(&self.naming.prefixes, &mut problems);
        if !problems.is_empty() {
            return Err(problems);
        }
        let synonym_rules = self.synonym_rules();
        let vocabulary = self.vocabulary(&bones, &synonym_rules);
        Ok(Profile {
            name: self.name.clone(),
            root,
            scale_base,
            mapper: self.mapper,
            bones,
            chains,
            naming: self.naming.clone(),
            prefixes,
            synonym_rules,
            vocabulary,
        })
    }

    /// Rules 1, 2, 3 and the name weights of rule 6, bone by bone: the bones with their parents
    /// and references (tails and rolls not resolved yet), and the index of their names.
    fn read_bones(&self, problems: &mut Vec<String>) -> (Vec<ProfileBone>, Index<'_>) {
        let mut index = Index(HashMap::new());
        let mut bones: Vec<ProfileBone> = Vec::with_capacity(self.bones.len());
        if self.bones.is_empty() {
            problems.push("profile has no bones".into());
        }
        for (i, b) in self.bones.iter().enumerate() {
            check_name(i, b, &index, problems);
            let parent = self.parent(b, &index, problems);
            let reference = reference(b, problems);
            check_name_weights(b, problems);
            index
                .0
                .entry(b.name.as_str())
                .or_insert(ProfileBoneId(i as u32));
            bones.push(ProfileBone {
                name: b.name.clone(),
                parent,
                group: b.group.clone(),
                required: b.required,
                side: b.side,
                tail: Tail::Average,
                reference,
                names: b.names.iter().map(|(p, w)| (words(p), *w)).collect(),
                roll: Vec::new(),
                keep_pitch: b.keep_pitch,
            });
        }
        (bones, index)
    }

    /// Rule 2: `b`'s parent, which must be among the bones before it (`index`).
    fn parent(
        &self,
        b: &BoneSpec,
        index: &Index,
        problems: &mut Vec<String>,
    ) -> Option<ProfileBoneId> {
        let p = b.parent.as_ref()?;
        match index.0.get(p.as_str()) {
            Some(&id) => Some(id),
            None => {
                let why = if self.bones.iter().any(|o| &o.name == p) {
                    "comes after it"
                } else {
                    "does not exist"
                };
                problems.push(format!("bone `{}`: parent `{p}` {why}", b.name));
                None
            }
        }
    }

    /// Rule 4 for tails: a tail bone exists and descends from its bone (else the average).
    fn resolve_tails(
        &self,
        bones: &mut [ProfileBone],
        index: &Index,
        parents: &[Option<ProfileBoneId>],
        problems: &mut Vec<String>,
    ) {
        for (i, b) in self.bones.iter().enumerate() {
            bones[i].tail = match &b.tail {
                TailSpec::Average => Tail::Average,
                TailSpec::End => Tail::End,
                TailSpec::Bone(t) => {
                    match index.lookup(t, &format!("bone `{}`: tail", b.name), problems) {
                        Some(id) if descends(parents, id, ProfileBoneId(i as u32)) => {
                            Tail::Bone(id)
                        }
                        Some(_) => {
                            problems.push(format!("bone `{}`: tail `{t}` is not below it", b.name));
                            Tail::Average
                        }
                        None => Tail::Average,
                    }
                }
            };
        }
    }

    /// Rule 4 for roll lines: both ends exist, differ, and lie at or below their bone.
    fn resolve_rolls(
        &self,
        bones: &mut [ProfileBone],
        index: &Index,
        parents: &[Option<ProfileBoneId>],
        problems: &mut Vec<String>,
    ) {
        for (i, b) in self.bones.iter().enumerate() {
            for (from, to) in &b.roll {
                let what = format!("bone `{}`: roll", b.name);
                let ends = (
                    index.lookup(from, &what, problems),
                    index.lookup(to, &what, problems),
                );
                if let (Some(f), Some(t)) = ends {
                    let me = ProfileBoneId(i as u32);
                    let below = |x: ProfileBoneId| x == me || descends(parents, x, me);
                    if f == t || !below(f) || !below(t) {
                        problems.push(format!(
                            "{what}: `{from}` and `{to}` must be two different bones at or below it"
                        ));
                    } else {
                        bones[i].roll.push((f, t));
                    }
                }
            }
        }
    }

    /// Rule 5: the chains, each a non-empty path down the tree under a unique name.
    fn read_chains(
        &self,
        bones: &[ProfileBone],
        index: &Index,
        parents: &[Option<ProfileBoneId>],
        problems: &mut Vec<String>,
    ) -> Vec<Chain> {
        let mut chains = Vec::with_capacity(self.chains.len());
        for (k, c) in self.chains.iter().enumerate() {
            if self.chains[..k].iter().any(|o| o.name == c.name) {
                problems.push(format!("chain `{}` is listed twice", c.name));
            }
            if c.bones.is_empty() {
                problems.push(format!("chain `{}` has no bones", c.name));
            }
            let what = format!("chain `{}`", c.name);
            let ids: Vec<ProfileBoneId> = c
                .bones
                .iter()
                .filter_map(|n| index.lookup(n, &what, problems))
                .collect();
            if ids.len() == c.bones.len() {
                for w in ids.windows(2) {
                    if !descends(parents, w[1], w[0]) {
                        problems.push(format!(
                            "chain `{}`: `{}` is not below `{}`",
                            c.name,
                            bones[w[1].index()].name,
                            bones[w[0].index()].name
                        ));
                    }
                }
            }
            chains.push(Chain {
                name: c.name.clone(),
                bones: ids,
            });
        }
        chains
    }

    /// The synonym rules as words, longest first (empty ones dropped).
    fn synonym_rules(&self) -> Vec<(Vec<String>, Vec<String>)> {
        let mut synonym_rules: Vec<(Vec<String>, Vec<String>)> = self
            .naming
            .synonyms
            .iter()
            .map(|(a, b)| (words(a), words(b)))
            .filter(|(a, _)| !a.is_empty())
            .collect();
        synonym_rules.sort_by_key(|r| std::cmp::Reverse(r.0.len()));
        synonym_rules
    }

    /// Every word the profile knows: bone names, synonyms, palm, helper, end and secondary words.
    fn vocabulary(
        &self,
        bones: &[ProfileBone],
        synonym_rules: &[(Vec<String>, Vec<String>)],
    ) -> HashSet<String> {
        let n = &self.naming;
        bones
            .iter()
            .flat_map(|b| b.names.iter().flat_map(|(p, _)| p.iter().cloned()))
            .chain(
                synonym_rules
                    .iter()
                    .flat_map(|(a, b)| a.iter().chain(b).cloned()),
            )
            .chain(
                n.palm
                    .iter()
                    .chain(&n.helpers)
                    .chain(&n.ends)
                    .chain(&n.secondary)
                    .cloned(),
            )
            .collect()
    }
}

/// Bone names to ids, for the bones read so far (the first of two equal names wins).
struct Index<'a>(HashMap<&'a str, ProfileBoneId>);

impl Index<'_> {
    /// The bone named `name`, or `None` and the problem "`what`: bone `name` does not exist".
    fn lookup(&self, name: &str, what: &str, problems: &mut Vec<String>) -> Option<ProfileBoneId> {
        let id = self.0.get(name).copied();
        if id.is_none() {
            problems.push(format!("{what}: bone `{name}` does not exist"));
        }
        id
    }
}

/// Whether `d` is a strict descendant of `a` in the tree given by `parents`.
fn descends(parents: &[Option<ProfileBoneId>], d: ProfileBoneId, a: ProfileBoneId) -> bool {
    let mut at = parents[d.index()];
    while let Some(p) = at {
        if p == a {
            return true;
        }
        at = parents[p.index()];
    }
    false
}

/// Rule 1: bone `i`'s name is not empty and not taken by a bone before it.
fn check_name(i: usize, b: &BoneSpec, index: &Index, problems: &mut Vec<String>) {
    if b.name.trim().is_empty() {
        problems.push(format!("bone {i} has an empty name"));
    }
    if index.0.contains_key(b.name.as_str()) {
        problems.push(format!("bone `{}` is listed twice", b.name));
    }
}

/// Rule 3: the bone's reference transform; its rotation must be a unit quaternion (within 1e-3,
/// normalized, or the identity when unusable) and its origin finite.
fn reference(b: &BoneSpec, problems: &mut Vec<String>) -> Transform {
    let (x, y, z, w) = b.rotation;
    let q = Quat::from_xyzw(x, y, z, w);
    if !q.is_finite() || (q.length() - 1.0).abs() > 1e-3 {
        problems.push(format!(
            "bone `{}`: rotation is not a unit quaternion",
            b.name
        ));
    }
    let o = Vec3::new(b.origin.0, b.origin.1, b.origin.2);
    if !o.is_finite() {
        problems.push(format!("bone `{}`: origin is not finite", b.name));
    }
    Transform {
        translation: o,
        rotation: if q.is_finite() && q.length() > 0.5 {
            q.normalize()
        } else {
            Quat::IDENTITY
        },
        scale: Vec3::ONE,
    }
}

/// Rule 6 for name weights: each name phrase has words and a weight in 0..=1.
fn check_name_weights(b: &BoneSpec, problems: &mut Vec<String>) {
    for (phrase, weight) in &b.names {
        if !(0.0..=1.0).contains(weight) || phrase.split_whitespace().next().is_none() {
            problems.push(format!(
                "bone `{}`: name `{phrase}` needs words and a weight in 0..=1",
                b.name
            ));
        }
    }
}
