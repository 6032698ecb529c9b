//! A document's JSON held as its text, split into its top-level members, rather than parsed into
//! one `serde_json::Value` tree (issue 19): a member is parsed into a `Value` only when something
//! reads it as one (`asset`, `buffers`, `extensions`…), and written back by transcoding its text
//! (the same tokens through serde_json's deserializer into its serializer: `serde_transcode`),
//! which writes what serializing its `Value` writes. The big arrays (accessors, buffer views,
//! animations) that only the typed document reads are never built as `Value`s.
//!
//! The top-level members are found by serde_json's [`RawValue`] (each member's text, borrowed),
//! and each is checked by a pass of serde_json's own deserializer that accepts what a `Value`
//! parse accepts and nothing else (the same parser, visiting the same tokens, with the depth
//! limit counted from the document) and that builds no tree (it keeps an object's keys only to
//! find one given twice): any text it does not take (a syntax error, a number out of range) is
//! parsed into a `Value` as before, so errors are unchanged. A key is a key: serde_json's
//! `Value` parse, with the `raw_value` feature on, takes an object whose first key is its own
//! private raw-value marker as the value its string holds; the members held as text, typed or
//! transcoded, keep such a key as written (a text that holds one is no glTF file).

use super::buffers::Buffer;
use serde::de::{self, DeserializeSeed, Deserializer as _, MapAccess, SeqAccess, Visitor};
use serde::ser::{self, SerializeMap, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

/// Where a top-level member of a checked JSON text lies in it.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    key: String,
    /// Its value's bytes in the text.
    range: Range<usize>,
    /// Whether no object in it gives a key twice (its `Value` holds such a key once, with the
    /// last value): then transcoding its text writes what serializing its `Value` writes.
    plain: bool,
}

/// Checks `text` and finds its top-level members: `None` when a `Value` parse would refuse it
/// or give anything but an object, for the caller to parse it into a `Value` as before.
pub(crate) fn split(text: &[u8]) -> Option<Vec<Member>> {
    let mut de = serde_json::Deserializer::from_slice(text);
    let found = de.deserialize_map(Top { text }).ok()?;
    de.end().ok()?;
    Some(found)
}

/// Whether `b` is JSON whitespace (space, line feed, tab, carriage return).
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\t' | b'\r')
}

/// The first place at or after `i` in `text` that is not JSON whitespace.
pub(crate) fn skip_space(text: &[u8], mut i: usize) -> usize {
    while text.get(i).copied().is_some_and(is_space) {
        i += 1;
    }
    i
}

/// The top-level object of `text`: its members, each checked ([`Check`]), each key once.
struct Top<'t> {
    text: &'t [u8],
}

impl<'de> Visitor<'de> for Top<'_> {
    type Value = Vec<Member>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<Member>, A::Error> {
        let base = self.text.as_ptr() as usize;
        let mut found = Vec::new();
        let mut keys = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let raw: &RawValue = map.next_value()?;
            let mut twice = false;
            let mut de = serde_json::Deserializer::from_str(raw.get());
            let check = Check {
                keys: &mut keys,
                twice: &mut twice,
                depth: 1,
            };
            check.deserialize(&mut de).map_err(de::Error::custom)?;
            let start = raw.get().as_ptr() as usize - base;
            let member = Member {
                key,
                range: start..start + raw.get().len(),
                plain: !twice,
            };
            // A key given twice keeps its first place and takes its last value (as a `Value` map).
            match found.iter_mut().find(|m: &&mut Member| m.key == member.key) {
                Some(first) => *first = member,
                None => found.push(member),
            }
        }
        Ok(found)
    }
}

/// A key, borrowed from the text when it has no escapes.
pub(crate) struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(s))
    }

    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s.to_string()))
    }
}

