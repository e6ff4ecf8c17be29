//! Where this server may send requests: public unicast addresses, and what
//! the owner allowed besides (address ranges, host names, loopback).

use std::fmt;
use std::net::IpAddr;

use super::ranges::{SpecialRange, special_range};

/// An address range the owner allowed: `192.168.1.0/24`, `fd00::/8`, or one
/// address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cidr {
    network: IpAddr,
    prefix: u8,
}

impl Cidr {
    fn contains(&self, ip: IpAddr) -> bool {
        // An IPv4-mapped IPv6 address is the IPv4 address it carries.
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            IpAddr::V4(_) => ip,
        };
        match (self.network, ip) {
            (IpAddr::V4(network), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(network) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(network), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(network) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

/// One entry of the allow list, as the owner wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Allowed {
    Range(Cidr),
    /// A host name (lowercase, no trailing dot): its addresses, whatever
    /// they are.
    Host(String),
    /// `*.lan`: every name under a domain (not the domain itself).
    Domain(String),
}

/// The outbound policy. The default allows public unicast addresses only;
/// [`OutboundPolicy::allowing`] adds the owner's entries;
/// [`OutboundPolicy::only`] allows its entries and nothing else (what tests
/// run with, so that no request and no name lookup leaves the machine).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboundPolicy {
    allowed: Vec<Allowed>,
    /// Whether public addresses (and the lookup of any name) are allowed.
    public: bool,
    /// Names this server resolves itself, as the owner pinned them (a
    /// `hosts` file for its outbound requests): never looked up, their
    /// addresses judged like any other.
    hosts: Vec<(String, IpAddr)>,
}

impl Default for OutboundPolicy {
    fn default() -> OutboundPolicy {
        OutboundPolicy {
            allowed: Vec::new(),
            public: true,
            hosts: Vec::new(),
        }
    }
}

/// Why a destination is refused: which address, in which range. Its text
/// names the rule, never anything the destination answered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct Refused {
    /// The host as the URL named it, or the address it resolved to.
    pub destination: String,
    /// What the destination is: a special range's kind (`loopback`), or
    /// [`OUTSIDE_ALLOW_LIST`].
    pub kind: &'static str,
    /// The special range it is in; empty for [`OUTSIDE_ALLOW_LIST`].
    pub cidr: &'static str,
}

/// The kind of a destination an allow-list-only policy does not hold.
pub const OUTSIDE_ALLOW_LIST: &str = "outside the allow list";

impl Refused {
    fn new(destination: impl Into<String>, range: SpecialRange) -> Refused {
        Refused {
            destination: destination.into(),
            kind: range.kind,
            cidr: range.cidr,
        }
    }

    fn outside(destination: impl Into<String>) -> Refused {
        Refused {
            destination: destination.into(),
            kind: OUTSIDE_ALLOW_LIST,
            cidr: "",
        }
    }

    fn describe(&self) -> String {
        if self.kind == OUTSIDE_ALLOW_LIST {
            format!(
                "the destination {} is not in this server's outbound allow list, the only destinations it sends requests to",
                self.destination
            )
        } else {
            format!(
                "the destination {} is not a public address ({}: {}); this server sends requests only to public addresses unless its outbound policy allows more",
                self.destination, self.cidr, self.kind
            )
        }
    }

    /// The same refusal, naming the host whose address it was.
    #[must_use]
    pub fn for_host(self, host: &str, ip: IpAddr) -> Refused {
        Refused {
            destination: format!("{host} ({ip})"),
            ..self
        }
    }
}

/// A pinned name that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a pinned host: write a host name and an address, `feeds.lan=192.168.1.20` or `feeds.lan=fd00::20`"
)]
pub struct BadHostEntry(pub String);

/// An allow-list entry that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not an outbound allow entry: write an address range (`192.168.1.0/24`, `fd00::/8`), an address, a host name (`feeds.lan`), a domain (`*.lan`), `loopback` or `none`"
)]
pub struct BadAllowEntry(pub String);

impl OutboundPolicy {
    /// Public unicast addresses only.
    pub fn public_only() -> OutboundPolicy {
        OutboundPolicy::default()
    }

