import Foundation
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import ReachabilityProbe

/// HTTP targets against a real server on 127.0.0.1, through the probe's Swift API.
@Suite(.onItsOwnThread) struct HTTPCheckTests {
    @Test func okResponseIsOkWithPhasesAndSize() throws {
        let server = try EndpointServer()
        let check = try ProbeHarness.check(#"{"name": "api", "url": "\#(server.url("/ok"))"}"#)
        #expect(check.key == "api")
        #expect(check.state == .ok)
        #expect(check.message.hasPrefix("HTTP 200 in "))
        #expect(try check.metric("http_status") == 200)
        #expect(try check.metric("size_bytes") == 2)
        let total = try check.metric("total_ms")
        let phases = try ["dns_ms", "connect_ms"].map { try check.metric($0) }
        #expect(phases.allSatisfy { $0 >= 0 })
        // DNS and connect are disjoint slices before the first byte; the first byte comes
        // within the transfer (ttfb counts from the start, as curl's time_starttransfer).
        let ttfb = try check.metric("ttfb_ms")
        #expect(phases.reduce(0, +) <= ttfb)
        #expect(ttfb <= total)
        #expect(check.metrics["tls_ms"] == nil)
        #expect(check.labels["endpoint"] == "http://127.0.0.1:\(server.port)")
    }

    @Test func expectedNonDefaultStatusIsOk() throws {
        let server = try EndpointServer()
        let check = try ProbeHarness.check(
            #"{"name": "frame", "url": "\#(server.url("/status/202"))", "expect_status": [202]}"#)
        #expect(check.state == .ok)
        #expect(check.message.hasPrefix("HTTP 202 in "))
    }

    @Test func serverErrorIsCriticalWithTheCode() throws {
        let server = try EndpointServer()
        let check = try ProbeHarness.check(#"{"name": "api", "url": "\#(server.url("/status/503"))"}"#)
        #expect(check.state == .critical)
        #expect(check.message.hasPrefix("HTTP 503 (expected 2xx) in "))
        #expect(try check.metric("http_status") == 503)
    }

    @Test func listedExpectationsAppearInTheMessage() throws {
        let server = try EndpointServer()
        let check = try ProbeHarness.check(
            #"{"name": "api", "url": "\#(server.url("/status/404"))", "expect_status": [200, "3xx", "500-502"]}"#)
        #expect(check.state == .critical)
        #expect(check.message.hasPrefix("HTTP 404 (expected 200, 3xx, 500-502) in "))
    }

    @Test func slowResponseIsWarningAndTotalCoversTheDelay() throws {
        let server = try EndpointServer()
        let check = try ProbeHarness.check(
            #"{"name": "slow", "url": "\#(server.url("/slow/300"))", "max_latency": "100ms"}"#)
        #expect(check.state == .warning)
        #expect(check.message.hasPrefix("slow: "))
        #expect(check.message.hasSuffix("(max 100 ms)"))
        #expect(try check.metric("total_ms") >= 300)
        #expect(try check.metric("ttfb_ms") >= 300)
    }

    @Test func missingBodyTextIsCritical() throws {
        let server = try EndpointServer()
        let check = try ProbeHarness.check(
            #"{"name": "api", "url": "\#(server.url("/ok"))", "expect_body_contains": "healthy"}"#)
        #expect(check.state == .critical)
        #expect(check.message.hasPrefix(#"body does not contain "healthy" (HTTP 200"#))
    }

    @Test func presentBodyTextIsOk() throws {
        let server = try EndpointServer()
        let check = try ProbeHarness.check(
            #"{"name": "api", "url": "\#(server.url("/status/200"))", "expect_body_contains": "tus 2"}"#)
        #expect(check.state == .ok)
    }

    @Test func headRequestReadsNoBody() throws {
        let server = try EndpointServer()
        let check = try ProbeHarness.check(#"{"name": "api", "url": "\#(server.url("/ok"))", "method": "HEAD"}"#)
        #expect(check.state == .ok)
        #expect(try check.metric("size_bytes") == 0)
        #expect(check.labels["method"] == "HEAD")
    }

    @Test func postSendsBodyAndContentType() throws {
        let server = try EndpointServer()
        let check = try ProbeHarness.check(
            #"""
            {"name": "frame", "url": "\#(server.url("/echo"))", "method": "POST", "body": "{\"frame\": 1}",
             "content_type": "application/json", "expect_body_contains": "application/json|{\"frame\": 1}"}
            """#)
        #expect(check.state == .ok, "\(check.message)")
    }

    @Test func bearerHeaderIsSentAndNeverShown() throws {
        let token = "s3cret-\(getpid())-token"
        let server = try EndpointServer(environment: ["BEARER_TOKEN": token])
        let given = try ProbeHarness.check(
            #"{"name": "api", "url": "\#(server.url("/bearer"))", "headers": {"Authorization": "Bearer \#(token)"}}"#)
        #expect(given.state == .ok)
        let wrong = try ProbeHarness.check(
            #"{"name": "api", "url": "\#(server.url("/bearer"))", "headers": {"Authorization": "Bearer nope-\#(token)"}}"#
        )
        #expect(wrong.state == .critical)
        #expect(wrong.message.hasPrefix("HTTP 401 (expected 2xx)"))
        for check in [given, wrong] {
            #expect(!check.message.contains(token))
            #expect(!check.labels.values.contains { $0.contains(token) })
        }
    }

    @Test func userinfoInTheURLIsNeverShown() throws {
        let server = try EndpointServer()
        let check = try ProbeHarness.check(
            #"{"name": "api", "url": "http://operator:hunter2@127.0.0.1:\#(server.port)/status/500"}"#)
        #expect(check.state == .critical)
        #expect(!check.message.contains("hunter2"))
        #expect(check.labels["endpoint"] == "http://127.0.0.1:\(server.port)")
    }

    @Test func redirectsAreFollowedOnlyWhenAsked() throws {
        let server = try EndpointServer()
        let stays = try ProbeHarness.check(#"{"name": "r", "url": "\#(server.url("/redirect"))"}"#)
        #expect(stays.state == .critical)
        #expect(stays.message.hasPrefix("HTTP 302 (expected 2xx)"))
        let follows = try ProbeHarness.check(
            #"{"name": "r", "url": "\#(server.url("/redirect"))", "follow_redirects": true, "expect_body_contains": "ok"}"#
        )
        #expect(follows.state == .ok)
        #expect(try follows.metric("http_status") == 200)
    }

    @Test func everyTargetGetsItsOwnCheckInOneSample() throws {
        let server = try EndpointServer()
        let targets = (0..<20).map { i in
            #"{"name": "t\#(i)", "url": "\#(server.url(i % 2 == 0 ? "/ok" : "/status/500"))"}"#
        }
        let probe = try ProbeHarness.makeProbe(
            #"{"max_concurrency": 4, "targets": [\#(targets.joined(separator: ","))]}"#)
        for _ in 0..<2 {  // the easy handles are reused by the second sample
            let checks = try ProbeHarness.sample(probe)
            #expect(checks.map(\.key) == (0..<20).map { "t\($0)" })
            for (i, check) in checks.enumerated() {
                #expect(check.state == (i % 2 == 0 ? .ok : .critical), "\(check.key): \(check.message)")
            }
        }
    }
}

/// How many requests the probe has in flight at once, as counted by the server.
@Suite(.onItsOwnThread) struct ConcurrencyTests {
    func slowTargets(_ server: EndpointServer, count: Int) -> String {
        (0..<count).map { #"{"name": "s\#($0)", "url": "\#(server.url("/slow/300"))"}"# }.joined(separator: ",")
    }

    @Test func allTargetsAreInFlightTogether() throws {
        let server = try EndpointServer()
        let checks = try ProbeHarness.sample(
            ProbeHarness.makeProbe(#"{"targets": [\#(slowTargets(server, count: 6))]}"#))
        #expect(checks.allSatisfy { $0.state == .ok })
        #expect(try server.peakConcurrency() == 6)
    }

    @Test func maxConcurrencyCapsRequestsInFlight() throws {
        let server = try EndpointServer()
        let probe = try ProbeHarness.makeProbe(
            #"{"max_concurrency": 2, "targets": [\#(slowTargets(server, count: 6))]}"#)
        let checks = try ProbeHarness.sample(probe)
        #expect(checks.allSatisfy { $0.state == .ok })
        #expect(try server.peakConcurrency() == 2)
        // Waiting for a free slot is not billed to the endpoint: each total is about one delay.
        #expect(try checks.allSatisfy { try $0.metric("total_ms") < 600 })
    }

    /// Easy handles are pooled: many targets, several samples, never more handles than the
    /// concurrency (the first release kept one handle, about 10 KiB, per target), and none kept
    /// between samples (ten probes kept 64 each, idle, in their shared child).
    @Test func handlesArePooledUpToTheConcurrencyAndFreedBetweenSamples() throws {
        let server = try EndpointServer()
        let targets = (0..<120).map { #"{"name": "t\#($0)", "url": "\#(server.url("/ok"))"}"# }.joined(separator: ",")
        let probe = try ProbeHarness.makeProbe(#"{"max_concurrency": 8, "targets": [\#(targets)]}"#)
        #expect(probe.pool.live == 0, "\(probe.pool.live) handles kept after the configuration's check")
        for _ in 0..<3 {
            let checks = try ProbeHarness.sample(probe)
            #expect(checks.count == 120 && checks.allSatisfy { $0.state == .ok })
            #expect(probe.pool.live == 0, "\(probe.pool.live) handles kept between samples")
        }
        #expect(probe.pool.mostLive <= 8, "\(probe.pool.mostLive) handles at once for 120 targets")
    }
}

@Suite(.onItsOwnThread) struct AddressFamilyTests {
    @Test func ipVersionSelectsTheAddressFamily() throws {
        let server = try EndpointServer()  // listens on 127.0.0.1 only
        let v4 = try ProbeHarness.check(
            #"{"name": "v4", "url": "http://localhost:\#(server.port)/ok", "ip_version": 4}"#)
        #expect(v4.state == .ok, "\(v4.message)")
        let v6 = try ProbeHarness.check(
            #"{"name": "v6", "url": "http://localhost:\#(server.port)/ok", "ip_version": 6}"#)
        #expect(v6.state == .critical)
        #expect(!v6.message.hasPrefix("HTTP"), "\(v6.message)")
    }
}
