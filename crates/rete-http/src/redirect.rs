//! Which redirects a reader follows.
//!
//! The reader follows `Location` itself, hop by hop (ureq's own redirects are off), and checks
//! every hop before connecting to it:
//!
//! - `https` never goes to plain `http` ([`HttpErrorKind::Downgrade`]);
//! - an address outside the public internet (loopback, private, link-local, unique-local,
//!   unspecified, multicast, documentation, shared or reserved) is refused, unless the URL the
//!   user gave itself points at such an address (a local server may redirect within the local
//!   network): a page cannot use the reader to reach a service behind the user's firewall;
//! - another origin (host name or port) is refused unless [`HttpOptions::cross_host_redirects`]
//!   is on or the target's host is in [`HttpOptions::redirect_hosts`] (the user said yes to
//!   it); `http://h/` → `https://h/` (the default ports) counts as the same host. A local start
//!   asks too: a server on 127.0.0.1 sending the reader to another local port or host is a
//!   service the user did not name.
//!
//! Host names are resolved to check them: a name that resolves to 127.0.0.1 is loopback. The
//! addresses the connection then uses are checked again ([`Guard`], the agent's resolver), so a
//! name that resolves to a public address for the check and to a local one for the connection
//! (DNS rebinding) is refused too.
//!
//! [`HttpErrorKind::Downgrade`]: crate::HttpErrorKind::Downgrade

use crate::HttpOptions;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, ToSocketAddrs};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;
use url::{Host, Url};

/// The kind of a non-public address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AddressClass {
    /// 127.0.0.0/8, ::1.
    Loopback,
    /// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 (RFC 1918).
    Private,
    /// fc00::/7 (and the deprecated site-local fec0::/10).
    UniqueLocal,
    /// 169.254.0.0/16, fe80::/10.
    LinkLocal,
    /// 0.0.0.0/8, ::.
    Unspecified,
    /// Multicast or broadcast.
    Multicast,
    /// Shared (100.64.0.0/10), documentation, benchmarking or reserved ranges.
    Reserved,
}

impl fmt::Display for AddressClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Loopback => "a loopback address",
            Self::Private => "a private address",
            Self::UniqueLocal => "a unique-local address",
            Self::LinkLocal => "a link-local address",
            Self::Unspecified => "an unspecified address",
            Self::Multicast => "a multicast or broadcast address",
            Self::Reserved => "a reserved (non-public) address",
        })
    }
}

/// Why a redirect was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RedirectRefusal {
    /// The target is (or resolves to) a non-public address while the URL the user gave is not.
    Address {
        /// The address.
        ip: IpAddr,
        /// What kind of address it is.
        class: AddressClass,
    },
    /// Another host or port than the current one, and cross-host redirects are not allowed
    /// ([`HttpOptions::cross_host_redirects`]).
    OtherHost,
    /// From `https` to plain `http`.
    Downgrade,
    /// The target is not an `http(s)` URL with a host.
    NotHttp,
}

impl fmt::Display for RedirectRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Address { ip, class } => write!(f, "{class} ({ip})"),
            Self::OtherHost => f.write_str(
                "another host, and cross-host redirects are not allowed; open the target URL itself if you trust it",
            ),
            Self::Downgrade => f.write_str("from https to plain http"),
            Self::NotHttp => f.write_str("not an http(s) URL"),
        }
    }
}

/// The class of `ip` if it is not a public internet address.
pub fn address_class(ip: IpAddr) -> Option<AddressClass> {
    match ip {
        IpAddr::V4(v4) => v4_class(v4),
        IpAddr::V6(v6) => v6_class(v6),
    }
}

fn v4_class(ip: Ipv4Addr) -> Option<AddressClass> {
    use AddressClass as C;
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (0, ..) => C::Unspecified,
        (127, ..) => C::Loopback,
        (10, ..) | (172, 16..=31, _) | (192, 168, _) => C::Private,
        (169, 254, _) => C::LinkLocal,
        (224..=239, ..) => C::Multicast,
        _ if ip.is_broadcast() => C::Multicast,
        // Shared address space (carrier-grade NAT), IETF protocol assignments, documentation,
        // benchmarking, reserved for future use.
        (100, 64..=127, _)
        | (192, 0, 0)
        | (192, 0, 2)
        | (198, 51, 100)
        | (203, 0, 113)
        | (198, 18..=19, _)
        | (240..=255, ..) => C::Reserved,
        _ => return None,
    })
}

