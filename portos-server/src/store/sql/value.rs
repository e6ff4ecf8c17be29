//! The values that cross between Rust and either engine: what a parameter
//! binds ([`ToSql`] gives a [`ValueRef`]) and what a column reads
//! ([`FromSql`] takes one). The five kinds are SQLite's storage classes;
//! PostgreSQL's typed columns map onto them (`sql::postgres`).

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

/// A value borrowed from a parameter or a row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ValueRef<'a> {
    Null,
    Integer(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
}

/// An owned value (dynamic parameter lists, such as a ledger query's
/// filters).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl Value {
    pub fn as_ref(&self) -> ValueRef<'_> {
        match self {
            Value::Null => ValueRef::Null,
            Value::Integer(value) => ValueRef::Integer(*value),
            Value::Real(value) => ValueRef::Real(*value),
            Value::Text(value) => ValueRef::Text(value),
            Value::Blob(value) => ValueRef::Blob(value),
        }
    }
}

impl From<ValueRef<'_>> for Value {
    fn from(value: ValueRef<'_>) -> Value {
        match value {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(value) => Value::Integer(value),
            ValueRef::Real(value) => Value::Real(value),
            ValueRef::Text(value) => Value::Text(value.to_owned()),
            ValueRef::Blob(value) => Value::Blob(value.to_owned()),
        }
    }
}

/// Why a value could not be bound or read as the type asked for.
#[derive(Debug, thiserror::Error)]
pub enum ConversionError {
    #[error("a {found} value cannot be read as {wanted}")]
    WrongKind {
        found: &'static str,
        wanted: &'static str,
    },
    #[error("{0} is out of range for {1}")]
    OutOfRange(String, &'static str),
    #[error("{0}")]
    Other(String),
}

impl ValueRef<'_> {
    pub fn kind(&self) -> &'static str {
        match self {
            ValueRef::Null => "null",
            ValueRef::Integer(_) => "integer",
            ValueRef::Real(_) => "real",
            ValueRef::Text(_) => "text",
            ValueRef::Blob(_) => "blob",
        }
    }

    fn wrong(&self, wanted: &'static str) -> ConversionError {
        ConversionError::WrongKind {
            found: self.kind(),
            wanted,
        }
    }
}

/// What a parameter binds as.
pub trait ToSql {
    fn to_sql(&self) -> Result<ValueRef<'_>, ConversionError>;
}

/// What a column reads as.
pub trait FromSql: Sized {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, ConversionError>;
}

impl<T: ToSql + ?Sized> ToSql for &T {
    fn to_sql(&self) -> Result<ValueRef<'_>, ConversionError> {
        (**self).to_sql()
    }
}

impl<T: ToSql> ToSql for Option<T> {
    fn to_sql(&self) -> Result<ValueRef<'_>, ConversionError> {
        match self {
            Some(value) => value.to_sql(),
            None => Ok(ValueRef::Null),
        }
    }
}

impl ToSql for str {
    fn to_sql(&self) -> Result<ValueRef<'_>, ConversionError> {
        Ok(ValueRef::Text(self))
    }
}

macro_rules! text_to_sql {
    ($($ty:ty),*) => {$(
        impl ToSql for $ty {
            fn to_sql(&self) -> Result<ValueRef<'_>, ConversionError> {
                Ok(ValueRef::Text(self.as_ref()))
            }
        }
    )*};
}
text_to_sql!(String, Box<str>, Arc<str>, Rc<str>, Cow<'_, str>);

impl ToSql for [u8] {
    fn to_sql(&self) -> Result<ValueRef<'_>, ConversionError> {
        Ok(ValueRef::Blob(self))
    }
}

impl ToSql for Vec<u8> {
    fn to_sql(&self) -> Result<ValueRef<'_>, ConversionError> {
        Ok(ValueRef::Blob(self))
    }
}

impl ToSql for Value {
    fn to_sql(&self) -> Result<ValueRef<'_>, ConversionError> {
        Ok(self.as_ref())
    }
}

