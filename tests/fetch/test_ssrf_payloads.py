"""The SSRF corpus of the security reference (section 1) against the real fetcher.

Every payload is fetched by a real ``HttpFetcher`` whose pinned connections all go to a
loopback *canary* server (``RoutingBackend(default=canary)``): whatever address the guard
vetted, a request it wrongly let through lands on the canary, and the canary must see
zero requests. The stub resolver answers what each payload claims (``10.0.0.1`` for an
intranet name, ``[public, private]`` for a mixed answer ...). Redirect payloads start at
a "public" redirector (a stub public address routed to another loopback server) that
answers with the payload as its ``Location``.

A second pass sends the numeric spellings of loopback through the system resolver and
the real network backend, on the canary's own port: a miss would reach it directly.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from deepresearch.errors import FetchBlocked, FetchError
from deepresearch.fetch.guard import AddressGuard
from deepresearch.fetch.http_fetcher import HttpFetcher

from .netstub import LoopServer, RoutingBackend, StubResolver, canary, page, send

PUBLIC_IP = "93.184.216.34"
REDIRECTOR = "redirector.example"


@dataclass(frozen=True)
class Payload:
    name: str
    #: the URL, or the redirect target when ``redirect`` is set
    url: str
    answers: dict[str, list[str]] = field(default_factory=dict)
    redirect: bool = False
    #: FetchBlocked (policy) for nearly all; FetchError for names that do not resolve
    blocked: bool = True


def _direct(urls: list[str], prefix: str) -> list[Payload]:
    return [Payload(f"{prefix}:{url}", url) for url in urls]


V4 = [
    "127.0.0.1",
    "127.0.0.2",
    "127.1.2.3",
    "127.255.255.255",
    "0.0.0.0",
    "0.1.1.1",
    "0.255.255.255",
    "10.0.0.1",
    "10.255.255.255",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.0.1",
    "192.168.255.255",
    "100.64.0.1",
    "100.127.255.254",
    "100.100.100.200",  # Alibaba metadata
    "169.254.169.254",  # AWS, GCP, Azure metadata
    "169.254.170.2",  # ECS task metadata
    "169.254.0.1",
    "198.18.0.1",
    "198.19.255.255",
    "192.0.2.1",
    "198.51.100.1",
    "203.0.113.1",
    "192.0.0.1",
    "192.0.0.170",
    "192.88.99.1",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
]
V6 = [
    "::1",
    "::",
    "0:0:0:0:0:0:0:1",
    "0000:0000:0000:0000:0000:0000:0000:0001",
    "000:0:0000::01",
    "fe80::1",
    "fc00::1",
    "fd00::1",
    "fd00:ec2::254",  # AWS metadata over IPv6
    "fec0::1",
    "ff02::1",
    "ff05::1:3",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::fFFf:127.0.0.1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "::ffff:0.0.0.0",
    "::127.0.0.1",  # IPv4-compatible
    "::a00:1",
    "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
    "64:ff9b::7f00:1",
    "64:ff9b:1::1",
    "2002:a00:1::1",  # 6to4 of 10.0.0.1
    "2002:7f00:1::1",
    "2001:0:4136:e378:8000:63bf:3f57:fdf2",  # Teredo
    "2001:db8::1",
    "100::1",
]
# spellings getaddrinfo (inet_aton) accepts and Python's ipaddress does not
ENCODINGS = [
    "127.1",
    "127.0.1",
    "0x7f.0.0.1",
    "0x7f.1",
    "0x7f000001",
    "0x7F000001",
    "017700000001",
    "2130706433",
    "0",
    "00",
    "0x0",
    "0.0",
    "10.1",
    "0xa.0.0.1",
    "012.0.0.1",
    "167772161",
    "0xa9fea9fe",
    "2852039166",
    "0xa9.0xfe.0xa9.0xfe",
    "192.168.1",
    "3232235521",
    "0xc0a80001",
    "0177.0.0.1",  # httpx refuses leading zeros in a dotted quad
    "127.000.000.001",
    "0251.0376.0251.0376",
]
PARSER = [
    "http://a@127.0.0.1/",
    "http://user:pass@127.0.0.1/",
    "http://example.com@127.0.0.1/",
    "http://example.com:80@10.0.0.1/",
    "http://127.0.0.1#@example.com/",
    "http://127.0.0.1?@example.com/",
    "http://127.0.0.1\\@example.com/",
    "http://127.0.0.1\\\\@example.com/",
    "http://127.0.0.%31/",
    "http://%31%32%37.0.0.1/",
    "http://127%2E0%2E0%2E1/",
    "http://localhost%00.example.com/",
    "http://127.0.0.1%00.example.com/",
    "http://127.0.0.1\x00.example.com/",
    "http://example.com\x00@127.0.0.1/",
    "http://127.0.0.1\t/",
    "http://127.0.0.1\r\n/",
    "http://127.0.0.1 /",
    "http://[::1%25eth0]/",
    "http://[fe80::1%25lo]/",
    "http://127.0.0.1./",
    "http://127.0.0.1../",
    "http://LOCALHOST/",
    "http://localhost./",
    "http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/",
    "http://１２７.０.０.１/",
    "http://①②⑦.⓪.⓪.①/",
    "http://[127.0.0.1]/",
    "http://[::1/",
    "http:/127.0.0.1/",
    "http:\\\\127.0.0.1/",
    "http:127.0.0.1",
    "//127.0.0.1/",
    "127.0.0.1",
    "HTTP://127.0.0.1/",
    "hTtP://10.0.0.1/",
    "https://127.0.0.1/",
]
PORTS = [
    "http://127.0.0.1:0/",
    "http://127.0.0.1:65536/",
    "http://127.0.0.1:99999/",
    "http://127.0.0.1:22/",
    "http://127.0.0.1:6379/",
    "http://127.0.0.1:8080/",
    "https://127.0.0.1:443/",
    "http://[::1]:8080/",
    "http://[::ffff:127.0.0.1]:80/",
    "http://169.254.169.254:80/latest/meta-data/",
    "http://public.example:0/",
]
SCHEMES = [
    "file:///etc/passwd",
    "file://localhost/etc/passwd",
    "file://127.0.0.1/etc/passwd",
    "ftp://127.0.0.1/",
    "ftp://example.com/file",
    "gopher://127.0.0.1:6379/_INFO",
    "dict://127.0.0.1:11211/stat",
    "ldap://127.0.0.1/",
    "sftp://example.com/",
    "tftp://example.com/file",
    "jar:http://127.0.0.1!/",
    "netdoc:///etc/passwd",
    "javascript:alert(1)",
    "data:text/html,<p>hi</p>",
    "ws://127.0.0.1/",
    "wss://example.com/",
    "mailto:a@example.com",
    "ssh://example.com/",
]
# names that resolve (in the stub) to what the payload claims
RESOLVING = {
    "localhost": ["127.0.0.1"],
    "localhost.localdomain": ["127.0.0.1"],
    "foo.localhost": ["127.0.0.1"],
    "printer.local": ["192.168.1.20"],
    "metadata.google.internal": ["169.254.169.254"],
    "kubernetes.default.svc.cluster.local": ["10.96.0.1"],
    "router.home.arpa": ["192.168.0.1"],
    "1.0.0.127.in-addr.arpa": ["127.0.0.1"],
    "metadata": ["169.254.169.254"],
    "instance-data": ["169.254.169.254"],
    "intranet.example": ["10.0.0.1"],
    "localtest.me": ["127.0.0.1"],
    "127.0.0.1.nip.io": ["127.0.0.1"],
    "10.0.0.1.nip.io": ["10.0.0.1"],
    "169.254.169.254.nip.io": ["169.254.169.254"],
    "spoofed.burpcollaborator.net": ["127.0.0.1"],
    "v6-loopback.example": ["::1"],
    "v6-ula.example": ["fd12:3456::1"],
    "v6-mapped.example": ["::ffff:127.0.0.1"],
    "unspecified.example": ["0.0.0.0"],
    "cgnat.example": ["100.64.0.1"],
    "mixed-v4.example": [PUBLIC_IP, "10.0.0.1"],
    "mixed-v4-first.example": ["10.0.0.1", PUBLIC_IP],
    "mixed-v6.example": ["2606:2800:220:1::1", "::1"],
    "mixed-mapped.example": [PUBLIC_IP, "::ffff:127.0.0.1"],
    "mixed-link-local.example": ["8.8.8.8", "fe80::1"],
    "mixed-scoped.example": ["8.8.8.8", "fe80::1%eth0"],
    "unix-socket.example": ["?"],  # an AF_UNIX answer
    "mixed-unix.example": [PUBLIC_IP, "?"],
    "garbage.example": ["not-an-ip"],
    "xn--bcher-kva.example": ["10.0.0.1"],  # bücher.example
    "xn--intrant-bxa.example": ["192.168.0.1"],  # intranät.example
}
UNRESOLVED = ["empty-answer.example", "does-not-resolve.example"]
REDIRECT_TARGETS = [
    "http://127.0.0.1/",
    "http://127.0.0.1:22/",
    "https://127.0.0.1/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.1/",
    "http://192.168.0.1/admin",
    "http://0/",
    "http://2130706433/",
    "http://127.1/",
    "http://0x7f.0.0.1/",
    "http://a@127.0.0.1/",
    "http://localhost/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://intranet.example/",
    "http://mixed-v4.example/",
    "http://v6-loopback.example/",
    "http://bücher.example/",
    "//127.0.0.1/scheme-relative",
    "ftp://example.com/file",
    "file:///etc/passwd",
    "gopher://127.0.0.1:6379/_INFO",
    "dict://127.0.0.1:11211/stat",
    "data:text/html,<p>hi</p>",
    "javascript:alert(1)",
    "http://127.0.0.%31/",
    "http://127.0.0.1:0/",
]


def _payloads() -> list[Payload]:
    payloads = _direct([f"http://{ip}/" for ip in V4], "v4")
    payloads += _direct([f"http://[{ip}]/" for ip in V6], "v6")
    payloads += _direct([f"http://{host}/" for host in ENCODINGS], "encoding")
    payloads += _direct(PARSER, "parser")
    payloads += _direct(PORTS, "port")
    payloads += _direct(SCHEMES, "scheme")
    payloads += [Payload(f"dns:{host}", f"http://{host}/") for host in RESOLVING]
    payloads += [
        Payload("idn:bücher.example", "http://bücher.example/"),
        Payload("idn:intranät.example", "https://intranät.example/"),
    ]
    payloads += [Payload(f"dns:{host}", f"http://{host}/", blocked=False) for host in UNRESOLVED]
    payloads += [Payload(f"redirect:{url}", url, redirect=True) for url in REDIRECT_TARGETS]
    payloads.append(Payload("redirect:chain of 6", "/chain/6", redirect=True))
    payloads.append(Payload("redirect:chain of 5 then loopback", "/chain-to-loopback/5", True))
    return payloads


PAYLOADS = _payloads()
_ADDRESS_LIKE = re.compile(r"\d{1,3}(\.\d{1,3}){3}|[0-9a-f]{0,4}::[0-9a-f]{0,4}|pin\.invalid")


def test_the_corpus_has_at_least_150_payloads() -> None:
    assert len(PAYLOADS) >= 150
    assert len({p.name for p in PAYLOADS}) == len(PAYLOADS)


def _redirector(handler: BaseHTTPRequestHandler) -> None:
    parts = urlsplit(handler.path)
    if parts.path == "/r":
        send(handler, 302, b"", {"Location": parse_qs(parts.query)["u"][0]})
    elif parts.path.startswith(("/chain/", "/chain-to-loopback/")):
        prefix, left = parts.path.rsplit("/", 1)
        if int(left) > 0:
            send(handler, 302, b"", {"Location": f"{prefix}/{int(left) - 1}"})
        elif prefix == "/chain":
            page(handler)
        else:
            send(handler, 302, b"", {"Location": "http://127.0.0.1/"})
    else:
        page(handler)


@pytest.fixture(scope="module")
def redirector() -> Iterator[LoopServer]:
    with LoopServer(_redirector) as server:
        yield server


def _start_url(payload: Payload) -> str:
    if not payload.redirect:
        return payload.url
    if payload.url.startswith("/chain"):
        return f"http://{REDIRECTOR}{payload.url}"
    return f"http://{REDIRECTOR}/r?u={quote(payload.url, safe='')}"


@pytest.mark.parametrize("payload", PAYLOADS, ids=[p.name for p in PAYLOADS])
async def test_payload_never_reaches_the_canary(payload: Payload, redirector: LoopServer) -> None:
    answers: dict[str, list[str]] = {REDIRECTOR: [PUBLIC_IP], "empty-answer.example": []}
    answers.update(RESOLVING)
    resolver = StubResolver(answers)
    with canary() as bird:
        backend = RoutingBackend({PUBLIC_IP: redirector.route}, default=bird.route)
        fetcher = HttpFetcher(
            resolver=resolver,
            respect_robots=False,
            min_interval_s=0,
            max_retries=0,
            network_backend=backend,
        )
        async with fetcher:
            with pytest.raises(FetchError) as info:
                await fetcher.fetch(_start_url(payload))
    assert bird.hits == 0
    assert {address for address, _ in backend.connects} <= {PUBLIC_IP}
    assert isinstance(info.value, FetchBlocked) == payload.blocked, str(info.value)
    hops = 7 if "chain" in payload.name else (2 if payload.redirect else 1)
    assert len(resolver.lookups) <= hops  # never more than one lookup per hop
    if payload.redirect and "chain" not in payload.name:
        assert "redirect target" in str(info.value)
    _assert_safe(str(info.value))


def _assert_safe(message: str) -> None:
    assert len(message) < 160
    assert "Traceback" not in message
    assert "canary" not in message
    assert not _ADDRESS_LIKE.search(message), message


# --- the same spellings through the system resolver and the real network ----------------

SYSTEM_HOSTS = [
    "127.0.0.1",
    "127.1",
    "127.0.1",
    "0x7f.0.0.1",
    "0x7f.1",
    "0x7f000001",
    "017700000001",
    "2130706433",
    "0",
    "00",
    "0x0",
    "0.0.0.0",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "[0:0:0:0:0:ffff:7f00:1]",
    "[::ffff:7f00:1]",
    "[::127.0.0.1]",
    "localhost",
    "LOCALHOST.",
    "127.0.0.1.",
    "a@127.1",
    "user:pw@2130706433",
]


@pytest.mark.parametrize("host", SYSTEM_HOSTS)
async def test_system_resolver_spellings_of_loopback_are_refused(host: str) -> None:
    with canary() as bird:
        async with HttpFetcher(respect_robots=False, max_retries=0) as fetcher:
            with pytest.raises(FetchBlocked) as info:
                await fetcher.fetch(f"http://{host}:{bird.port}/")
    assert bird.hits == 0
    _assert_safe(str(info.value))


# --- decisions that must allow ---------------------------------------------------------

ALLOWED = [
    ("http://100.63.255.254/", ("100.63.255.254",)),
    ("http://100.128.0.1/", ("100.128.0.1",)),
    ("http://172.32.0.1/", ("172.32.0.1",)),
    ("http://[::ffff:8.8.8.0]/", ("::ffff:808:800",)),
    ("http://[64:ff9b::808:808]/", ("64:ff9b::808:808",)),
    ("http://[2002:808:808::1]/", ("2002:808:808::1",)),
    ("http://[2606:4700:4700::1111]:8443/", ("2606:4700:4700::1111",)),
    ("https://example.com/", (PUBLIC_IP,)),
    ("https://EXAMPLE.com./path", (PUBLIC_IP,)),
    ("http://127.0.0.1@example.com/", (PUBLIC_IP,)),
    ("http://example.com#@127.0.0.1/", (PUBLIC_IP,)),
    ("http://dual.example/", (PUBLIC_IP, "2606:2800:220:1::1")),
    ("http://bücher.example/", ("8.8.4.4",)),
]


@pytest.mark.parametrize(("url", "addresses"), ALLOWED)
async def test_public_boundary_cases_are_allowed(url: str, addresses: tuple[str, ...]) -> None:
    resolver = StubResolver(
        {
            "example.com": [PUBLIC_IP],
            "dual.example": [PUBLIC_IP, "2606:2800:220:1::1", PUBLIC_IP],
            "xn--bcher-kva.example": ["8.8.4.4"],
        }
    )
    target = await AddressGuard(resolver=resolver).vet(url)
    assert target.addresses == addresses
    assert len(resolver.lookups) <= 1


async def test_a_public_name_is_fetched_through_its_pinned_address() -> None:
    resolver = StubResolver({"example.com": [PUBLIC_IP]})
    with LoopServer(page) as site, canary() as bird:
        backend = RoutingBackend({PUBLIC_IP: site.route}, default=bird.route)
        fetcher = HttpFetcher(resolver=resolver, respect_robots=False, network_backend=backend)
        async with fetcher:
            fetched = await fetcher.fetch("http://example.com/article")
    assert fetched.status == 200
    assert backend.connects == [(PUBLIC_IP, 80)]
    assert site.requests == [("/article", "example.com")]
    assert bird.hits == 0


async def test_allowed_hosts_skip_only_the_public_check() -> None:
    resolver = StubResolver({"intranet.example": ["10.0.0.1"], "socket.example": ["?"]})
    guard = AddressGuard(["intranet.example", "socket.example", "localhost:8080"], resolver)
    assert (await guard.vet("http://intranet.example/")).addresses == ("10.0.0.1",)
    with pytest.raises(FetchBlocked):  # still has to be an IP address to pin to
        await guard.vet("http://socket.example/")
    with pytest.raises(FetchBlocked, match="local networks"):  # only on the listed port
        await guard.vet("http://localhost:8081/")