/// Visits one value as a `Value` parse does (`deserialize_any`, keys as strings), building
/// nothing; sets `twice` when an object in it gives a key twice. `keys` holds the keys of the
/// objects being visited, innermost last; `depth` is how deep in the document the value lies
/// (a top-level member's is 1).
struct Check<'s, 'de> {
    keys: &'s mut Vec<Cow<'de, str>>,
    twice: &'s mut bool,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Check<'_, 'de> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// Beyond this many keys, an object's keys are told apart by a hash set, not one by one.
const FEW_KEYS: usize = 32;

/// The most arrays and objects serde_json's parser holds open at once (its recursion limit),
/// the document's own object included.
const MAX_DEPTH: usize = 127;

impl Check<'_, '_> {
    /// The depth of the values inside an array or object here, or the error serde_json's
    /// parser of the whole document stops with.
    fn deeper<E: de::Error>(&self) -> Result<usize, E> {
        match self.depth < MAX_DEPTH {
            true => Ok(self.depth + 1),
            false => Err(E::custom("recursion limit exceeded")),
        }
    }
}

impl<'de> Visitor<'de> for Check<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let depth = self.deeper()?;
        while seq
            .next_element_seed(Check {
                keys: &mut *self.keys,
                twice: &mut *self.twice,
                depth,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let depth = self.deeper()?;
        let base = self.keys.len();
        let mut many: Option<HashSet<Cow<'de, str>>> = None;
        while let Some(key) = map.next_key_seed(Key)? {
            let again = match &mut many {
                Some(set) => !set.insert(key),
                None if self.keys[base..].contains(&key) => true,
                None => {
                    self.keys.push(key);
                    if self.keys.len() - base > FEW_KEYS {
                        many = Some(self.keys.drain(base..).collect());
                    }
                    false
                }
            };
            *self.twice |= again;
            map.next_value_seed(Check {
                keys: &mut *self.keys,
                twice: &mut *self.twice,
                depth,
            })?;
        }
        self.keys.truncate(base);
        Ok(())
    }
}

/// A document's JSON: one `Value`, or its text split into members (see the module's text).
#[derive(Debug, Clone)]
pub(crate) enum Json {
    /// Parsed into one `Value`.
    Whole(Value),
    /// Held as its text.
    Lazy(LazyJson),
}

/// A checked JSON text and its top-level members, each parsed when first read.
#[derive(Debug, Clone)]
pub(crate) struct LazyJson {
    text: Buffer,
    members: Vec<Member>,
    values: Vec<OnceLock<Value>>,
}

/// JSON text already checked to parse (by the check of the whole document, which accepts
/// exactly what a `Value` parse accepts), parsed. It cannot fail while that holds; if it ever
/// did, debug builds (the test suite) stop here, and release builds read `null`.
pub(crate) fn parse_checked(text: &[u8]) -> Value {
    let parsed = serde_json::from_slice(text);
    debug_assert!(
        parsed.is_ok(),
        "checked JSON text did not parse: {:?}",
        parsed.as_ref().err()
    );
    parsed.unwrap_or_default()
}

impl LazyJson {
    /// `text`, whose members [`split`] found.
    pub(crate) fn new(text: Buffer, members: Vec<Member>) -> LazyJson {
        let values = members.iter().map(|_| OnceLock::new()).collect();
        LazyJson {
            text,
            members,
            values,
        }
    }

    fn index(&self, key: &str) -> Option<usize> {
        self.members.iter().position(|m| m.key == key)
    }

    fn value(&self, i: usize) -> &Value {
        self.values[i].get_or_init(|| parse_checked(&self.text[self.members[i].range.clone()]))
    }

    /// The member `key`, parsed.
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        self.index(key).map(|i| self.value(i))
    }

    /// The member `key`, parsed (as [`LazyJson::get`]) but not kept: a copy when it was kept.
    pub(crate) fn get_owned(&self, key: &str) -> Option<Value> {
        self.index(key).map(|i| self.owned(i))
    }

    /// Member `i`, parsed but not kept: a copy when it was kept.
    fn owned(&self, i: usize) -> Value {
        match self.values[i].get() {
            Some(v) => v.clone(),
            None => parse_checked(&self.text[self.members[i].range.clone()]),
        }
    }

    /// Whether member `key` has no object with a key given twice.
    pub(crate) fn is_plain(&self, key: &str) -> bool {
        self.index(key).is_some_and(|i| self.members[i].plain)
    }

    /// The text of member `key`.
    pub(crate) fn text_of(&self, key: &str) -> Option<&[u8]> {
        let i = self.index(key)?;
        Some(&self.text[self.members[i].range.clone()])
    }

    /// The whole document as one `Value` (what parsing its text gives).
    pub(crate) fn to_value(&self) -> Value {
        let map = (0..self.members.len())
            .map(|i| (self.members[i].key.clone(), self.value(i).clone()))
            .collect();
        Value::Object(map)
    }

    /// [`LazyJson::to_value`], but member `key` is `instead(key)` when that is some value
    /// (which is not parsed from the text), and the members not parsed yet are parsed afresh
    /// and not kept (those parsed copied).
    pub(crate) fn to_value_owned_but(&self, instead: impl Fn(&str) -> Option<Value>) -> Value {
        let map = (0..self.members.len())
            .map(|i| {
                let key = &self.members[i].key;
                (key.clone(), instead(key).unwrap_or_else(|| self.owned(i)))
            })
            .collect();
        Value::Object(map)
    }