    /// The default widened by `entries`, comma-separated as in a flag:
    /// `192.168.1.0/24,feeds.lan,*.home.arpa,loopback`. Every bad entry is
    /// reported.
    pub fn allowing(entries: &str) -> Result<OutboundPolicy, Vec<BadAllowEntry>> {
        let mut allowed = Vec::new();
        let mut bad = Vec::new();
        for entry in entries.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            match parse_entry(entry) {
                Some(parsed) => allowed.extend(parsed),
                None => bad.push(BadAllowEntry(entry.to_owned())),
            }
        }
        if bad.is_empty() {
            Ok(OutboundPolicy {
                allowed,
                ..OutboundPolicy::default()
            })
        } else {
            Err(bad)
        }
    }

    /// `entries` and nothing else: no public address, and no name the list
    /// does not hold is even looked up.
    pub fn only(entries: &str) -> Result<OutboundPolicy, Vec<BadAllowEntry>> {
        Ok(OutboundPolicy {
            public: false,
            ..OutboundPolicy::allowing(entries)?
        })
    }

    /// Loopback and nothing else: the policy of tests, whose stand-in
    /// servers listen on loopback and which must not reach anything else.
    pub fn loopback_only() -> OutboundPolicy {
        OutboundPolicy {
            allowed: loopback(),
            public: false,
            hosts: Vec::new(),
        }
    }

    /// The same policy with names pinned to addresses, comma-separated as
    /// in a flag: `feeds.lan=192.168.1.20,feeds.lan=fd00::20`. A pinned name
    /// is never looked up; its addresses are judged like any other (so a
    /// pin does not open a refused range: the allow list does). Every bad
    /// entry is reported.
    pub fn with_hosts(self, entries: &str) -> Result<OutboundPolicy, Vec<BadHostEntry>> {
        let mut hosts = self.hosts;
        let mut bad = Vec::new();
        for entry in entries.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let pinned = entry.split_once('=').and_then(|(name, address)| {
                let name = normalized_host(name.trim());
                let address = literal_address(address.trim())?;
                is_host_name(&name).then_some((name, address))
            });
            match pinned {
                Some(pin) if !hosts.contains(&pin) => hosts.push(pin),
                Some(_) => {}
                None => bad.push(BadHostEntry(entry.to_owned())),
            }
        }
        if bad.is_empty() {
            Ok(OutboundPolicy { hosts, ..self })
        } else {
            Err(bad)
        }
    }

    /// The addresses the owner pinned `host` to, if it is pinned.
    pub fn pinned(&self, host: &str) -> Option<Vec<IpAddr>> {
        let host = normalized_host(host);
        let addresses: Vec<IpAddr> = self
            .hosts
            .iter()
            .filter(|(name, _)| *name == host)
            .map(|(_, address)| *address)
            .collect();
        (!addresses.is_empty()).then_some(addresses)
    }

    /// The same policy, also allowing the host of `url`: an endpoint the
    /// owner configured (an API base, a model URL) is allowed by that
    /// configuration. A URL without a host changes nothing.
    #[must_use]
    pub fn also_allowing_url(&self, url: &str) -> OutboundPolicy {
        let host = reqwest::Url::parse(url)
            .ok()
            .and_then(|url| url.host_str().map(str::to_owned));
        let mut policy = self.clone();
        if let Some(entries) = host.as_deref().and_then(parse_entry) {
            policy.allowed.extend(entries);
        }
        policy
    }

    /// Whether public addresses are allowed (and names looked up).
    pub fn allows_public(&self) -> bool {
        self.public
    }

    /// Public addresses and loopback: what tests and local development use
    /// (their stand-in servers listen on loopback).
    pub fn loopback_too() -> OutboundPolicy {
        OutboundPolicy {
            allowed: loopback(),
            ..OutboundPolicy::default()
        }
    }

    /// Whether the owner allowed `host` by name (its addresses are then not
    /// judged).
    pub fn allows_host(&self, host: &str) -> bool {
        let host = normalized_host(host);
        self.allowed.iter().any(|entry| match entry {
            Allowed::Host(name) => *name == host,
            Allowed::Domain(domain) => host
                .strip_suffix(domain.as_str())
                .is_some_and(|label| label.ends_with('.') && label.len() > 1),
            Allowed::Range(_) => false,
        })
    }

    /// Whether a request may go to `ip`.
    pub fn check_ip(&self, ip: IpAddr) -> Result<(), Refused> {
        let listed = self.allowed.iter().any(|entry| match entry {
            Allowed::Range(cidr) => cidr.contains(ip),
            _ => false,
        });
        match special_range(ip) {
            _ if listed => Ok(()),
            Some(range) => Err(Refused::new(ip.to_string(), range)),
            None if self.public => Ok(()),
            None => Err(Refused::outside(ip.to_string())),
        }
    }

    /// Whether a request may go to `host` as a URL names it: an address is
    /// judged now, and so are a pinned name's addresses (one allowed is
    /// enough); any other name is judged by its addresses when it is
    /// resolved (unless the owner allowed the name itself), and under an
    /// allow-list-only policy a name the list does not hold is refused
    /// here, before any lookup.
    pub fn check_host(&self, host: &str) -> Result<(), Refused> {
        if let Some(ip) = literal_address(host) {
            return self.check_ip(ip);
        }
        if self.allows_host(host) {
            return Ok(());
        }
        if let Some(addresses) = self.pinned(host) {
            let mut first_refusal = None;
            for ip in addresses {
                match self.check_ip(ip) {
                    Ok(()) => return Ok(()),
                    Err(refused) => {
                        first_refusal.get_or_insert(refused.for_host(host, ip));
                    }
                }
            }
            return first_refusal.map_or(Ok(()), Err);
        }
        if self.public {
            Ok(())
        } else {
            Err(Refused::outside(host))
        }
    }

    /// Whether the host of `url` may be reached as far as can be told
    /// before any lookup: a literal address is judged, a name (or a URL
    /// without a host) passes until it is fetched. What a source is judged
    /// by when it is stored.
    pub fn check_url_address(&self, url: &str) -> Result<(), Refused> {
        let host = reqwest::Url::parse(url)
            .ok()
            .and_then(|url| url.host_str().map(str::to_owned));
        match host.as_deref().and_then(literal_address) {
            Some(ip) => self.check_ip(ip),
            None => Ok(()),
        }
    }
}

