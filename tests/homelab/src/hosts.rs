//! The lab's hosts: the model, the rules an address follows, and all of the
//! SQL over the `lab_hosts` table, which this crate declares where its SQL
//! lives (`store_schema!`), so any server that links the crate migrates it.

use std::net::IpAddr;

use portos_server::store::Schema;
use portos_server::store::sql::{Connection, OptionalExtension, Row, params};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

portos_server::store_schema!(
    /// The lab's hosts, one row each, keyed by their lowercase name.
    LAB = Schema {
        component: "homelab",
        migrations: &["CREATE TABLE IF NOT EXISTS lab_hosts (
            name     TEXT PRIMARY KEY,
            address  TEXT NOT NULL,
            role     TEXT NOT NULL,
            added_at TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS lab_hosts_role ON lab_hosts (role, name);"],
    }
);

/// What a host does in the lab.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    #[default]
    Server,
    Router,
    Switch,
    AccessPoint,
    Nas,
    Printer,
    Camera,
    Other,
}

impl Role {
    pub const ALL: [Role; 8] = [
        Role::Server,
        Role::Router,
        Role::Switch,
        Role::AccessPoint,
        Role::Nas,
        Role::Printer,
        Role::Camera,
        Role::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Server => "server",
            Role::Router => "router",
            Role::Switch => "switch",
            Role::AccessPoint => "access-point",
            Role::Nas => "nas",
            Role::Printer => "printer",
            Role::Camera => "camera",
            Role::Other => "other",
        }
    }

    fn parse(text: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|role| role.as_str() == text)
    }
}

/// One host of the lab.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Host {
    /// Its name in the lab, lowercase (e.g. `nas-01`).
    pub name: String,
    /// An IPv4 or IPv6 address, or a DNS name.
    pub address: String,
    pub role: Role,
    /// When it was added (RFC 3339).
    pub added_at: String,
}

/// A host name is one DNS label: letters, digits and `-`, not at either end.
pub const NAME_PATTERN: &str = r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$";
/// The characters an address can hold at all (the schema's first filter;
/// [`check_address`] then checks its structure).
pub const ADDRESS_PATTERN: &str = r"^[A-Za-z0-9.:-]+$";

/// The address as stored (an IP address in its canonical form, a DNS name in
/// lowercase), or why it is not one.
pub fn check_address(address: &str) -> Result<String, String> {
    let address = address.trim();
    if let Ok(ip) = address.parse::<IpAddr>() {
        return Ok(ip.to_string());
    }
    let name = address.strip_suffix('.').unwrap_or(address);
    let labels_ok = !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        });
    // `10.0.0.300` is a mistyped IPv4 address, not a host called `300`.
    let all_numeric = name
        .split('.')
        .all(|label| label.bytes().all(|b| b.is_ascii_digit()));
    if labels_ok && !all_numeric {
        Ok(name.to_ascii_lowercase())
    } else {
        Err(format!(
            "`{address}` is neither an IP address nor a DNS name"
        ))
    }
}

fn host(row: &Row<'_>) -> portos_server::store::sql::Result<Host> {
    let role: String = row.get(2)?;
    Ok(Host {
        name: row.get(0)?,
        address: row.get(1)?,
        // Only this module writes the table, with `Role::as_str`.
        role: Role::parse(&role).unwrap_or(Role::Other),
        added_at: row.get(3)?,
    })
}

/// The hosts by name, all of them or those of one role.
pub fn list(
    connection: &Connection,
    role: Option<Role>,
) -> portos_server::store::sql::Result<Vec<Host>> {
    let mut statement = connection.prepare_cached(
        "SELECT name, address, role, added_at FROM lab_hosts
         WHERE ?1 IS NULL OR role = ?1 ORDER BY name",
    )?;
    statement
        .query_map(params![role.map(Role::as_str)], host)?
        .collect()
}

/// One host by its (lowercase) name.
pub fn find(
    connection: &Connection,
    name: &str,
) -> portos_server::store::sql::Result<Option<Host>> {
    connection
        .query_row(
            "SELECT name, address, role, added_at FROM lab_hosts WHERE name = ?1",
            [name],
            host,
        )
        .optional()
}

/// Adds `new`; when a host of that name exists, nothing changes and the
/// existing host is returned instead.
pub fn insert(
    connection: &Connection,
    new: &Host,
) -> portos_server::store::sql::Result<Result<(), Host>> {
    let added = connection.execute(
        "INSERT INTO lab_hosts (name, address, role, added_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (name) DO NOTHING",
        params![new.name, new.address, new.role.as_str(), new.added_at],
    )?;
    if added == 1 {
        return Ok(Ok(()));
    }
    Ok(Err(
        find(connection, &new.name)?.unwrap_or_else(|| new.clone())
    ))
}

/// Removes a host by its (lowercase) name; the removed host, if there was one.
pub fn remove(
    connection: &mut Connection,
    name: &str,
) -> portos_server::store::sql::Result<Option<Host>> {
    let transaction = connection.transaction()?;
    let existing = find(&transaction, name)?;
    if existing.is_some() {
        transaction.execute("DELETE FROM lab_hosts WHERE name = ?1", [name])?;
    }
    transaction.commit()?;
    Ok(existing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_ip_addresses_or_dns_names() {
        assert_eq!(check_address("192.168.1.20"), Ok("192.168.1.20".to_owned()));
        assert_eq!(check_address("FE80::0:1"), Ok("fe80::1".to_owned()));
        assert_eq!(check_address("NAS.lan."), Ok("nas.lan".to_owned()));
        for bad in ["", "10.0.0.300", "-nas.lan", "nas..lan", "a b", "1.2.3"] {
            assert!(check_address(bad).is_err(), "{bad:?} is accepted");
        }
    }

    #[test]
    fn the_table_keeps_hosts_by_name() {
        let mut connection = Connection::open_in_memory().expect("memory db");
        connection
            .execute_batch(LAB.migrations[0])
            .expect("migrated");
        let nas = Host {
            name: "nas".to_owned(),
            address: "10.0.0.2".to_owned(),
            role: Role::Nas,
            added_at: "2026-01-01T00:00:00Z".to_owned(),
        };
        let router = Host {
            name: "gw".to_owned(),
            role: Role::Router,
            ..nas.clone()
        };
        assert_eq!(insert(&connection, &nas).expect("insert"), Ok(()));
        assert_eq!(insert(&connection, &router).expect("insert"), Ok(()));
        let again = Host {
            address: "10.0.0.9".to_owned(),
            ..nas.clone()
        };
        assert_eq!(
            insert(&connection, &again).expect("insert"),
            Err(nas.clone())
        );
        let names: Vec<String> = list(&connection, None)
            .expect("list")
            .into_iter()
            .map(|host| host.name)
            .collect();
        assert_eq!(names, ["gw", "nas"]);
        assert_eq!(
            list(&connection, Some(Role::Nas)).expect("list"),
            std::slice::from_ref(&nas)
        );
        assert_eq!(remove(&mut connection, "nas").expect("remove"), Some(nas));
        assert_eq!(remove(&mut connection, "nas").expect("remove"), None);
    }
}