fn v6_class(ip: Ipv6Addr) -> Option<AddressClass> {
    use AddressClass as C;
    if let Some(v4) = ip.to_ipv4_mapped() {
        return v4_class(v4);
    }
    let s = ip.segments();
    Some(match s {
        [0, 0, 0, 0, 0, 0, 0, 0] => C::Unspecified,
        [0, 0, 0, 0, 0, 0, 0, 1] => C::Loopback,
        // NAT64 (64:ff9b::/96): the embedded IPv4 address decides.
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => {
            return v4_class(Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo)))
        }
        // IPv4-compatible (deprecated) and the rest of ::/8.
        [0, ..] => C::Reserved,
        [x, ..] if x & 0xfe00 == 0xfc00 => C::UniqueLocal,
        [x, ..] if x & 0xffc0 == 0xfec0 => C::UniqueLocal,
        [x, ..] if x & 0xffc0 == 0xfe80 => C::LinkLocal,
        [x, ..] if x & 0xff00 == 0xff00 => C::Multicast,
        // Documentation.
        [0x2001, 0xdb8, ..] => C::Reserved,
        _ => return None,
    })
}

/// The addresses `url`'s host stands for: itself for an IP literal, else what it resolves to
/// (empty if it does not resolve); `None` if the system resolver gave no answer within `wait`.
pub(crate) fn resolve(url: &Url, wait: Duration) -> Option<Vec<IpAddr>> {
    match url.host() {
        Some(Host::Ipv4(ip)) => Some(vec![IpAddr::V4(ip)]),
        Some(Host::Ipv6(ip)) => Some(vec![IpAddr::V6(ip)]),
        Some(Host::Domain(d)) => {
            let target = (d.to_owned(), url.port_or_known_default().unwrap_or(80));
            within(wait, move || {
                target
                    .to_socket_addrs()
                    .map(|it| it.map(|a| a.ip()).collect())
                    .unwrap_or_default()
            })
        }
        None => Some(Vec::new()),
    }
}

/// `f`'s answer if it comes within `wait`. The system resolver (`getaddrinfo`) cannot be
/// interrupted, so it runs on a thread of its own, which is left to finish alone when the wait
/// is over (its late answer is dropped): a name server that never answers costs a thread, not
/// a hung request.
fn within<T: Send + 'static>(wait: Duration, f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("rete-http-resolve".into())
        .spawn(move || {
            let _ = tx.send(f());
        })
        .ok()?;
    rx.recv_timeout(wait).ok()
}

/// Whether the URL the user gave points at a non-public address (every address its host
/// resolves to is non-public): then redirects may stay within the local network.
pub(crate) fn is_local(resolved: &[IpAddr]) -> bool {
    !resolved.is_empty() && resolved.iter().all(|&ip| address_class(ip).is_some())
}

/// Host and port; an `http` → `https` upgrade on the default ports keeps the host.
fn same_host(from: &Url, to: &Url) -> bool {
    let host = |u: &Url| u.host_str().map(str::to_ascii_lowercase);
    if host(from) != host(to) {
        return false;
    }
    from.port_or_known_default() == to.port_or_known_default()
        || (from.scheme() == "http"
            && to.scheme() == "https"
            && from.port().is_none()
            && to.port().is_none())
}

/// How a redirect target is named in [`HttpOptions::redirect_hosts`]: its host, with the port
/// when the URL gives one (`objects.example`, `127.0.0.1:8081`, `[::1]:8443`); `None` if `url`
/// is not an absolute URL with a host.
pub fn redirect_host(url: &str) -> Option<String> {
    Url::parse(url)
        .ok()
        .filter(|u| u.host().is_some())
        .map(|u| host_of(&u))
}

fn host_of(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host,
    }
}

/// Whether `entry` of [`HttpOptions::redirect_hosts`] names `to`'s host: `host` for any port,
/// `host:port` for that port only.
fn host_matches(entry: &str, to: &Url) -> bool {
    let Some(host) = to.host_str() else {
        return false;
    };
    let entry = entry.trim();
    if entry.eq_ignore_ascii_case(host) {
        return true;
    }
    // `host:port`; a bare IPv6 address has colons too but no brackets, so it is not split.
    match entry.rsplit_once(':') {
        Some((h, p)) if !h.is_empty() && (!h.contains(':') || h.starts_with('[')) => {
            h.eq_ignore_ascii_case(host) && p.parse::<u16>().ok() == to.port_or_known_default()
        }
        _ => false,
    }
}

