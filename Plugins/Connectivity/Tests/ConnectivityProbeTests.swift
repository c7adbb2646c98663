import Foundation
import PathwatchProbeKit
import PathwatchTestSupport
import Synchronization
import Testing

@testable import ConnectivityProbe

/// The probe against the fixture server on loopback: each answer a portal or an outage gives,
/// and the verdict it must produce.
@Suite(.serialized, .onItsOwnThread) struct ConnectivityProbeTests {
    let directory: URL
    let server: PortalServer

    init() throws {
        directory = try TestEnvironment.makeTemporaryDirectory("pathwatch-conn")
        server = try PortalServer(in: directory)
    }

    func config(_ path: String, _ extra: String = "", timeout: String = "1s") -> String {
        #"{"url": "\#(server.url(path))", "timeout": "\#(timeout)"\#(extra)}"#
    }

    @Test func expectedStatusIsFullInternet() throws {
        let seen = try ProbeDriver.sampleOnce(config("/generate_204"))
        #expect(seen.key == "internet")
        #expect(seen.state == .ok)
        #expect(seen.labels[WellKnownLabel.internet] == "full")
        #expect(seen.labels["endpoint"] == "http://127.0.0.1:\(server.port)")
        #expect(seen.message.hasPrefix("full: HTTP 204 in "), "\(seen.message)")
        #expect(seen.metrics["http_status"] == 204 && seen.metrics["full"] == 1)
    }

    @Test func redirectIsAPortalNamingWhereItSends() throws {
        server.mode = .redirect
        let seen = try ProbeDriver.sampleOnce(config("/generate_204"))
        #expect(seen.state == .warning)
        #expect(seen.labels[WellKnownLabel.internet] == "portal")
        #expect(
            seen.message.hasPrefix("sign-in required: HTTP 302 redirect to http://login.portal.invalid (expected 204)"),
            "\(seen.message)")
        #expect(!seen.message.contains("from=generate_204"), "never the redirect's path or query")
        #expect(seen.metrics["full"] == 0)
    }

    @Test func loginPageInPlaceIsAPortal() throws {
        server.mode = .html
        let seen = try ProbeDriver.sampleOnce(config("/generate_204"))
        #expect(seen.state == .warning)
        #expect(seen.labels[WellKnownLabel.internet] == "portal")
        #expect(seen.message.hasPrefix("sign-in required: HTTP 200 (expected 204)"), "\(seen.message)")
    }

    @Test func expectedBodyMustMatchExactly() throws {
        let exact = try ProbeDriver.sampleOnce(config("/online", #", "expect_status": 200, "expect_body": "online""#))
        #expect(exact.labels[WellKnownLabel.internet] == "full", "\(exact.message)")
        // Contained but not the whole body, and a body of another length: both a portal.
        let prefix = try ProbeDriver.sampleOnce(config("/online", #", "expect_status": [200], "expect_body": "onl""#))
        #expect(prefix.labels[WellKnownLabel.internet] == "portal")
        #expect(prefix.message.hasPrefix("sign-in required: HTTP 200 with another body"), "\(prefix.message)")
        server.mode = .html
        let page = try ProbeDriver.sampleOnce(config("/online", #", "expect_status": 200, "expect_body": "online""#))
        #expect(page.labels[WellKnownLabel.internet] == "portal")
        server.mode = .full
        // An empty expected body means exactly that.
        let empty = try ProbeDriver.sampleOnce(config("/generate_204", #", "expect_body": """#))
        #expect(empty.labels[WellKnownLabel.internet] == "full", "\(empty.message)")
    }

    @Test func refusedConnectionIsLimited() throws {
        let port = try unusedLoopbackPort()
        let seen = try ProbeDriver.sampleOnce(#"{"url": "http://127.0.0.1:\#(port)/generate_204", "timeout": "1s"}"#)
        #expect(seen.state == .critical)
        #expect(seen.labels[WellKnownLabel.internet] == "limited")
        #expect(seen.message == "no internet access: connection refused")
        #expect(seen.metrics["http_status"] == nil)
    }

    /// Right after a link comes up the first attempt often fails at once (a neighbour entry that
    /// failed while the link was down); limited means no answer within the timeout, so a fast
    /// failure is tried again. Here nothing listens until a server starts a moment later.
    @Test func aFastFailureIsTriedAgainWithinTheTimeout() throws {
        let port = try unusedLoopbackPort()
        let late = Mutex<PortalServer?>(nil)
        let started = DispatchSemaphore(value: 0)
        let starter = Thread {
            usleep(300_000)
            late.withLock { $0 = try? PortalServer(in: directory, port: port) }
            started.signal()
        }
        starter.start()
        defer {
            started.wait()
            late.withLock { $0?.stop() }
        }
        let seen = try ProbeDriver.sampleOnce(#"{"url": "http://127.0.0.1:\#(port)/generate_204", "timeout": "8s"}"#)
        #expect(seen.labels[WellKnownLabel.internet] == "full", "\(seen.message)")
    }

    @Test func noAnswerWithinTheTimeoutIsLimited() throws {
        server.mode = .hang
        let seen = try ProbeDriver.sampleOnce(config("/generate_204", timeout: "300ms"))
        #expect(seen.state == .critical)
        #expect(seen.labels[WellKnownLabel.internet] == "limited")
        #expect(seen.message == "no internet access: timed out after 300 ms (waiting for response)", "\(seen.message)")
    }

    @Test func configurationErrorsNameTheirPath() {
        #expect(ProbeDriver.refusal("{}")?.contains("url") == true)
        #expect(ProbeDriver.refusal(#"{"url": "tcp://127.0.0.1:80"}"#) == "url: expected an http:// or https:// URL")
        #expect(ProbeDriver.refusal(#"{"url": "ftp://x/"}"#)?.hasPrefix("url: unsupported scheme") == true)
        #expect(
            ProbeDriver.refusal(#"{"url": "http://x/", "expect_status": [204, 700]}"#)
                == "expect_status[1]: 700 is not an HTTP status code; expected 100 to 599")
        #expect(
            ProbeDriver.refusal(#"{"url": "http://x/", "expect_status": 99}"#)
                == "expect_status: 99 is not an HTTP status code; expected 100 to 599")
        #expect(
            ProbeDriver.refusal(#"{"url": "http://x/", "expect_status": []}"#)
                == "expect_status: expected at least one status code")
        #expect(
            ProbeDriver.refusal(#"{"url": "http://x/", "follow_redirects": true}"#)?.contains("follow_redirects")
                == true)
        #expect(ProbeDriver.refusal(#"{"url": "http://x/", "timeout": "0s"}"#)?.hasPrefix("timeout:") == true)
    }
}
