"""The rules `hws serve` applies to every request: our own address, our own origin, this start's token."""

from __future__ import annotations

import socket

from engine.cli.serve_access import ServeAccess, is_own_address, new_token, split_host

TOKEN = new_token()
LOCAL = ServeAccess("127.0.0.1", 8765, TOKEN)


def test_tokens_are_long_random_and_new_each_start() -> None:
    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50 and all(len(token) >= 43 for token in tokens)


def test_host_parsing_refuses_what_is_not_a_plain_host_and_port() -> None:
    assert split_host("127.0.0.1:8765") == ("127.0.0.1", 8765)
    assert split_host("[::1]:8765") == ("::1", 8765)
    assert split_host("LocalHost") == ("localhost", None)
    for bad in ("evil@127.0.0.1:8765", "127.0.0.1:8765/x", "127.0.0.1:99999", "a b:1", "", "127.0.0.1:"):
        assert split_host(bad) is None, bad


def test_loopback_names_and_addresses_with_our_port_are_our_own() -> None:
    for host in ("127.0.0.1:8765", "localhost:8765", "LOCALHOST:8765", "[::1]:8765", "127.1.2.3:8765"):
        assert LOCAL.host_allowed(host), host


def test_a_foreign_name_or_another_port_is_refused_even_when_it_resolves_to_loopback() -> None:
    """DNS rebinding: evil.example may resolve to 127.0.0.1, but its name is not ours."""
    for host in (
        "evil.example:8765",
        "127.0.0.1.nip.io:8765",
        "localhost.evil.example:8765",
        "localhost.:8765",
        "127.0.0.1:8766",
        "127.0.0.1",  # port 80, not ours
        "0.0.0.0:8765",
        "[::ffff:127.0.0.1]:8765",
    ):
        assert not LOCAL.host_allowed(host), host


def test_the_origin_must_be_the_page_the_host_names() -> None:
    assert LOCAL.origin_allowed("http://127.0.0.1:8765", "127.0.0.1:8765")
    assert LOCAL.origin_allowed("http://localhost:8765", "localhost:8765")
    for origin in (
        "http://evil.example",
        "http://evil.example:8765",
        "https://127.0.0.1:8765",
        "http://127.0.0.1:8766",
        "http://localhost:8765",  # another name than the one this request was sent to
        "null",
        "",
    ):
        assert not LOCAL.origin_allowed(origin, "127.0.0.1:8765"), origin


def test_refusal_checks_host_then_origin_then_token() -> None:
    host, origin = ["127.0.0.1:8765"], ["http://127.0.0.1:8765"]
    assert LOCAL.refusal(host, origin, [TOKEN], needs_token=True) is None
    assert LOCAL.refusal(host, [], [TOKEN], needs_token=True) is None  # not a browser: no Origin
    assert "Host" in (LOCAL.refusal(["evil.example:8765"], origin, [TOKEN], needs_token=True) or "")
    assert "Host" in (LOCAL.refusal([], [], [TOKEN], needs_token=True) or "")
    assert "Host" in (LOCAL.refusal([*host, *host], [], [TOKEN], needs_token=True) or "")
    assert "Origin" in (LOCAL.refusal(host, ["http://evil.example"], [TOKEN], needs_token=True) or "")
    assert "Origin" in (LOCAL.refusal(host, [*origin, *origin], [TOKEN], needs_token=True) or "")
    assert "token" in (LOCAL.refusal(host, origin, [], needs_token=True) or "")
    assert "token" in (LOCAL.refusal(host, origin, [TOKEN[:-1]], needs_token=True) or "")
    assert "token" in (LOCAL.refusal(host, origin, [TOKEN + "x"], needs_token=True) or "")
    assert LOCAL.refusal(host, origin, [], needs_token=False) is None  # textual-serve's static files


def test_no_token_drops_only_the_token() -> None:
    open_ = ServeAccess("127.0.0.1", 8765, None)
    assert open_.refusal(["127.0.0.1:8765"], [], [], needs_token=True) is None
    assert open_.refusal(["evil.example:8765"], [], [], needs_token=True) is not None
    assert open_.refusal(["127.0.0.1:8765"], ["http://evil.example"], [], needs_token=True) is not None


def test_a_wildcard_bind_accepts_this_machines_addresses_and_names_but_no_other() -> None:
    wide = ServeAccess("0.0.0.0", 8765, TOKEN)
    assert wide.host_allowed("127.0.0.1:8765")
    assert wide.host_allowed(f"{socket.gethostname()}:8765")
    assert not wide.host_allowed("evil.example:8765")
    assert not wide.host_allowed("192.0.2.1:8765")  # TEST-NET-1: never this machine's
    assert not is_own_address("0.0.0.0") and not is_own_address("evil.example")


def test_a_specific_bind_accepts_its_own_address_and_loopback() -> None:
    lan = ServeAccess("192.0.2.7", 8765, TOKEN)
    assert lan.host_allowed("192.0.2.7:8765") and lan.host_allowed("localhost:8765")
    assert not lan.host_allowed("192.0.2.8:8765")


def test_behind_a_proxy_the_public_url_is_our_host_and_origin() -> None:
    proxied = ServeAccess("127.0.0.1", 8765, TOKEN, "https://hws.example.org")
    assert proxied.host_allowed("hws.example.org") and proxied.host_allowed("hws.example.org:443")
    assert not proxied.host_allowed("hws.example.org:8765")
    assert proxied.origin_allowed("https://hws.example.org", "127.0.0.1:8765")
    assert not proxied.origin_allowed("http://hws.example.org", "127.0.0.1:8765")
    assert not proxied.origin_allowed("https://evil.example", "127.0.0.1:8765")


def test_the_cookie_is_named_for_the_port() -> None:
    """A browser shares cookies between the ports of one host; two servers must not clash."""
    assert LOCAL.cookie_name() != ServeAccess("127.0.0.1", 8766, TOKEN).cookie_name()
