//! A throwaway PostgreSQL cluster for the tests: the Debian package's
//! server, initialised in a temporary directory, listening on a loopback
//! port, stopped when dropped (and, for the one the whole suite shares, by
//! a watchdog when the test process ends).
//!
//! `PORTOS_TEST_ENGINE=postgres` runs the suite on PostgreSQL: every
//! server a test starts gets a database of its own in the shared cluster
//! ([`database_for`]), kept with its data directory so a restarted server
//! finds its data again.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The environment variable that picks the engine of the whole suite.
pub const ENGINE_VARIABLE: &str = "PORTOS_TEST_ENGINE";

/// Whether the suite runs on PostgreSQL.
pub fn suite_on_postgres() -> bool {
    std::env::var(ENGINE_VARIABLE).is_ok_and(|engine| engine == "postgres")
}

/// The cluster the suite shares, started on first use.
pub fn shared() -> &'static PgCluster {
    static SHARED: OnceLock<PgCluster> = OnceLock::new();
    SHARED.get_or_init(|| {
        let cluster = PgCluster::start();
        cluster.watch_this_process();
        cluster
    })
}

/// When the suite runs on PostgreSQL, the `--database-url` a server on
/// `data_dir` uses: a database of its own, created on first use and named
/// in the data directory so a restart finds it.
pub fn database_for(data_dir: &Path) -> Option<String> {
    if !suite_on_postgres() {
        return None;
    }
    let cluster = shared();
    let marker = data_dir.join(".test-database");
    let name = match std::fs::read_to_string(&marker) {
        Ok(name) => name.trim().to_owned(),
        Err(_) => {
            let name = cluster.create_database();
            // A directory that does not exist stays so (a dump must create
            // nothing); its database is then a fresh one each time.
            if data_dir.is_dir() {
                std::fs::write(&marker, &name)
                    .expect("the data directory takes the database's name");
            }
            name
        }
    };
    Some(cluster.url(&name))
}

/// When the suite runs on PostgreSQL, the rows `sql` reads from the
/// database of the server on `data_dir` (one line each, columns separated
/// by `|`); `None` on SQLite.
pub fn query(data_dir: &Path, sql: &str) -> Option<Vec<String>> {
    let url = database_for(data_dir)?;
    let name = url.rsplit('/').next().unwrap_or_default().to_owned();
    let rows = shared().psql(&name, sql);
    Some(rows.lines().map(str::to_owned).collect())
}

/// A PostgreSQL server of the tests' own.
#[derive(Debug)]
pub struct PgCluster {
    dir: tempfile::TempDir,
    port: u16,
    server: Option<Child>,
    /// Whether the server takes TLS (`start_with_tls`).
    tls: bool,
}

impl PgCluster {
    /// `initdb` in a temporary directory, then the server on a free
    /// loopback port; returns once it accepts connections.
    pub fn start() -> PgCluster {
        PgCluster::start_as(false)
    }

    /// A server that also takes TLS, with a certificate for 127.0.0.1
    /// signed by a certificate authority of its own ([`PgCluster::ca_file`]).
    pub fn start_with_tls() -> PgCluster {
        PgCluster::start_as(true)
    }