impl fmt::Display for OutboundPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut entries = Vec::new();
        if self.public {
            entries.push("public addresses".to_owned());
        }
        for entry in &self.allowed {
            entries.push(match entry {
                Allowed::Range(cidr) => format!("{}/{}", cidr.network, cidr.prefix),
                Allowed::Host(name) => name.clone(),
                Allowed::Domain(domain) => format!("*.{domain}"),
            });
        }
        if self.public {
            f.write_str(&entries.join(", "))?;
        } else {
            write!(f, "only {}", entries.join(", "))?;
        }
        let pins: Vec<String> = self
            .hosts
            .iter()
            .map(|(name, address)| format!("{name}={address}"))
            .collect();
        if !pins.is_empty() {
            write!(f, " (pinned: {})", pins.join(", "))?;
        }
        Ok(())
    }
}

fn loopback() -> Vec<Allowed> {
    vec![
        Allowed::Range(Cidr {
            network: IpAddr::from([127, 0, 0, 0]),
            prefix: 8,
        }),
        Allowed::Range(Cidr {
            network: IpAddr::from([0, 0, 0, 0, 0, 0, 0, 1_u16]),
            prefix: 128,
        }),
        Allowed::Host("localhost".to_owned()),
    ]
}

fn parse_entry(entry: &str) -> Option<Vec<Allowed>> {
    if entry.eq_ignore_ascii_case("loopback") {
        return Some(loopback());
    }
    if entry.eq_ignore_ascii_case("none") {
        return Some(Vec::new());
    }
    if let Some((network, prefix)) = entry.split_once('/') {
        let network: IpAddr = network.parse().ok()?;
        let prefix: u8 = prefix.parse().ok()?;
        let bits = if network.is_ipv4() { 32 } else { 128 };
        return (prefix <= bits).then(|| vec![Allowed::Range(Cidr { network, prefix })]);
    }
    if let Some(ip) = literal_address(entry) {
        let prefix = if ip.is_ipv4() { 32 } else { 128 };
        return Some(vec![Allowed::Range(Cidr {
            network: ip,
            prefix,
        })]);
    }
    if let Some(domain) = entry.strip_prefix("*.") {
        let domain = normalized_host(domain);
        return is_host_name(&domain).then(|| vec![Allowed::Domain(domain)]);
    }
    let host = normalized_host(entry);
    is_host_name(&host).then(|| vec![Allowed::Host(host)])
}

/// The address a URL's host spells out (`10.0.0.1`, `[::1]`), if it is one.
fn literal_address(host: &str) -> Option<IpAddr> {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok()
}

