import Foundation
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import ReachabilityProbe

/// Bad configurations are refused at create, with the JSON path of the offending value and a
/// message that never repeats a URL, header value or body.
@Suite struct ConfigValidationTests {
    static let good = #""url": "http://127.0.0.1:9/""#

    struct Case: Sendable, CustomStringConvertible {
        var config: String
        var path: String
        var says: String
        var description: String { path }
    }

    static let cases: [Case] = [
        Case(
            config: #"{"targets": [{"name": "a", "url": "http//nowhere"}]}"#, path: "targets[0].url",
            says: "not a valid URL"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good)}, {"name": "b", "url": "ftp://127.0.0.1/x"}]}"#,
            path: "targets[1].url", says: "unsupported scheme \"ftp\""),
        Case(
            config: #"{"targets": [{"name": "a", "url": "tcp://127.0.0.1"}]}"#, path: "targets[0].url",
            says: "needs a port"),
        Case(
            config: #"{"targets": [{"name": "a", "url": "tcp://127.0.0.1:22/path"}]}"#, path: "targets[0].url",
            says: "only tcp://host:port"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "method": "PUT"}]}"#, path: "targets[0].method",
            says: "unsupported method \"PUT\""),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "expect_status": ["2xy"]}]}"#,
            path: "targets[0].expect_status[0]", says: "expected a status code"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "expect_status": [200, 700]}]}"#,
            path: "targets[0].expect_status[1]", says: "not an HTTP status code"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "expect_status": "300-200"}]}"#,
            path: "targets[0].expect_status", says: "expected a status code"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "expect_status": []}]}"#, path: "targets[0].expect_status",
            says: "at least one"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good)}, {"name": "a", \#(good)}]}"#, path: "targets[1].name",
            says: "duplicate target name \"a\""),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "body": "x=1"}]}"#, path: "targets[0].body",
            says: "needs \"method\": \"POST\""),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "method": "HEAD", "content_type": "text/plain"}]}"#,
            path: "targets[0].content_type", says: "needs \"method\": \"POST\""),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "method": "HEAD", "expect_body_contains": "ok"}]}"#,
            path: "targets[0].expect_body_contains", says: "no body"),
        Case(config: #"{"targets": [{"name": "a"}]}"#, path: "targets[0].url", says: "required key \"url\" is missing"),
        Case(
            config: #"{"targets": [{"url": "http://127.0.0.1/"}]}"#, path: "targets[0].name",
            says: "required key \"name\" is missing"),
        Case(config: #"{}"#, path: "targets", says: "required key \"targets\" is missing"),
        Case(config: #"{"targets": []}"#, path: "targets", says: "at least one target"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "timeout": "-5s"}]}"#, path: "targets[0].timeout",
            says: "is not a duration"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "timeout": "0s"}]}"#, path: "targets[0].timeout",
            says: "at least 1ms"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "max_latency": "-1ms"}]}"#, path: "targets[0].max_latency",
            says: "is not a duration"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "cert_expiry_warn": "soon"}]}"#,
            path: "targets[0].cert_expiry_warn", says: "is not a duration"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "ip_version": 5}]}"#, path: "targets[0].ip_version",
            says: "expected 4, 6 or \"any\""),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "retries": 3}]}"#, path: "targets[0].retries",
            says: "unknown key"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "tls": {"ca_file": "/nonexistent/ca.pem"}}]}"#,
            path: "targets[0].tls.ca_file", says: "cannot read \"/nonexistent/ca.pem\""),
        // libcurl would open these at every transfer: a folder or a device is refused at once.
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "tls": {"ca_file": "/etc"}}]}"#,
            path: "targets[0].tls.ca_file", says: "\"/etc\": not a regular file (a folder)"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "tls": {"client_cert": "/dev/zero"}}]}"#,
            path: "targets[0].tls.client_cert", says: "\"/dev/zero\": not a regular file (a character device)"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "tls": {"client_key": "/etc/hostname"}}]}"#,
            path: "targets[0].tls.client_key", says: "needs client_cert"),
        Case(
            config: #"{"targets": [{"name": "a", "url": "tcp://127.0.0.1:22", "expect_status": 200}]}"#,
            path: "targets[0].expect_status", says: "does not apply to a tcp://"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "headers": {"Bad Name": "x"}}]}"#,
            path: "targets[0].headers[\"Bad Name\"]", says: "not a valid header name"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "headers": {"X-Key": 5}}]}"#,
            path: "targets[0].headers.X-Key", says: "expected a string"),
        Case(config: #"{"targets": [{"name": "a/b", \#(good)}]}"#, path: "targets[0].name", says: "must not contain"),
        Case(
            config: #"{"max_concurrency": 0, "targets": [{"name": "a", \#(good)}]}"#, path: "max_concurrency",
            says: "at least 1"),
        Case(
            config: #"{"targets": [{"name": "a", "url": "tcp://127.0.0.1:22", "expect_json": {"/a": 1}}]}"#,
            path: "targets[0].expect_json", says: "does not apply to a tcp://"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "method": "HEAD", "expect_body": "ok"}]}"#,
            path: "targets[0].expect_body", says: "no body"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "expect_body": "/(/"}]}"#, path: "targets[0].expect_body",
            says: "not a valid regular expression"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "expect_body": ""}]}"#, path: "targets[0].expect_body",
            says: "must not be empty"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "expect_json": {}}]}"#, path: "targets[0].expect_json",
            says: "at least one"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "expect_json": {"/ok": true, "ok": true}}]}"#,
            path: "targets[0].expect_json.ok", says: "starts with \"/\""),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "expect_json": []}]}"#, path: "targets[0].expect_json",
            says: "expected an object"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "expect_header": {"X-A": "1", "x-a": "2"}}]}"#,
            path: "targets[0].expect_header.x-a", says: "case-insensitive"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "expect_header": {"X A": "1"}}]}"#,
            path: "targets[0].expect_header[\"X A\"]", says: "not a valid header name"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "expect_body": "x", "max_body": "128MiB"}]}"#,
            path: "targets[0].max_body", says: "expected 1 byte to 64 MiB"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "max_latency": {"tls": "1s"}}]}"#,
            path: "targets[0].max_latency.tls", says: "makes no TLS handshake"),
        Case(
            config: #"{"targets": [{"name": "a", "url": "tcp://127.0.0.1:22", "max_latency": {"ttfb": "1s"}}]}"#,
            path: "targets[0].max_latency.ttfb", says: "only connects"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "max_latency": {"ttfb": "0s"}}]}"#,
            path: "targets[0].max_latency.ttfb", says: "must be more than 0"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "max_latency": "0s"}]}"#, path: "targets[0].max_latency",
            says: "must be more than 0"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "max_latency": {}}]}"#, path: "targets[0].max_latency",
            says: "at least one phase"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "max_latency": {"ttfb": "soon"}}]}"#,
            path: "targets[0].max_latency.ttfb", says: "is not a duration"),
        Case(
            config: #"{"targets": [{"name": "a", \#(good), "max_latency": 800}]}"#, path: "targets[0].max_latency",
            says: "or limits per phase"),
    ]

    @Test(arguments: cases) func refusedWithPath(_ given: Case) throws {
        let error = try ProbeHarness.configError(given.config)
        #expect(error.path.description == given.path)
        #expect(error.message.contains(given.says), "\(error.message)")
    }

    /// A FIFO with no writer as a tls file: refused at once, not waited on (the open blocked).
    @Test func aFIFOAsATLSFileIsRefusedWithoutWaiting() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let fifo = dir.appendingPathComponent("ca.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let error = try ProbeHarness.configError(
            #"{"targets": [{"name": "a", \#(Self.good), "tls": {"ca_file": "\#(fifo)"}}]}"#)
        #expect(error.path.description == "targets[0].tls.ca_file")
        #expect(error.message.contains("ca.fifo\": not a regular file (a FIFO)"), "\(error.message)")
    }

    @Test func secretsNeverAppearInErrors() throws {
        let secret = "Bearer-\(getpid())-xyz"
        let configs = [
            #"{"targets": [{"name": "a", "url": "ftp://user:\#(secret)@127.0.0.1/"}]}"#,
            #"{"targets": [{"name": "a", "url": "http://127.0.0.1/?key=\#(secret)", "body": "\#(secret)"}]}"#,
            #"{"targets": [{"name": "a", "url": "http://127.0.0.1/", "headers": {"Authorization": "\#(secret)\r\n"}}]}"#,
            #"{"targets": [{"name": "a", "url": "http://[\#(secret)/"}]}"#,
            #"{"targets": [{"name": "a", "url": "http://127.0.0.1/", "expect_header": {"X-Token": "/\#(secret)(/"}}]}"#,
            #"{"targets": [{"name": "a", "url": "http://127.0.0.1/", "expect_body": "/\#(secret)[/"}]}"#,
        ]
        for config in configs {
            let error = try ProbeHarness.configError(config)
            #expect(!error.description.contains(secret), "\(error)")
        }
    }

    @Test func defaultsApply() throws {
        let probe = try ProbeHarness.makeProbe(#"{"targets": [{"name": "a", \#(Self.good)}]}"#)
        #expect(probe.maxConcurrency == 64)
        let target = try #require(probe.targets.first)
        #expect(target.method == .get)
        #expect(target.timeout == .seconds(5))
        #expect(target.expectStatus == .successful)
        #expect(target.freshConnection)
        #expect(!target.followRedirects)
        #expect(target.ipVersion == .any)
        #expect(target.certExpiryWarn == .seconds(14 * 86_400))
    }

    @Test func declaresItNeedsTheNetwork() {
        #expect(ReachabilityProbe.flags.contains(.needsNetwork))
        #expect(ReachabilityProbe.name == "reachability")
    }
}
