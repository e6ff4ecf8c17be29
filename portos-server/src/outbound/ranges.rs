//! Which destination addresses are not "the public internet": the special
//! ranges of the IANA IPv4 and IPv6 special-purpose address registries that
//! a server must not be made to reach on a caller's behalf. An IPv6 address
//! that carries an IPv4 one (mapped, NAT64, 6to4) is judged by the IPv4
//! address it carries.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A special range, named for the person reading a refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SpecialRange {
    /// The range, e.g. `10.0.0.0/8`.
    pub cidr: &'static str,
    /// What it is, e.g. `private (RFC 1918)`.
    pub kind: &'static str,
}

const fn range(cidr: &'static str, kind: &'static str) -> SpecialRange {
    SpecialRange { cidr, kind }
}

/// The range `ip` falls in when it is not a public unicast address; `None`
/// for a public one.
pub(super) fn special_range(ip: IpAddr) -> Option<SpecialRange> {
    match ip {
        IpAddr::V4(v4) => special_v4(v4),
        IpAddr::V6(v6) => special_v6(v6),
    }
}

fn special_v4(ip: Ipv4Addr) -> Option<SpecialRange> {
    let [a, b, c, _] = ip.octets();
    let found = match (a, b, c) {
        _ if ip.is_broadcast() => range("255.255.255.255/32", "broadcast"),
        (0, _, _) => range("0.0.0.0/8", "unspecified (this network)"),
        (10, _, _) => range("10.0.0.0/8", "private (RFC 1918)"),
        (100, 64..=127, _) => range("100.64.0.0/10", "shared address space (CGNAT)"),
        (127, _, _) => range("127.0.0.0/8", "loopback"),
        (169, 254, _) => range("169.254.0.0/16", "link-local (cloud metadata)"),
        (172, 16..=31, _) => range("172.16.0.0/12", "private (RFC 1918)"),
        (192, 0, 0) => range("192.0.0.0/24", "IETF protocol assignments"),
        (192, 0, 2) => range("192.0.2.0/24", "documentation"),
        (192, 88, 99) => range("192.88.99.0/24", "6to4 relay anycast (deprecated)"),
        (192, 168, _) => range("192.168.0.0/16", "private (RFC 1918)"),
        (198, 18..=19, _) => range("198.18.0.0/15", "benchmarking"),
        (198, 51, 100) => range("198.51.100.0/24", "documentation"),
        (203, 0, 113) => range("203.0.113.0/24", "documentation"),
        (224..=239, _, _) => range("224.0.0.0/4", "multicast"),
        (240..=255, _, _) => range("240.0.0.0/4", "reserved"),
        _ => return None,
    };
    Some(found)
}

fn special_v6(ip: Ipv6Addr) -> Option<SpecialRange> {
    let segments = ip.segments();
    // The forms that carry an IPv4 address are as public as that address.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return special_v4(v4);
    }
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return special_v4(embedded_v4(segments[6], segments[7]));
    }
    if segments[0] == 0x2002 {
        return special_v4(embedded_v4(segments[1], segments[2]));
    }
    let found = match segments {
        [0, 0, 0, 0, 0, 0, 0, 0] => range("::/128", "unspecified"),
        [0, 0, 0, 0, 0, 0, 0, 1] => range("::1/128", "loopback"),
        [0, 0, 0, 0, 0, 0, _, _] => range("::/96", "IPv4-compatible (deprecated)"),
        [0x64, 0xff9b, 1, ..] => range("64:ff9b:1::/48", "local-use NAT64"),
        [0x100, 0, 0, 0, ..] => range("100::/64", "discard-only"),
        [0x2001, 0x0db8, ..] => range("2001:db8::/32", "documentation"),
        [0x2001, 0..=0x01ff, ..] => range("2001::/23", "IETF protocol assignments"),
        [0x3fff, 0..=0x0fff, ..] => range("3fff::/20", "documentation"),
        [0x5f00, ..] => range("5f00::/16", "segment routing (SRv6)"),
        [0xfc00..=0xfdff, ..] => range("fc00::/7", "unique local (private)"),
        [0xfe80..=0xfebf, ..] => range("fe80::/10", "link-local"),
        [0xfec0..=0xfeff, ..] => range("fec0::/10", "site-local (deprecated)"),
        [0xff00..=0xffff, ..] => range("ff00::/8", "multicast"),
        // Global unicast is 2000::/3; everything else is unassigned.
        [0x2000..=0x3fff, ..] => return None,
        _ => range("outside 2000::/3", "reserved (not global unicast)"),
    };
    Some(found)
}