fn normalized_host(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

/// Letters, digits, `-` and `.`, in labels of 1 to 63 characters.
fn is_host_name(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 253
        && host.split('.').all(|label| {
            (1..=63).contains(&label.len())
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    #[test]
    fn the_default_refuses_every_special_range_and_names_it() {
        let policy = OutboundPolicy::public_only();
        assert_eq!(policy.check_ip(ip("93.184.215.14")), Ok(()));
        let refused = policy
            .check_ip(ip("169.254.169.254"))
            .expect_err("metadata");
        assert_eq!(refused.kind, "link-local (cloud metadata)");
        assert_eq!(
            refused.to_string(),
            "the destination 169.254.169.254 is not a public address (169.254.0.0/16: link-local (cloud metadata)); this server sends requests only to public addresses unless its outbound policy allows more"
        );
        let refused = policy.check_ip(ip("::1")).expect_err("loopback");
        assert!(
            refused
                .to_string()
                .starts_with("the destination ::1 is not a public address (::1/128: loopback)")
        );
        let refused = policy.check_ip(ip("fd00::1")).expect_err("ULA");
        assert!(
            refused
                .to_string()
                .contains("(fc00::/7: unique local (private))")
        );
        let refused = policy.check_ip(ip("0.0.0.0")).expect_err("unspecified");
        assert!(
            refused
                .to_string()
                .contains("(0.0.0.0/8: unspecified (this network))")
        );
        assert!(policy.check_host("[::ffff:127.0.0.1]").is_err());
        assert_eq!(policy.check_host("example.org"), Ok(()));
    }

    #[test]
    fn the_owner_opens_ranges_addresses_names_domains_and_loopback() {
        let policy = OutboundPolicy::allowing(
            "192.168.1.0/24, 10.0.0.7, fd00::/8, feeds.lan, *.home.arpa, loopback",
        )
        .expect("valid entries");
        assert_eq!(policy.check_ip(ip("192.168.1.200")), Ok(()));
        assert_eq!(policy.check_ip(ip("::ffff:192.168.1.9")), Ok(()));
        assert!(
            policy.check_ip(ip("192.168.2.1")).is_err(),
            "outside the /24"
        );
        assert_eq!(policy.check_ip(ip("10.0.0.7")), Ok(()));
        assert!(policy.check_ip(ip("10.0.0.8")).is_err());
        assert_eq!(policy.check_ip(ip("fd12::1")), Ok(()));
        assert!(
            policy.check_ip(ip("fe80::1")).is_err(),
            "link-local stays refused"
        );
        assert_eq!(policy.check_ip(ip("127.0.0.1")), Ok(()));
        assert_eq!(policy.check_ip(ip("::1")), Ok(()));
        assert!(policy.check_ip(ip("169.254.169.254")).is_err());
        assert!(policy.allows_host("FEEDS.lan."));
        assert!(policy.allows_host("nas.home.arpa"));
        assert!(
            !policy.allows_host("home.arpa"),
            "a domain entry covers names under it"
        );
        assert!(!policy.allows_host("evilhome.arpa"));
        assert!(policy.allows_host("localhost"));
        assert!(!policy.allows_host("feeds.lan.example.com"));
        assert_eq!(
            policy.to_string(),
            "public addresses, 192.168.1.0/24, 10.0.0.7/32, fd00::/8, feeds.lan, *.home.arpa, 127.0.0.0/8, ::1/128, localhost"
        );
    }

    #[test]
    fn every_bad_entry_is_reported() {
        let errors = OutboundPolicy::allowing("10.0.0.0/33,ok.lan,exa mple,*.,192.168.1.0/x")
            .expect_err("bad entries");
        assert_eq!(
            errors,
            ["10.0.0.0/33", "exa mple", "*.", "192.168.1.0/x"]
                .map(|entry| BadAllowEntry(entry.to_owned()))
        );
        assert_eq!(
            OutboundPolicy::allowing(""),
            Ok(OutboundPolicy::public_only())
        );
    }

    #[test]
    fn a_zero_prefix_opens_a_whole_family() {
        let policy = OutboundPolicy::allowing("0.0.0.0/0").expect("valid");
        assert_eq!(policy.check_ip(ip("10.1.1.1")), Ok(()));
        assert!(
            policy.check_ip(ip("fc00::1")).is_err(),
            "an IPv4 range opens no IPv6"
        );
    }

    #[test]
    fn an_allow_list_only_policy_refuses_public_addresses_and_unlisted_names() {
        let policy = OutboundPolicy::loopback_only();
        assert_eq!(policy.check_ip(ip("127.0.0.1")), Ok(()));
        assert_eq!(policy.check_ip(ip("::1")), Ok(()));
        assert_eq!(policy.check_host("localhost"), Ok(()));
        let refused = policy.check_ip(ip("1.1.1.1")).expect_err("public");
        assert_eq!(refused.kind, OUTSIDE_ALLOW_LIST);
        assert_eq!(
            refused.to_string(),
            "the destination 1.1.1.1 is not in this server's outbound allow list, the only destinations it sends requests to"
        );
        assert_eq!(
            policy.check_host("example.org").expect_err("a name").kind,
            OUTSIDE_ALLOW_LIST
        );
        assert_eq!(
            policy.check_ip(ip("10.0.0.1")).expect_err("private").kind,
            "private (RFC 1918)"
        );
        assert!(!policy.allows_public());
        assert_eq!(policy.to_string(), "only 127.0.0.0/8, ::1/128, localhost");
        let nothing = OutboundPolicy::only("none").expect("valid");
        assert!(nothing.check_ip(ip("127.0.0.1")).is_err());
        assert!(nothing.check_host("localhost").is_err());
        let lan = OutboundPolicy::only("192.168.1.0/24,feeds.lan").expect("valid");
        assert_eq!(lan.check_ip(ip("192.168.1.4")), Ok(()));
        assert_eq!(lan.check_host("feeds.lan"), Ok(()));
        assert!(lan.check_host("8.8.8.8").is_err());
    }

    #[test]
    fn a_configured_endpoint_is_allowed_by_its_configuration() {
        let tests = OutboundPolicy::only("none").expect("valid");
        let with_model = tests.also_allowing_url("http://10.0.0.5:8080/v1");
        assert_eq!(with_model.check_ip(ip("10.0.0.5")), Ok(()));
        assert!(with_model.check_ip(ip("10.0.0.6")).is_err());
        let with_forge = tests.also_allowing_url("https://git.lan/api/v4");
        assert_eq!(with_forge.check_host("git.lan"), Ok(()));
        assert!(with_forge.check_host("other.lan").is_err());
        let with_v6 = tests.also_allowing_url("http://[fd00::5]:8080/");
        assert_eq!(with_v6.check_ip(ip("fd00::5")), Ok(()));
        assert_eq!(tests.also_allowing_url("not a url"), tests);
    }

    #[test]
    fn a_stored_url_is_judged_by_its_literal_address_only() {
        let tests = OutboundPolicy::loopback_only();
        assert!(tests.check_url_address("http://10.0.0.1/feed.xml").is_err());
        assert!(tests.check_url_address("http://[::ffff:c0a8:1]/").is_err());
        assert_eq!(
            tests.check_url_address("http://127.0.0.1:9/feed.xml"),
            Ok(())
        );
        // A name is judged when it is fetched, not when it is stored.
        assert_eq!(
            tests.check_url_address("https://feeds.example.org/"),
            Ok(())
        );
        assert_eq!(tests.check_url_address("not a url"), Ok(()));
    }

    #[test]
    fn a_pinned_name_is_judged_by_its_pinned_addresses() {
        let policy = OutboundPolicy::loopback_only()
            .with_hosts(
                "rebind.test=10.0.0.1, Mixed.Test=10.0.0.2,mixed.test=127.0.0.1,v6.test=[fd00::1]",
            )
            .expect("valid");
        let refused = policy.check_host("rebind.test").expect_err("private");
        assert_eq!(refused.destination, "rebind.test (10.0.0.1)");
        assert_eq!(refused.kind, "private (RFC 1918)");
        assert_eq!(
            policy.check_host("MIXED.test."),
            Ok(()),
            "one allowed address is enough"
        );
        assert_eq!(
            policy.pinned("mixed.test"),
            Some(vec![ip("10.0.0.2"), ip("127.0.0.1")])
        );
        assert_eq!(
            policy.check_host("v6.test").expect_err("unique local").cidr,
            "fc00::/7"
        );
        assert_eq!(policy.pinned("other.test"), None);
        assert_eq!(
            policy.check_host("other.test").expect_err("unlisted").kind,
            OUTSIDE_ALLOW_LIST
        );
        assert!(policy.to_string().ends_with(
            "(pinned: rebind.test=10.0.0.1, mixed.test=10.0.0.2, mixed.test=127.0.0.1, v6.test=fd00::1)"
        ));
        // A pin opens no range: the allow list does.
        let opened = OutboundPolicy::allowing("10.0.0.0/8")
            .expect("valid")
            .with_hosts("rebind.test=10.0.0.1")
            .expect("valid");
        assert_eq!(opened.check_host("rebind.test"), Ok(()));
        assert_eq!(
            OutboundPolicy::public_only()
                .with_hosts("a.test,=1.2.3.4,b.test=300.1.1.1,ok.test=1.2.3.4"),
            Err(["a.test", "=1.2.3.4", "b.test=300.1.1.1"]
                .map(|e| BadHostEntry(e.to_owned()))
                .to_vec())
        );
    }
}
