//! Notes an output's top-level `ok` and `state` while serde writes it, so
//! normalization (docs/reference.md#result-envelope: `ok: false` or
//! `state: "failed"` make a call failed) need not read the text back. A typed
//! output is a struct in nearly every tool, and serde hands a struct's fields
//! to the serializer one by one with their names: watching those two names
//! costs a string comparison per field. Anything else (a map, an enum, a
//! newtype) is not watched, and normalization reads the text instead.

use std::cell::Cell;

use serde::ser::{Serialize, SerializeStruct, Serializer};
use serde_json::Value;

/// What the top level of an output said, as far as normalization cares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TopFields {
    /// The top level was written as a struct (so: a JSON object) and watched.
    watched: bool,
    ok_seen: u8,
    state_seen: u8,
    ok_false: bool,
    state_failed: bool,
}

impl TopFields {
    /// `Some(failed)` when the watch is conclusive; `None` when the output
    /// was not a struct, or named `ok` or `state` twice (a hand-written
    /// `Serialize` can; the text then decides, where the last one wins).
    pub(crate) fn failed(self) -> Option<bool> {
        (self.watched && self.ok_seen <= 1 && self.state_seen <= 1)
            .then_some(self.ok_false || self.state_failed)
    }
}

/// `value` serialized with its top-level fields noted in `fields`.
pub(crate) struct Watched<'a, T: ?Sized> {
    pub(crate) value: &'a T,
    pub(crate) fields: &'a Cell<TopFields>,
}

impl<T: Serialize + ?Sized> Serialize for Watched<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(Watching {
            inner: serializer,
            fields: self.fields,
        })
    }
}

/// The top-level serializer: a struct is watched, everything else is
/// handed to the inner serializer untouched.
struct Watching<'a, S> {
    inner: S,
    fields: &'a Cell<TopFields>,
}

/// A method that only forwards to the inner serializer.
macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        $(fn $method(self, $($arg: $ty),*) -> Result<$ret, S::Error> {
            self.inner.$method($($arg),*)
        })*
    };
}

impl<'a, S: Serializer> Serializer for Watching<'a, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = S::SerializeSeq;
    type SerializeTuple = S::SerializeTuple;
    type SerializeTupleStruct = S::SerializeTupleStruct;
    type SerializeTupleVariant = S::SerializeTupleVariant;
    type SerializeMap = S::SerializeMap;
    type SerializeStruct = WatchingStruct<'a, S::SerializeStruct>;
    type SerializeStructVariant = S::SerializeStructVariant;

    forward! {
        serialize_bool(v: bool) -> S::Ok;
        serialize_i8(v: i8) -> S::Ok;
        serialize_i16(v: i16) -> S::Ok;
        serialize_i32(v: i32) -> S::Ok;
        serialize_i64(v: i64) -> S::Ok;
        serialize_i128(v: i128) -> S::Ok;
        serialize_u8(v: u8) -> S::Ok;
        serialize_u16(v: u16) -> S::Ok;
        serialize_u32(v: u32) -> S::Ok;
        serialize_u64(v: u64) -> S::Ok;
        serialize_u128(v: u128) -> S::Ok;
        serialize_f32(v: f32) -> S::Ok;
        serialize_f64(v: f64) -> S::Ok;
        serialize_char(v: char) -> S::Ok;
        serialize_str(v: &str) -> S::Ok;
        serialize_bytes(v: &[u8]) -> S::Ok;
        serialize_none() -> S::Ok;
        serialize_unit() -> S::Ok;
        serialize_unit_struct(name: &'static str) -> S::Ok;
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str) -> S::Ok;
        serialize_seq(len: Option<usize>) -> S::SerializeSeq;
        serialize_tuple(len: usize) -> S::SerializeTuple;
        serialize_tuple_struct(name: &'static str, len: usize) -> S::SerializeTupleStruct;
        serialize_tuple_variant(name: &'static str, index: u32, variant: &'static str, len: usize) -> S::SerializeTupleVariant;
        serialize_map(len: Option<usize>) -> S::SerializeMap;
        serialize_struct_variant(name: &'static str, index: u32, variant: &'static str, len: usize) -> S::SerializeStructVariant;
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.inner.serialize_some(value)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.inner.serialize_newtype_struct(name, value)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.inner
            .serialize_newtype_variant(name, index, variant, value)
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        let inner = self.inner.serialize_struct(name, len)?;
        // serde_json writes a `RawValue` (text passed through) as a struct
        // with a private name: its text, not its one field, is the output.
        if !name.starts_with("$serde_json::") {
            let mut fields = self.fields.get();
            fields.watched = true;
            self.fields.set(fields);
        }
        Ok(WatchingStruct {
            inner,
            fields: self.fields,
        })
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// The top-level struct's fields: `ok` and `state` are noted on the way.
pub(crate) struct WatchingStruct<'a, S> {
    inner: S,
    fields: &'a Cell<TopFields>,
}

impl<S: SerializeStruct> SerializeStruct for WatchingStruct<'_, S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), S::Error> {
        // Each value is also written on its own (`to_value`): a bool costs no
        // allocation, and a `state` is a short string only some tools have.
        match key {
            "ok" => {
                let mut fields = self.fields.get();
                fields.ok_seen = fields.ok_seen.saturating_add(1);
                fields.ok_false = matches!(serde_json::to_value(value), Ok(Value::Bool(false)));
                self.fields.set(fields);
            }
            "state" => {
                let mut fields = self.fields.get();
                fields.state_seen = fields.state_seen.saturating_add(1);
                fields.state_failed = matches!(serde_json::to_value(value), Ok(Value::String(state)) if state == "failed");
                self.fields.set(fields);
            }
            _ => {}
        }
        self.inner.serialize_field(key, value)
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), S::Error> {
        self.inner.skip_field(key)
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.inner.end()
    }
}
