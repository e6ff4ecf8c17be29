//! Encryption to the database, asked for in its URL the way libpq asks for
//! it: `sslmode=require` (or `prefer`, `verify-ca`, `verify-full`) and,
//! optionally, `sslrootcert=/path/to/ca.pem`. rustls (on ring) verifies the
//! server's certificate chain and name whenever TLS is used, so every mode
//! that uses it is what libpq calls `verify-full`. The roots are the
//! certificates of `sslrootcert`, or else the system's. Without `sslmode`
//! (or with `disable`) the connection is plain, as before.

use std::sync::Arc;

use postgres::{Client, NoTls};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject as _;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{Error, Result};

/// Connects to the server at `url`, over TLS if the URL asks for it.
pub(super) fn connect(url: &str) -> Result<Client> {
    let target = Target::parse(url);
    match target.tls {
        None => Ok(Client::connect(&target.url, NoTls)?),
        Some(roots) => {
            let config = client_config(roots)?;
            Ok(Client::connect(
                &target.url,
                MakeRustlsConnect::new(config),
            )?)
        }
    }
}

/// As [`connect`], for the asynchronous client (the call ledger's hot
/// statements): the connection is driven by a task of its own on the
/// current runtime, and ends with it.
pub(crate) async fn connect_async(url: &str) -> Result<tokio_postgres::Client> {
    let target = Target::parse(url);
    let config: tokio_postgres::Config = target.url.parse()?;
    Ok(match target.tls {
        None => {
            let (client, connection) = config.connect(tokio_postgres::NoTls).await?;
            tokio::spawn(connection);
            client
        }
        Some(roots) => {
            let tls = MakeRustlsConnect::new(client_config(roots)?);
            let (client, connection) = config.connect(tls).await?;
            tokio::spawn(connection);
            client
        }
    })
}

/// Where the certificates that vouch for the server come from.
#[derive(Debug, PartialEq, Eq)]
enum Roots {
    /// The PEM file given as `sslrootcert`.
    File(String),
    /// The system's certificate store.
    System,
}

/// A URL as the client library reads it (libpq's TLS words turned into
/// its own: `verify-ca` and `verify-full` are `require`, `allow` is
/// `disable`; `sslrootcert` taken out), and the roots, if TLS may be used.
#[derive(Debug, PartialEq, Eq)]
struct Target {
    url: String,
    tls: Option<Roots>,
}

impl Target {
    fn parse(url: &str) -> Target {
        let Some((base, query)) = url.split_once('?') else {
            return Target {
                url: url.to_owned(),
                tls: None,
            };
        };
        let (mut mode, mut root_file) = (None, None);
        let mut kept = form_urlencoded::Serializer::new(String::new());
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            match key.as_ref() {
                "sslrootcert" => root_file = Some(value.into_owned()),
                "sslmode" => {
                    let word = match value.as_ref() {
                        "verify-ca" | "verify-full" => "require",
                        "allow" => "disable",
                        other => other,
                    };
                    mode = Some(word.to_owned());
                    kept.append_pair("sslmode", word);
                }
                _ => {
                    kept.append_pair(&key, &value);
                }
            }
        }
        let query = kept.finish();
        let tls = match mode.as_deref() {
            None | Some("disable") => None,
            Some(_) => Some(root_file.map_or(Roots::System, Roots::File)),
        };
        Target {
            url: if query.is_empty() {
                base.to_owned()
            } else {
                format!("{base}?{query}")
            },
            tls,
        }
    }
}

fn client_config(roots: Roots) -> Result<rustls::ClientConfig> {
    let mut store = rustls::RootCertStore::empty();
    match &roots {
        Roots::File(path) => {
            let certificates = CertificateDer::pem_file_iter(path)
                .and_then(|certificates| certificates.collect::<std::result::Result<Vec<_>, _>>())
                .map_err(|error| {
                    Error::Tls(format!(
                        "cannot read the certificates of sslrootcert {path}: {error}"
                    ))
                })?;
            for certificate in certificates {
                store.add(certificate).map_err(|error| {
                    Error::Tls(format!(
                        "a certificate of sslrootcert {path} is unusable: {error}"
                    ))
                })?;
            }
        }
        Roots::System => {
            // Unreadable entries are skipped, as every TLS client does.
            let found = rustls_native_certs::load_native_certs();
            store.add_parsable_certificates(found.certs);
        }
    }
    if store.is_empty() {
        return Err(Error::Tls(match roots {
            Roots::File(path) => format!("sslrootcert {path} holds no certificate"),
            Roots::System => "the system has no root certificates to verify the database's; give sslrootcert=/path/to/ca.pem".to_owned(),
        }));
    }
    rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|error| Error::Tls(error.to_string()))
        .map(|builder| builder.with_root_certificates(store).with_no_client_auth())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(url: &str) -> (String, Option<Roots>) {
        let target = Target::parse(url);
        (target.url, target.tls)
    }

    #[test]
    fn without_sslmode_the_url_is_untouched_and_plain() {
        for url in [
            "postgres://u@h/db",
            "postgres://u@h/db?connect_timeout=5",
            "postgres://u@h/db?sslmode=disable",
        ] {
            assert_eq!(parsed(url), (url.to_owned(), None));
        }
    }

    #[test]
    fn libpq_words_become_the_client_library_s() {
        assert_eq!(
            parsed("postgres://u@h/db?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem"),
            (
                "postgres://u@h/db?sslmode=require".to_owned(),
                Some(Roots::File("/etc/ca.pem".to_owned()))
            )
        );
        assert_eq!(
            parsed("postgres://u@h/db?sslrootcert=/ca.pem&sslmode=require&application_name=portos"),
            (
                "postgres://u@h/db?sslmode=require&application_name=portos".to_owned(),
                Some(Roots::File("/ca.pem".to_owned()))
            )
        );
        assert_eq!(
            parsed("postgres://u@h/db?sslmode=prefer"),
            (
                "postgres://u@h/db?sslmode=prefer".to_owned(),
                Some(Roots::System)
            )
        );
        assert_eq!(
            parsed("postgres://u@h/db?sslmode=allow"),
            ("postgres://u@h/db?sslmode=disable".to_owned(), None)
        );
    }

    #[test]
    fn a_root_file_that_is_not_there_is_named() {
        let refused =
            client_config(Roots::File("/nonexistent/ca.pem".to_owned())).expect_err("no such file");
        assert!(
            refused.to_string().contains("/nonexistent/ca.pem"),
            "{refused}"
        );
    }
}