/// Whether the reader may follow a redirect from `from` to `to`, whose host stands for
/// `resolved`; `local_start`: the URL the user gave points at a non-public address
/// ([`is_local`]).
pub fn redirect_allowed(
    from: &Url,
    to: &Url,
    resolved: &[IpAddr],
    local_start: bool,
    opts: &HttpOptions,
) -> Result<(), RedirectRefusal> {
    if !matches!(to.scheme(), "http" | "https") || to.host().is_none() {
        return Err(RedirectRefusal::NotHttp);
    }
    if from.scheme() == "https" && to.scheme() == "http" {
        return Err(RedirectRefusal::Downgrade);
    }
    if !local_start {
        if let Some((ip, class)) = resolved
            .iter()
            .find_map(|&ip| address_class(ip).map(|c| (ip, c)))
        {
            return Err(RedirectRefusal::Address { ip, class });
        }
    }
    if same_host(from, to)
        || opts.cross_host_redirects
        || opts.redirect_hosts.iter().any(|h| host_matches(h, to))
    {
        Ok(())
    } else {
        Err(RedirectRefusal::OtherHost)
    }
}

/// The agent's resolver: what it resolves for a host other than the one the user gave (a
/// redirect target) must be public unless the URL given is local, or the connection is refused
/// before it is made.
#[derive(Debug)]
pub(crate) struct Guard {
    /// The host of the URL given, as ureq sees it (lowercase; IPv6 in brackets).
    start_host: String,
    /// Whether the URL given points at a non-public address ([`is_local`]), shared with the
    /// reader, which finds it out at the first redirect (before any other host is contacted).
    pub(crate) local_start: Arc<OnceLock<bool>>,
    inner: DefaultResolver,
}

impl Guard {
    pub(crate) fn new(start: &Url) -> Self {
        Self {
            start_host: start.host_str().unwrap_or_default().to_ascii_lowercase(),
            local_start: Arc::default(),
            inner: DefaultResolver::default(),
        }
    }
}

/// The error [`Guard`] returns (inside an `io::Error`) for a refused address.
#[derive(Debug)]
pub(crate) struct Rebound {
    pub(crate) ip: IpAddr,
    pub(crate) class: AddressClass,
}

impl fmt::Display for Rebound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the host resolves to {} ({})", self.class, self.ip)
    }
}

impl std::error::Error for Rebound {}