fn embedded_v4(high: u16, low: u16) -> Ipv4Addr {
    let [a, b] = high.to_be_bytes();
    let [c, d] = low.to_be_bytes();
    Ipv4Addr::new(a, b, c, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Option<&'static str> {
        special_range(text.parse().expect("an address")).map(|range| range.kind)
    }

    #[test]
    fn every_special_ipv4_range_is_named_and_public_addresses_pass() {
        for (address, expected) in [
            ("0.0.0.0", "unspecified (this network)"),
            ("0.1.2.3", "unspecified (this network)"),
            ("10.0.0.1", "private (RFC 1918)"),
            ("10.255.255.255", "private (RFC 1918)"),
            ("100.64.0.1", "shared address space (CGNAT)"),
            ("100.127.255.254", "shared address space (CGNAT)"),
            ("100.100.100.200", "shared address space (CGNAT)"),
            ("127.0.0.1", "loopback"),
            ("127.255.0.9", "loopback"),
            ("169.254.169.254", "link-local (cloud metadata)"),
            ("172.16.0.1", "private (RFC 1918)"),
            ("172.31.255.255", "private (RFC 1918)"),
            ("192.0.0.8", "IETF protocol assignments"),
            ("192.0.2.10", "documentation"),
            ("192.88.99.1", "6to4 relay anycast (deprecated)"),
            ("192.168.1.1", "private (RFC 1918)"),
            ("198.18.0.1", "benchmarking"),
            ("198.19.255.255", "benchmarking"),
            ("198.51.100.7", "documentation"),
            ("203.0.113.9", "documentation"),
            ("224.0.0.251", "multicast"),
            ("239.255.255.250", "multicast"),
            ("240.0.0.1", "reserved"),
            ("250.250.250.250", "reserved"),
            ("255.255.255.255", "broadcast"),
        ] {
            assert_eq!(kind(address), Some(expected), "{address}");
        }
        for public in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.1",
            "192.169.0.1",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
        ] {
            assert_eq!(kind(public), None, "{public}");
        }
    }

    #[test]
    fn every_special_ipv6_range_is_named_and_global_unicast_passes() {
        for (address, expected) in [
            ("::", "unspecified"),
            ("::1", "loopback"),
            ("::10.0.0.1", "IPv4-compatible (deprecated)"),
            ("64:ff9b:1::1", "local-use NAT64"),
            ("100::1", "discard-only"),
            ("2001:db8::1", "documentation"),
            ("2001::1", "IETF protocol assignments"),
            ("2001:1ff::1", "IETF protocol assignments"),
            ("3fff::1", "documentation"),
            ("5f00::1", "segment routing (SRv6)"),
            ("fc00::1", "unique local (private)"),
            ("fd00:ec2::254", "unique local (private)"),
            ("fe80::1", "link-local"),
            ("febf::1", "link-local"),
            ("fec0::1", "site-local (deprecated)"),
            ("ff02::1", "multicast"),
            ("4000::1", "reserved (not global unicast)"),
            ("1::1", "reserved (not global unicast)"),
        ] {
            assert_eq!(kind(address), Some(expected), "{address}");
        }
        for public in ["2606:4700:4700::1111", "2a00:1450:4001::1", "2001:200::1"] {
            assert_eq!(kind(public), None, "{public}");
        }
    }

    #[test]
    fn ipv6_forms_of_an_ipv4_address_are_judged_by_it() {
        for (address, expected) in [
            ("::ffff:127.0.0.1", Some("loopback")),
            ("::ffff:10.1.2.3", Some("private (RFC 1918)")),
            (
                "::ffff:169.254.169.254",
                Some("link-local (cloud metadata)"),
            ),
            ("64:ff9b::192.168.0.1", Some("private (RFC 1918)")),
            ("64:ff9b::7f00:1", Some("loopback")),
            ("2002:a00:1::1", Some("private (RFC 1918)")),
            ("2002:7f00:1::", Some("loopback")),
            ("::ffff:8.8.8.8", None),
            ("64:ff9b::808:808", None),
            ("2002:808:808::1", None),
        ] {
            assert_eq!(kind(address), expected, "{address}");
        }
    }
}
