//! The items of a JSON array and the members of a JSON object, as their text: serde_json's
//! [`RawValue`] borrowed from checked text (`lazy.rs`), none of it parsed into a `Value` (issue
//! 19). Keys are borrowed too, so an object with a key written with escapes is not split
//! (`None`): the text held so has none.

use serde::de::{Deserializer as _, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// The items of the array `text` (its whole text), each item's text; `None` when `text` is no
/// array.
pub(crate) fn items(text: &[u8]) -> Option<Vec<&[u8]>> {
    let items: Vec<&RawValue> = serde_json::from_slice(text).ok()?;
    Some(items.into_iter().map(|v| v.get().as_bytes()).collect())
}

/// The members of the object `text` (its whole text), each key and its value's text; `None`
/// when `text` is no object (or a key has escapes).
pub(crate) fn members(text: &[u8]) -> Option<Vec<(&str, &[u8])>> {
    serde_json::Deserializer::from_slice(text)
        .deserialize_map(Members)
        .ok()
}

/// The value of the first member `key` of the object `text` (its whole text); `None` when it
/// has none or `text` is no object.
pub(crate) fn member<'t>(text: &'t [u8], key: &str) -> Option<&'t [u8]> {
    let [value] = fields(text, [key]);
    value
}

/// The values of the first members `keys` of the object `text` (its whole text): what
/// [`member`] finds of each key.
pub(crate) fn fields<'t, const N: usize>(text: &'t [u8], keys: [&str; N]) -> [Option<&'t [u8]>; N] {
    let members = members(text).unwrap_or_default();
    keys.map(|key| members.iter().find(|(k, _)| *k == key).map(|(_, v)| *v))
}

/// The value `text` (checked JSON) as `Value::as_u64` reads it parsed.
pub(crate) fn as_u64(text: &[u8]) -> Option<u64> {
    serde_json::from_slice::<serde_json::Value>(text)
        .ok()?
        .as_u64()
}

/// An object's members, keys and values borrowed.
struct Members;

impl<'de> Visitor<'de> for Members {
    type Value = Vec<(&'de str, &'de [u8])>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        // Room for the members of most glTF objects, grown no more.
        let mut out = Vec::with_capacity(8);
        while let Some((key, value)) = map.next_entry::<&str, &RawValue>()? {
            out.push((key, value.get().as_bytes()));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_u64s_as_serde_json_does() {
        for (text, n) in [
            ("0", Some(0)),
            ("18446744073709551615", Some(u64::MAX)),
            ("18446744073709551616", None),
            ("-0", None),
            ("-3", None),
            ("1.0", None),
            ("1e2", None),
            ("\"5\"", None),
            ("[1]", None),
        ] {
            assert_eq!(as_u64(text.as_bytes()), n, "{text}");
        }
    }

    #[test]
    fn finds_items_and_members() {
        let text = br#" { "a" : [ 1 , "a]" , {"x":[1,{"}":"{"}]} ], "b":{}, "a":2, "c" : -1e-7 } "#;
        let m = members(text).expect("an object");
        let keys: Vec<&str> = m.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["a", "b", "a", "c"]);
        assert_eq!(m[3].1, b"-1e-7");
        let a = member(text, "a").expect("a member");
        assert_eq!(a, br#"[ 1 , "a]" , {"x":[1,{"}":"{"}]} ]"#);
        assert_eq!(
            fields(text, ["c", "none", "b"]),
            [Some(&b"-1e-7"[..]), None, Some(&b"{}"[..])]
        );
        let items = items(a).expect("an array");
        assert_eq!(items, [&b"1"[..], b"\"a]\"", br#"{"x":[1,{"}":"{"}]}"#]);
        assert_eq!(self::items(b"{}"), None);
        assert_eq!(members(b"[]"), None);
        assert_eq!(members(br#"{"\u0061":1}"#), None);
        assert_eq!(fields(b"1", ["a"]), [None]);
    }
}