impl Resolver for Guard {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let addrs = self.inner.resolve(uri, config, timeout)?;
        let host = uri.host().unwrap_or_default();
        // The URL given, and a proxy the user configured, are the user's choice.
        let trusted = host.eq_ignore_ascii_case(&self.start_host)
            || config
                .proxy()
                .is_some_and(|p| p.host().eq_ignore_ascii_case(host))
            || self.local_start.get() == Some(&true);
        if !trusted {
            if let Some((ip, class)) = addrs
                .iter()
                .find_map(|a| address_class(a.ip()).map(|c| (a.ip(), c)))
            {
                return Err(ureq::Error::Io(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    Rebound { ip, class },
                )));
            }
        }
        Ok(addrs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn check(
        from: &str,
        to: &str,
        ips: &[&str],
        local: bool,
        cross: bool,
    ) -> Result<(), RedirectRefusal> {
        let opts = HttpOptions {
            cross_host_redirects: cross,
            ..HttpOptions::default()
        };
        let resolved: Vec<IpAddr> = ips.iter().map(|s| ip(s)).collect();
        redirect_allowed(&u(from), &u(to), &resolved, local, &opts)
    }

    #[test]
    fn classes() {
        use AddressClass as C;
        for (s, c) in [
            ("127.0.0.1", Some(C::Loopback)),
            ("127.8.9.10", Some(C::Loopback)),
            ("10.1.2.3", Some(C::Private)),
            ("172.16.0.1", Some(C::Private)),
            ("172.31.255.255", Some(C::Private)),
            ("172.32.0.1", None),
            ("192.168.1.1", Some(C::Private)),
            ("169.254.169.254", Some(C::LinkLocal)),
            ("0.0.0.0", Some(C::Unspecified)),
            ("100.64.0.1", Some(C::Reserved)),
            ("224.0.0.1", Some(C::Multicast)),
            ("255.255.255.255", Some(C::Multicast)),
            ("93.184.215.14", None),
            ("8.8.8.8", None),
            ("::1", Some(C::Loopback)),
            ("::", Some(C::Unspecified)),
            ("fe80::1", Some(C::LinkLocal)),
            ("fc00::1", Some(C::UniqueLocal)),
            ("fd12:3456::1", Some(C::UniqueLocal)),
            ("ff02::1", Some(C::Multicast)),
            ("::ffff:127.0.0.1", Some(C::Loopback)),
            ("::ffff:10.0.0.1", Some(C::Private)),
            ("64:ff9b::7f00:1", Some(C::Loopback)),
            ("64:ff9b::808:808", None),
            ("2001:db8::1", Some(C::Reserved)),
            ("2606:2800:220:1::", None),
        ] {
            assert_eq!(address_class(ip(s)), c, "{s}");
        }
    }

    #[test]
    fn non_public_targets_are_refused_from_a_public_start() {
        for target in [
            "127.0.0.1",
            "10.0.0.5",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "::1",
            "fe80::1",
            "fc00::1",
        ] {
            // IPv6 literals stand in brackets in a URL.
            let host = if target.contains(':') {
                format!("[{target}]")
            } else {
                target.to_owned()
            };
            let to = format!("https://{host}/x.rete");
            let e = check("https://example.org/x.rete", &to, &[target], false, true).unwrap_err();
            assert!(
                matches!(e, RedirectRefusal::Address { .. }),
                "{target}: {e:?}"
            );
        }
        // A host name that resolves to loopback is loopback, even on the same host.
        let (from, to) = ("https://example.org/x.rete", "https://example.org/y.rete");
        assert_eq!(
            check(from, to, &["93.184.215.14", "127.0.0.1"], false, false),
            Err(RedirectRefusal::Address {
                ip: ip("127.0.0.1"),
                class: AddressClass::Loopback
            })
        );
    }

    #[test]
    fn other_hosts_need_the_option() {
        use RedirectRefusal as R;
        let x = "https://a.example/x";
        // (from, to, cross-host redirects allowed, verdict)
        for (from, to, cross, verdict) in [
            (x, "https://b.example/x", false, Err(R::OtherHost)),
            (x, "https://b.example/x", true, Ok(())),
            // Another port is another origin.
            (x, "https://a.example:8443/x", false, Err(R::OtherHost)),
            // Same host, another path; host names compare without case.
            (x, "https://A.example/y?z", false, Ok(())),
            // The upgrade to https on the default ports keeps the host.
            ("http://a.example/x", x, false, Ok(())),
            (x, "http://a.example/x", true, Err(R::Downgrade)),
            (x, "ftp://a.example/x", true, Err(R::NotHttp)),
        ] {
            let got = check(from, to, &["93.184.215.14"], false, cross);
            assert_eq!(got, verdict, "{from} → {to}, cross {cross}");
        }
    }

    #[test]
    fn a_local_start_asks_too_but_may_reach_local_addresses_when_allowed() {
        use RedirectRefusal as R;
        let loopback = || {
            Err(R::Address {
                ip: ip("127.0.0.1"),
                class: AddressClass::Loopback,
            })
        };
        let (a, b) = ("http://127.0.0.1:8000/x", "http://127.0.0.1:8001/y");
        let (r, gh) = (
            "https://github.com/r",
            "https://objects.githubusercontent.com/x",
        );
        let (lo, public) = (&["127.0.0.1"][..], &["93.184.215.14"][..]);
        // (from, to, resolved, local start, listed redirect hosts, verdict)
        for (from, to, ips, local, hosts, verdict) in [
            // Another local port or host is another service: it asks like any other host.
            (a, b, lo, true, &[][..], Err(R::OtherHost)),
            (a, b, lo, true, &["127.0.0.1:8001"][..], Ok(())),
            (a, b, lo, true, &["127.0.0.1"][..], Ok(())),
            (a, b, lo, true, &["127.0.0.1:8002"][..], Err(R::OtherHost)),
            (
                "http://localhost:8000/x",
                "http://192.168.1.7/y",
                &["192.168.1.7"][..],
                true,
                &["192.168.1.7:80"][..],
                Ok(()),
            ),
            // A listed host is still refused where its address is (a public start).
            (
                "https://a.example/x",
                "https://127.0.0.1:8001/y",
                lo,
                false,
                &["127.0.0.1:8001"][..],
                loopback(),
            ),
            // Public hosts, without case; IPv6 in brackets.
            (
                r,
                gh,
                public,
                false,
                &["Objects.GitHubUserContent.com"][..],
                Ok(()),
            ),
            (
                r,
                gh,
                public,
                false,
                &["objects.githubusercontent.com:443"][..],
                Ok(()),
            ),
            (
                r,
                gh,
                public,
                false,
                &["githubusercontent.com"][..],
                Err(R::OtherHost),
            ),
            (
                "https://a.example/x",
                "https://[2606:2800:220:1::]:8443/x",
                &["2606:2800:220:1::"][..],
                false,
                &["[2606:2800:220:1::]:8443"][..],
                Ok(()),
            ),
        ] {
            let opts = HttpOptions {
                redirect_hosts: hosts.iter().map(|h| (*h).to_owned()).collect(),
                ..HttpOptions::default()
            };
            let resolved: Vec<IpAddr> = ips.iter().map(|s| ip(s)).collect();
            let got = redirect_allowed(&u(from), &u(to), &resolved, local, &opts);
            assert_eq!(got, verdict, "{from} → {to}, listed {hosts:?}");
        }
        assert_eq!(
            redirect_host(gh).as_deref(),
            Some("objects.githubusercontent.com")
        );
        assert_eq!(redirect_host(b).as_deref(), Some("127.0.0.1:8001"));
        assert_eq!(
            redirect_host("http://[::1]:81/").as_deref(),
            Some("[::1]:81")
        );
        assert_eq!(redirect_host("/relative"), None);
        // Leaving the local network for a public host is a cross-host redirect as well.
        assert_eq!(
            check(a, "https://b.example/x", public, true, false),
            Err(R::OtherHost)
        );
        assert!(is_local(&[ip("127.0.0.1"), ip("::1")]));
        assert!(!is_local(&[ip("127.0.0.1"), ip("8.8.8.8")]));
        assert!(!is_local(&[]));
    }

    #[test]
    fn literal_hosts_resolve_to_themselves() {
        let resolve = |s: &str| resolve(&u(s), Duration::from_secs(10)).unwrap();
        assert_eq!(resolve("http://127.0.0.1:9/x"), vec![ip("127.0.0.1")]);
        assert_eq!(resolve("http://[::1]/x"), vec![ip("::1")]);
        // WHATWG parsing normalises the short forms a resolver would accept.
        assert_eq!(resolve("http://127.1/x"), vec![ip("127.0.0.1")]);
        assert_eq!(resolve("http://2130706433/x"), vec![ip("127.0.0.1")]);
        // A name goes through the system resolver (`localhost` from the hosts file).
        assert!(is_local(&resolve("http://localhost:9/x")));
    }

    #[test]
    fn a_lookup_that_never_answers_ends_when_the_wait_is_over() {
        // What a name server that never replies does to `getaddrinfo`: the caller gets `None`
        // once the wait is over instead of waiting with the lookup.
        let never = within(Duration::from_millis(20), || loop {
            std::thread::park();
        });
        assert_eq!(never, None::<()>);
        assert_eq!(within(Duration::from_secs(10), || 7), Some(7));
    }

    #[test]
    fn the_guard_checks_the_addresses_connected_to() {
        let resolve = |g: &Guard, s: &str| {
            let timeout = NextTimeout {
                after: Duration::from_secs(5).into(),
                reason: ureq::Timeout::Resolve,
                per_read: None,
                per_write: None,
            };
            let config = ureq::config::Config::default();
            g.resolve(&s.parse().unwrap(), &config, timeout)
                .map(|a| a.iter().map(|a| a.ip()).collect::<Vec<_>>())
        };
        let g = Guard::new(&u("http://127.0.0.1:9/x.rete"));
        // The host given is the user's choice.
        assert_eq!(
            resolve(&g, "http://127.0.0.1:9/y").unwrap(),
            [ip("127.0.0.1")]
        );
        // Another one must be public while the start counts as public (as if a public name had
        // resolved to it: the test cannot reach a public host).
        g.local_start.set(false).unwrap();
        for target in [
            "http://127.0.0.2:9/",
            "http://[::1]:9/",
            "http://localhost:9/",
        ] {
            let e = resolve(&g, target).unwrap_err();
            let ureq::Error::Io(io) = e else {
                panic!("{target}: {e}")
            };
            let r = io.get_ref().and_then(|i| i.downcast_ref::<Rebound>());
            assert_eq!(r.map(|r| r.class), Some(AddressClass::Loopback), "{target}");
        }
        assert_eq!(resolve(&g, "http://8.8.8.8/").unwrap(), [ip("8.8.8.8")]);
        // A local start may reach the local network.
        let g = Guard::new(&u("http://127.0.0.1:9/x.rete"));
        g.local_start.set(true).unwrap();
        assert_eq!(
            resolve(&g, "http://127.0.0.2:9/").unwrap(),
            [ip("127.0.0.2")]
        );
    }
}
