//! The PostgreSQL side of [`Connection`](super::Connection): statements
//! rewritten to `$n` parameters and compiled once, values bound as the type
//! the server inferred for each parameter, columns read back as the five
//! kinds SQLite has.

use std::cell::RefCell;
use std::collections::HashMap;

use bytes::{BufMut, BytesMut};
use postgres::types::{IsNull, Type, to_sql_checked};
use postgres::{Client, Row, Statement};

use super::{ConversionError, Error, Result, ValueRef};

/// Statements kept per connection before the cache starts over (queries
/// built from filters are many, but finitely many).
const STATEMENT_CACHE: usize = 512;

pub(super) struct PgConnection {
    client: RefCell<Client>,
    statements: RefCell<HashMap<String, Statement>>,
    /// Statements without parameters held back to go out in one round trip
    /// with the next thing sent (`BEGIN`, `SAVEPOINT`, `RELEASE`, `SET
    /// LOCAL`): a write call's transaction is mostly these, each once a
    /// round trip of its own.
    pending: RefCell<String>,
}

impl PgConnection {
    pub(super) fn connect(url: &str) -> Result<PgConnection> {
        let client = super::tls::connect(url)?;
        Ok(PgConnection {
            client: RefCell::new(client),
            statements: RefCell::new(HashMap::new()),
            pending: RefCell::new(String::new()),
        })
    }

    pub(super) fn is_closed(&self) -> bool {
        self.client.borrow().is_closed()
    }