    fn start_as(tls: bool) -> PgCluster {
        let dir = tempfile::Builder::new()
            .prefix("portos-pg-")
            .tempdir()
            .expect("a temporary directory");
        let data = dir.path().join("data");
        std::fs::create_dir(&data).expect("the cluster's directory");
        hand_to_postgres_user(dir.path());
        hand_to_postgres_user(&data);
        let initdb = as_cluster_owner(&bin("initdb"))
            .args(["--auth=trust", "--username=postgres", "--encoding=UTF8"])
            // A language's collation by default, as most servers have, so
            // the tests show the store's text still sorts byte by byte.
            .args([
                "--locale=C.UTF-8",
                "--locale-provider=icu",
                "--icu-locale=en",
            ])
            .arg("--pgdata")
            .arg(&data)
            .stdout(Stdio::null())
            .output()
            .expect("initdb runs (apt-get install postgresql)");
        assert!(
            initdb.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&initdb.stderr)
        );
        if tls {
            make_certificates(&dir.path().join("tls"));
        }
        let mut cluster = PgCluster {
            port: free_port(),
            dir,
            server: None,
            tls,
        };
        cluster.resume();
        cluster
    }

    /// Starts the server (again) on the same data and port.
    pub fn resume(&mut self) {
        let log = std::fs::File::create(self.dir.path().join("server.log")).expect("a log file");
        let server = as_cluster_owner(&bin("postgres"))
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-c", "listen_addresses=127.0.0.1"])
            .args(["-c", &format!("port={}", self.port)])
            .args([
                "-c",
                &format!("unix_socket_directories={}", self.dir.path().display()),
            ])
            // Many test servers at once, each with its store's connections.
            .args(["-c", "max_connections=400"])
            .args(["-c", "shared_buffers=64MB"])
            .args(self.tls_settings())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("postgres starts");
        self.server = Some(server);
        self.wait_ready();
    }

    /// Stops the server at once (`immediate` shutdown: as if it crashed,
    /// and every connection drops).
    pub fn halt(&mut self) {
        self.stop("immediate");
    }

    /// `pg_ctl stop` in `mode`, then waits for the server (the server runs
    /// under `runuser` as root, which does not pass signals on).
    fn stop(&mut self, mode: &str) {
        if let Some(mut server) = self.server.take() {
            let _ = as_cluster_owner(&bin("pg_ctl"))
                .args(["stop", "-w", "-m", mode, "-D"])
                .arg(self.dir.path().join("data"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let _ = server.wait();
        }
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let ready = Command::new(bin("pg_isready"))
                .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-q"])
                .status()
                .is_ok_and(|status| status.success());
            if ready {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "postgres did not accept connections: {}",
                std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The server's TLS settings, if it takes TLS.
    fn tls_settings(&self) -> Vec<String> {
        if !self.tls {
            return Vec::new();
        }
        let tls = self.dir.path().join("tls");
        vec![
            "-c".to_owned(),
            "ssl=on".to_owned(),
            "-c".to_owned(),
            format!("ssl_cert_file={}", tls.join("server.pem").display()),
            "-c".to_owned(),
            format!("ssl_key_file={}", tls.join("server.key").display()),
        ]
    }

    /// The certificate authority that signed a TLS server's certificate
    /// (PEM), for a client's `sslrootcert`.
    pub fn ca_file(&self) -> std::path::PathBuf {
        self.dir.path().join("tls").join("ca.pem")
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of database `name`.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// A new, empty database; its name.
    pub fn create_database(&self) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "portos_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        self.psql("postgres", &format!("CREATE DATABASE {name}"));
        name
    }

    /// Runs `sql` on database `name` with psql; its output (unaligned,
    /// tuples only).
    pub fn psql(&self, name: &str, sql: &str) -> String {
        let output = Command::new(bin("psql"))
            .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"])
            .arg(self.url(name))
            .args(["-c", sql])
            .output()
            .expect("psql runs");
        assert!(
            output.status.success(),
            "psql {sql:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    /// Stops the server when this process ends, however it ends (a static
    /// is never dropped).
    fn watch_this_process(&self) {
        let Some(server) = &self.server else {
            return;
        };
        // The postmaster's own pid (the child is `runuser` when root).
        let script = format!(
            "while kill -0 {test} 2>/dev/null; do sleep 1; done; \
             kill -INT $(head -n 1 '{dir}/data/postmaster.pid'); \
             while kill -0 {server} 2>/dev/null; do sleep 1; done; rm -rf '{dir}'",
            test = std::process::id(),
            server = server.id(),
            dir = self.dir.path().display()
        );
        let _ = Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        // Fast shutdown: sessions end, nothing is left behind.
        self.stop("fast");
    }
}

/// The PostgreSQL server programs (Debian keeps them out of `PATH`).
fn bin(program: &str) -> PathBuf {
    let newest = std::fs::read_dir("/usr/lib/postgresql")
        .ok()
        .and_then(|versions| {
            versions
                .filter_map(Result::ok)
                .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
                .max()
        });
    match newest {
        Some(version) => PathBuf::from(format!("/usr/lib/postgresql/{version}/bin/{program}")),
        None => PathBuf::from(program),
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout.trim_ascii() == b"0")
}

/// The server refuses to run as root: then it runs as `postgres` (the
/// package's user).
fn as_cluster_owner(program: &Path) -> Command {
    if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// A certificate authority and a server certificate for 127.0.0.1 (P-256
/// keys, two days) in `dir`, made with the `openssl` command; the server's
/// key readable by the cluster's owner only, as PostgreSQL demands.
fn make_certificates(dir: &Path) {
    std::fs::create_dir(dir).expect("the certificates' directory");
    let openssl = |args: &[&str]| {
        let output = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl runs (apt-get install openssl)");
        assert!(
            output.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let key = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    openssl(
        &[
            &["req", "-x509"][..],
            &key,
            &[
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
                "-days",
                "2",
                "-subj",
                "/CN=portos test CA",
            ],
        ]
        .concat(),
    );
    openssl(
        &[
            &["req"][..],
            &key,
            &[
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
                "-subj",
                "/CN=127.0.0.1",
            ],
        ]
        .concat(),
    );
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .expect("the extensions file");
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "server.ext",
    ]);
    for file in ["server.pem", "server.key"] {
        hand_to_postgres_user(&dir.join(file));
    }
    hand_to_postgres_user(dir);
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(
        dir.join("server.key"),
        std::fs::Permissions::from_mode(0o600),
    )
    .expect("the key's mode");
}

fn hand_to_postgres_user(path: &Path) {
    if is_root() {
        let status = Command::new("chown")
            .args(["postgres:postgres"])
            .arg(path)
            .status()
            .expect("chown runs");
        assert!(status.success(), "chown postgres {}", path.display());
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free loopback port")
}

/// `["--database-url", URL]` for a command on `data_dir` when the suite
/// runs on PostgreSQL, else nothing: so a CLI run (`--set-password`, a
/// dump) and the server on the same data directory share one store.
pub fn database_args(data_dir: impl AsRef<Path>) -> Vec<String> {
    database_for(data_dir.as_ref())
        .map(|url| vec!["--database-url".to_owned(), url])
        .unwrap_or_default()
}