    /// The whole text.
    pub(crate) fn text(&self) -> &[u8] {
        &self.text
    }

    /// Writes member `i` to `map` as `key: value`: its text transcoded when it is plain, else
    /// its `Value`.
    fn serialize_member<M: SerializeMap>(&self, i: usize, map: &mut M) -> Result<(), M::Error> {
        let m = &self.members[i];
        match self.values[i].get() {
            Some(v) => map.serialize_entry(&m.key, v),
            None if m.plain => map.serialize_entry(&m.key, &Transcode(&self.text[m.range.clone()])),
            None => map.serialize_entry(&m.key, self.value(i)),
        }
    }

    /// Serializes the document with the top-level members of `over` (an object) replacing its
    /// own (new ones at the end), and its own member `extra.0` (if it has it) replaced by
    /// `extra.1`: what serializing [`LazyJson::to_value`] so changed writes.
    pub(crate) fn serialize_over<S: Serializer, X: Serialize>(
        &self,
        over: &Value,
        extra: Option<(&str, &X)>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let Some(over) = over.as_object() else {
            return Err(ser::Error::custom("the document is not a JSON object"));
        };
        let added = over.keys().filter(|k| self.index(k).is_none()).count();
        let mut map = s.serialize_map(Some(self.members.len() + added))?;
        for (i, m) in self.members.iter().enumerate() {
            match (over.get(&m.key), extra) {
                (Some(v), _) => map.serialize_entry(&m.key, v)?,
                (None, Some((key, x))) if key == m.key => map.serialize_entry(&m.key, x)?,
                (None, _) => self.serialize_member(i, &mut map)?,
            }
        }
        for (k, v) in over {
            if self.index(k).is_none() {
                map.serialize_entry(k, v)?;
            }
        }
        map.end()
    }
}

impl Json {
    /// Top-level member `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Json::Whole(v) => v.get(key),
            Json::Lazy(l) => l.get(key),
        }
    }

    /// What `Value::pointer` finds (a pointer with at least one token).
    pub(crate) fn pointer(&self, pointer: &str) -> Option<&Value> {
        let l = match self {
            Json::Whole(v) => return v.pointer(pointer),
            Json::Lazy(l) => l,
        };
        let rest = pointer.strip_prefix('/')?;
        let (first, rest) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let key = first.replace("~1", "/").replace("~0", "~");
        l.get(&key)?.pointer(rest)
    }

    /// The text, when it is held split.
    pub(crate) fn as_lazy(&self) -> Option<&LazyJson> {
        match self {
            Json::Lazy(l) => Some(l),
            Json::Whole(_) => None,
        }
    }

    /// The whole document as one `Value`, made from the text's members if need be.
    pub(crate) fn whole_mut(&mut self) -> &mut Value {
        if let Json::Lazy(l) = self {
            *self = Json::Whole(l.to_value());
        }
        match self {
            Json::Whole(v) => v,
            Json::Lazy(_) => unreachable!("the text was parsed whole above"),
        }
    }
}

/// Whether `word` occurs in `text`.
pub(crate) fn contains(text: &[u8], word: &[u8]) -> bool {
    memchr::memmem::find(text, word).is_some()
}

/// A JSON value's text (checked), serialized as the `Value` it parses into would be: its tokens
/// passed from serde_json's parser to the serializer (`serde_transcode`), which is what building
/// the `Value` and serializing it passes on.
pub(crate) struct Transcode<'t>(pub(crate) &'t [u8]);