impl ToSql for ValueRef<'_> {
    fn to_sql(&self) -> Result<ValueRef<'_>, ConversionError> {
        Ok(*self)
    }
}

impl ToSql for bool {
    fn to_sql(&self) -> Result<ValueRef<'_>, ConversionError> {
        Ok(ValueRef::Integer(i64::from(*self)))
    }
}

impl ToSql for f64 {
    fn to_sql(&self) -> Result<ValueRef<'_>, ConversionError> {
        Ok(ValueRef::Real(*self))
    }
}

impl ToSql for f32 {
    fn to_sql(&self) -> Result<ValueRef<'_>, ConversionError> {
        Ok(ValueRef::Real(f64::from(*self)))
    }
}

macro_rules! integer_sql {
    ($($ty:ty),*) => {$(
        impl ToSql for $ty {
            fn to_sql(&self) -> Result<ValueRef<'_>, ConversionError> {
                i64::try_from(*self)
                    .map(ValueRef::Integer)
                    .map_err(|_| ConversionError::OutOfRange(self.to_string(), "a 64-bit integer"))
            }
        }

        impl FromSql for $ty {
            fn from_sql(value: ValueRef<'_>) -> Result<Self, ConversionError> {
                match value {
                    ValueRef::Integer(integer) => <$ty>::try_from(integer)
                        .map_err(|_| ConversionError::OutOfRange(integer.to_string(), stringify!($ty))),
                    other => Err(other.wrong(stringify!($ty))),
                }
            }
        }
    )*};
}
integer_sql!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl<T: FromSql> FromSql for Option<T> {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, ConversionError> {
        match value {
            ValueRef::Null => Ok(None),
            value => T::from_sql(value).map(Some),
        }
    }
}

impl FromSql for bool {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, ConversionError> {
        match value {
            ValueRef::Integer(integer) => Ok(integer != 0),
            other => Err(other.wrong("bool")),
        }
    }
}

impl FromSql for f64 {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, ConversionError> {
        match value {
            ValueRef::Real(real) => Ok(real),
            // SQLite keeps a whole REAL as an integer when it can, as
            // does an aggregate over integers.
            #[expect(clippy::cast_precision_loss, reason = "as SQLite itself reads it")]
            ValueRef::Integer(integer) => Ok(integer as f64),
            other => Err(other.wrong("f64")),
        }
    }
}

impl FromSql for f32 {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, ConversionError> {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "a f32 column is read as one"
        )]
        f64::from_sql(value).map(|real| real as f32)
    }
}

impl FromSql for String {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, ConversionError> {
        match value {
            ValueRef::Text(text) => Ok(text.to_owned()),
            other => Err(other.wrong("text")),
        }
    }
}

impl FromSql for Box<str> {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, ConversionError> {
        String::from_sql(value).map(String::into_boxed_str)
    }
}

impl FromSql for Arc<str> {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, ConversionError> {
        match value {
            ValueRef::Text(text) => Ok(Arc::from(text)),
            other => Err(other.wrong("text")),
        }
    }
}

impl FromSql for Vec<u8> {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, ConversionError> {
        match value {
            ValueRef::Blob(blob) => Ok(blob.to_owned()),
            ValueRef::Text(text) => Ok(text.as_bytes().to_owned()),
            other => Err(other.wrong("blob")),
        }
    }
}

impl FromSql for Value {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, ConversionError> {
        Ok(Value::from(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_keep_their_range_and_reals_read_integers() {
        assert_eq!(u8::from_sql(ValueRef::Integer(255)).expect("fits"), 255);
        assert!(u8::from_sql(ValueRef::Integer(256)).is_err());
        assert!(u64::MAX.to_sql().is_err());
        assert!((f64::from_sql(ValueRef::Integer(3)).expect("reads") - 3.0).abs() < f64::EPSILON);
        assert!(String::from_sql(ValueRef::Integer(3)).is_err());
        assert_eq!(
            Option::<String>::from_sql(ValueRef::Null).expect("null"),
            None
        );
        assert!(bool::from_sql(ValueRef::Integer(1)).expect("bool"));
    }
}