    /// `sql` compiled (once per connection). Where the server cannot infer
    /// a parameter's type (`?1 IS NULL OR …` asks it first), the value bound
    /// this time decides it; a null, which says nothing, is tried as text,
    /// then as a real, then as an integer, until the statement compiles.
    pub(super) fn prepared(&self, sql: &str, values: &[ValueRef<'_>]) -> Result<Statement> {
        if let Some(statement) = self.statements.borrow().get(sql) {
            return Ok(statement.clone());
        }
        let numbered = super::numbered_parameters(sql);
        let mut hints: Vec<Type> = Vec::new();
        // The other types the latest hint may take (a null's).
        let mut null_guesses: Vec<Type> = Vec::new();
        let statement = loop {
            let prepared = self.client.borrow_mut().prepare_typed(&numbered, &hints);
            match prepared {
                Ok(statement) => break statement,
                Err(error) => match undetermined_parameter(&error) {
                    Some(index) if index >= hints.len() && index < values.len() => {
                        hints.resize(index, Type::UNKNOWN);
                        null_guesses.clear();
                        hints.push(match values[index] {
                            ValueRef::Integer(_) => Type::INT8,
                            ValueRef::Real(_) => Type::FLOAT8,
                            ValueRef::Blob(_) => Type::BYTEA,
                            ValueRef::Text(_) => Type::TEXT,
                            ValueRef::Null => {
                                null_guesses = vec![Type::FLOAT8, Type::INT8];
                                Type::TEXT
                            }
                        });
                    }
                    _ => match (null_guesses.pop(), hints.last_mut()) {
                        (Some(guess), Some(last)) => *last = guess,
                        _ => return Err(error.into()),
                    },
                },
            }
        };
        let mut statements = self.statements.borrow_mut();
        if statements.len() >= STATEMENT_CACHE {
            statements.clear();
        }
        statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    /// Runs `sql` (statements without parameters), after what is held back,
    /// in one round trip.
    pub(super) fn batch(&self, sql: &str) -> Result<()> {
        let pending = self.pending.take();
        let mut client = self.client.borrow_mut();
        if pending.is_empty() {
            Ok(client.batch_execute(sql)?)
        } else {
            Ok(client.batch_execute(&format!("{pending}; {sql}"))?)
        }
    }

    /// Holds `sql` back to go out with the next thing sent.
    pub(super) fn defer(&self, sql: &str) {
        let mut pending = self.pending.borrow_mut();
        if !pending.is_empty() {
            pending.push_str("; ");
        }
        pending.push_str(sql);
    }

    /// Takes `sql` back if it is the last thing held back (it never went
    /// out, and neither did anything after it): whether it was.
    pub(super) fn take_back(&self, sql: &str) -> bool {
        let mut pending = self.pending.borrow_mut();
        let Some(before) = pending.strip_suffix(sql) else {
            return false;
        };
        let kept = if before.is_empty() {
            0
        } else if let Some(before) = before.strip_suffix("; ") {
            before.len()
        } else {
            return false;
        };
        pending.truncate(kept);
        true
    }

    /// Drops what is held back; whether it held a `BEGIN` (then the
    /// transaction never reached the server).
    pub(super) fn discard(&self) -> bool {
        self.pending.take().starts_with("BEGIN")
    }

    /// Sends what is held back, before a statement with parameters.
    fn flush(&self) -> Result<()> {
        let pending = self.pending.take();
        if !pending.is_empty() {
            self.client.borrow_mut().batch_execute(&pending)?;
        }
        Ok(())
    }

    pub(super) fn execute(&self, sql: &str, values: &[ValueRef<'_>]) -> Result<usize> {
        refuse_nul(values)?;
        self.flush()?;
        let statement = &self.prepared(sql, values)?;
        let changed = self
            .client
            .borrow_mut()
            .execute(statement, &parameters(values))?;
        Ok(usize::try_from(changed).unwrap_or(usize::MAX))
    }

    pub(super) fn query(&self, sql: &str, values: &[ValueRef<'_>]) -> Result<Vec<Row>> {
        refuse_nul(values)?;
        self.flush()?;
        let statement = &self.prepared(sql, values)?;
        Ok(self
            .client
            .borrow_mut()
            .query(statement, &parameters(values))?)
    }
}

/// The values as the client's parameters.
fn parameters<'v>(values: &'v [ValueRef<'_>]) -> Vec<&'v (dyn postgres::types::ToSql + Sync)> {
    values
        .iter()
        .map(|value| value as &(dyn postgres::types::ToSql + Sync))
        .collect()
}

type BoxError = Box<dyn std::error::Error + Sync + Send>;

/// A value binds to a parameter of whatever type the server inferred for
/// it: a whole number to any integer, real or boolean column, text to text
/// or JSON, as SQLite would store it.
impl postgres::types::ToSql for ValueRef<'_> {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        match (*self, ty) {
            (ValueRef::Null, _) => Ok(IsNull::Yes),
            (ValueRef::Integer(integer), &Type::INT8) => integer.to_sql(ty, out),
            (ValueRef::Integer(integer), &Type::INT4) => i32::try_from(integer)?.to_sql(ty, out),
            (ValueRef::Integer(integer), &Type::INT2) => i16::try_from(integer)?.to_sql(ty, out),
            (ValueRef::Integer(integer), &Type::BOOL) => (integer != 0).to_sql(ty, out),
            #[expect(
                clippy::cast_precision_loss,
                reason = "as SQLite stores it in a REAL column"
            )]
            (ValueRef::Integer(integer), &Type::FLOAT8) => (integer as f64).to_sql(ty, out),
            (ValueRef::Integer(integer), ty) if is_text(ty) => {
                integer.to_string().as_str().to_sql(ty, out)
            }
            (ValueRef::Real(real), &Type::FLOAT8) => real.to_sql(ty, out),
            #[expect(clippy::cast_possible_truncation, reason = "a FLOAT4 column")]
            (ValueRef::Real(real), &Type::FLOAT4) => (real as f32).to_sql(ty, out),
            (ValueRef::Real(real), ty) if is_text(ty) => real.to_string().as_str().to_sql(ty, out),
            (ValueRef::Text(text), ty) if is_text(ty) => text.to_sql(ty, out),
            (ValueRef::Text(text), &Type::JSON) => {
                out.put_slice(text.as_bytes());
                Ok(IsNull::No)
            }
            (ValueRef::Text(text), &Type::JSONB) => {
                // JSONB's binary form: a version byte, then the text.
                out.put_u8(1);
                out.put_slice(text.as_bytes());
                Ok(IsNull::No)
            }
            (ValueRef::Blob(blob), &Type::BYTEA) => blob.to_sql(ty, out),
            (value, ty) => Err(Box::new(ConversionError::Other(format!(
                "a {} value cannot be bound to a {ty} parameter",
                value.kind()
            )))),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

fn is_text(ty: &Type) -> bool {
    matches!(
        *ty,
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN
    )
}

/// Column `index` of `row` as one of SQLite's kinds.
pub(super) fn column(row: &Row, index: usize) -> Result<ValueRef<'_>> {
    let Some(column) = row.columns().get(index) else {
        return Err(Error::Column {
            column: index,
            source: ConversionError::Other(format!("the row has {} columns", row.len())),
        });
    };
    let ty = column.type_();
    let value = match *ty {
        Type::INT8 => row.try_get::<_, Option<i64>>(index)?.map(ValueRef::Integer),
        Type::INT4 => row
            .try_get::<_, Option<i32>>(index)?
            .map(|integer| ValueRef::Integer(integer.into())),
        Type::INT2 => row
            .try_get::<_, Option<i16>>(index)?
            .map(|integer| ValueRef::Integer(integer.into())),
        Type::BOOL => row
            .try_get::<_, Option<bool>>(index)?
            .map(|flag| ValueRef::Integer(flag.into())),
        Type::FLOAT8 => row.try_get::<_, Option<f64>>(index)?.map(ValueRef::Real),
        Type::FLOAT4 => row
            .try_get::<_, Option<f32>>(index)?
            .map(|real| ValueRef::Real(real.into())),
        Type::BYTEA => row.try_get::<_, Option<&[u8]>>(index)?.map(ValueRef::Blob),
        ref ty if is_text(ty) => row.try_get::<_, Option<&str>>(index)?.map(ValueRef::Text),
        ref other => {
            return Err(Error::Column {
                column: index,
                source: ConversionError::Other(format!(
                    "a {other} column has no SQLite kind (cast it in the query)"
                )),
            });
        }
    };
    Ok(value.unwrap_or(ValueRef::Null))
}

/// The 0-based parameter whose type the server could not determine.
fn undetermined_parameter(error: &postgres::Error) -> Option<usize> {
    let message = error.as_db_error()?.message();
    let number = message.strip_prefix("could not determine data type of parameter $")?;
    number.parse::<usize>().ok()?.checked_sub(1)
}

/// The server's own message with its detail, or the connection's error.
/// PostgreSQL's text cannot hold U+0000: such a value is the request's
/// fault, said before the statement is sent.
fn refuse_nul(values: &[ValueRef<'_>]) -> Result<()> {
    if values
        .iter()
        .any(|value| matches!(value, ValueRef::Text(text) if text.contains('\0')))
    {
        return Err(Error::NulInText);
    }
    Ok(())
}

pub(super) fn describe(error: &postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => match db.detail() {
            Some(detail) => format!("{} ({detail})", db.message()),
            None => db.message().to_owned(),
        },
        // The client library's own words, then why (a TLS handshake's
        // reason, say: which certificate did not verify).
        None => {
            let mut described = error.to_string();
            let mut cause = std::error::Error::source(error);
            while let Some(reason) = cause {
                let text = reason.to_string();
                if !described.contains(&text) {
                    described = format!("{described}: {text}");
                }
                cause = reason.source();
            }
            described
        }
    }
}

/// A lost or refused connection, not a statement the server turned down.
pub(super) fn is_unavailable(error: &postgres::Error) -> bool {
    if error.is_closed() {
        return true;
    }
    match error.code() {
        // Class 08: connection exception; 57P01-03: the server shutting
        // down or not yet accepting connections.
        Some(code) => {
            let code = code.code();
            code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03")
        }
        // No SQLSTATE: the socket, not the server, answered.
        None => error.as_db_error().is_none(),
    }
}

/// Listens on `channel` at `url`: `heard` gets `None` once listening
/// began, then each notification's payload, until the connection fails
/// (the error) or `heard` answers false.
pub(crate) fn listen(
    url: &str,
    channel: &str,
    mut heard: impl FnMut(Option<&str>) -> bool,
) -> Result<()> {
    use postgres::fallible_iterator::FallibleIterator as _;
    let mut client = super::tls::connect(url)?;
    client.batch_execute(&format!("LISTEN {channel}"))?;
    if !heard(None) {
        return Ok(());
    }
    loop {
        {
            let mut notifications = client.notifications();
            let mut waiting = notifications.timeout_iter(std::time::Duration::from_secs(5));
            while let Some(notification) = waiting.next()? {
                if !heard(Some(notification.payload())) {
                    return Ok(());
                }
            }
        }
        // Idle: a connection the database dropped is found out by using it.
        client.batch_execute("SELECT 1")?;
    }
}