impl Serialize for Transcode<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serde_transcode::transcode(&mut serde_json::Deserializer::from_slice(self.0), s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits `text` and checks that what the split document gives is what its `Value` gives:
    /// the whole value, each member, and the text written (compact and pretty) with and without
    /// a member replaced. `None` when it is not split (then a `Value` parse is used).
    fn check(text: &str) -> Option<()> {
        let members = split(text.as_bytes())?;
        let value: Value = serde_json::from_str(text).expect("a split text parses");
        let lazy = LazyJson::new(Buffer::from(text.as_bytes().to_vec()), members);
        assert_eq!(lazy.to_value(), value, "{text}");
        let object = value.as_object().expect("an object");
        for (k, v) in object {
            assert_eq!(lazy.get(k), Some(v), "{text}");
        }
        let fresh = || {
            LazyJson::new(
                Buffer::from(text.as_bytes().to_vec()),
                split(text.as_bytes()).unwrap_or_default(),
            )
        };
        for over in [
            serde_json::json!({}),
            serde_json::json!({"buffers": [], "new": 1}),
        ] {
            let mut expected = value.clone();
            for (k, v) in over.as_object().into_iter().flatten() {
                expected[k] = v.clone();
            }
            let out = Out {
                lazy: fresh(),
                over: over.clone(),
            };
            let compact = serde_json::to_vec(&out).expect("written");
            assert_eq!(
                compact,
                serde_json::to_vec(&expected).expect("written"),
                "{text}"
            );
            let pretty = serde_json::to_vec_pretty(&out).expect("written");
            assert_eq!(
                pretty,
                serde_json::to_vec_pretty(&expected).expect("written"),
                "{text}"
            );
        }
        Some(())
    }

    struct Out {
        lazy: LazyJson,
        over: Value,
    }

    impl Serialize for Out {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.lazy
                .serialize_over(&self.over, None::<(&str, &Value)>, s)
        }
    }

    #[test]
    fn a_split_document_reads_and_writes_as_its_value() {
        let split_ones = [
            r#"{}"#,
            r#" { "a" : 1 } "#,
            "{\n\t\"a\":[],\r\n\"b\":{},\"c\":[{}],\"d\":null,\"e\":true,\"f\":false}",
            r#"{"n":[0,-0,-0.0,0.0,1.5e3,-1e-7,18446744073709551615,18446744073709551616,-9223372036854775808,-9223372036854775809,1E2,0.1,3.141592653589793]}"#,
            r#"{"s":"\u00e9\ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t \u0001 é","t":"\u2028"}"#,
            // Keys given twice: first place, last value (at the top and inside).
            r#"{"a":1,"b":2,"a":3}"#,
            r#"{"a":{"x":1,"y":2,"x":3},"b":[{"k":1,"k":[2]}]}"#,
            // Escaped keys inside members, and an escaped key that is a top-level one's name.
            r#"{"a":{"\u0078":1,"x":2},"b":{"\n":1}}"#,
            // A top-level key written with escapes, given twice (once plainly).
            r#"{"\u0061":1,"b":2,"a":3}"#,
            // Many keys in one object (told apart by a set), one given twice.
            &format!(
                "{{\"m\":{{{},\"k3\":0}}}}",
                (0..100)
                    .map(|i| format!("\"k{i}\":{i}"))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            &format!("{{\"deep\":{}1{}}}", "[".repeat(126), "]".repeat(126)),
        ];
        for text in split_ones {
            assert!(check(text).is_some(), "not split: {text}");
        }
    }

    #[test]
    fn what_a_value_parse_refuses_or_cannot_place_is_not_split() {
        let refused = [
            "",
            "[]",
            "1",
            r#""a""#,
            "{",
            r#"{"a":1,}"#,
            r#"{"a":1} x"#,
            r#"{"a":1e400}"#,
            r#"{"a":-1e400}"#,
            r#"{"a":"\ud800"}"#,
            r#"{"a":"\ud800x"}"#,
            "{\"a\":\"\u{1}\"}",
            r#"{"a":"\x"}"#,
            r#"{"a":01}"#,
            r#"{"a":NaN}"#,
            r#"{"a":[1 2]}"#,
            // Deeper than serde_json's limit (128) counted from the document (a member alone
            // may go one deeper).
            &format!("{{\"deep\":{}1{}}}", "[".repeat(127), "]".repeat(127)),
            &format!(
                "{{\"deep\":[{}]}}",
                "{\"a\":".repeat(126) + "1" + &"}".repeat(126)
            ),
        ];
        for text in refused {
            assert!(split(text.as_bytes()).is_none(), "split: {text}");
        }
        let bad_utf8 = b"{\"a\":\"\xff\"}";
        assert!(split(bad_utf8).is_none());
    }

    #[test]
    fn every_fixture_and_asset_reads_and_writes_as_its_value() {
        let mut checked = 0;
        super::super::container::each_fixture_and_asset_json(|path, json| {
            let text = std::str::from_utf8(json).expect("UTF-8");
            check(text).unwrap_or_else(|| panic!("not split: {}", path.display()));
            checked += 1;
        });
        assert!(checked >= 10, "only {checked} documents checked");
    }

    #[test]
    fn words_are_found_anywhere() {
        assert!(contains(b"abcabd", b"abd"));
        assert!(!contains(b"abcab", b"abd"));
        assert!(contains(b"x", b""));
        assert!(!contains(b"", b"x"));
    }
}
