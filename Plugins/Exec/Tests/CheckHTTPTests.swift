import Foundation
import PathwatchProbeKit
import PathwatchProbeTesting
import PathwatchTestSupport
import Testing

@testable import ExecProbe

/// Debian's `check_http` through the probe against servers the test starts on 127.0.0.1: one
/// that answers 200 or 500 by path, and a listening socket that never answers.
@Suite(.serialized, .onItsOwnThread, .enabled(if: ExecTesting.hasMonitoringPlugins, "\(ExecTesting.needsPlugins)"))
struct CheckHTTPTests {
    /// `/ok` answers 200 with a 5-byte body, anything else 500.
    static let server = #"""
        import http.server, sys
        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                ok = self.path == "/ok"
                body = b"hello" if ok else b"boom"
                self.send_response(200 if ok else 500)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *a): pass
        s = http.server.HTTPServer(("127.0.0.1", 0), H)
        print(s.server_address[1], flush=True)
        s.serve_forever()
        """#

    func sample(_ commands: [(String, [String])], extra: String = "") throws -> [String: Emitted] {
        let marker = UUID().uuidString
        let probe = try ProbeTester(ExecProbe.self, config: ExecTesting.config(commands, marker: marker, extra: extra))
        let checks = try probe.sample(within: .seconds(20))
        #expect(ExecTesting.waitUntilNoneAlive(marker))
        return Dictionary(uniqueKeysWithValues: checks.map { ($0.key, $0) })
    }

    @Test func okAndA500() throws {
        let server = try BackgroundProcess(["python3", "-c", Self.server])
        // No grace: the server keeps nothing, and a SIGTERM the runner's mask blocks would cost 5 s.
        defer { server.stop(grace: 0) }
        let port = try #require(
            server.waitForLine(timeout: 30) { Int($0) != nil }?.line, "the server did not start: \(server.errorOutput)")
        let http = ExecTesting.plugins + "/check_http"
        let checks = try sample([
            ("ok", [http, "-H", "127.0.0.1", "-p", port, "-u", "/ok"]),
            ("fail", [http, "-H", "127.0.0.1", "-p", port, "-u", "/fail"]),
        ])
        let ok = try #require(checks["ok"])
        let fail = try #require(checks["fail"])
        #expect(ok.state == .ok)
        #expect(ok.message.hasPrefix("HTTP OK: HTTP/1.0 200 OK - "), "\(ok.message)")
        #expect(ok.message.contains(" bytes in "), "\(ok.message)")
        #expect(ok.metrics["time_seconds"] != nil, "\(ok.metrics)")
        #expect(ok.metrics["size_bytes"] ?? 0 > 5, "the reply's size, head and body: \(ok.metrics)")
        #expect(try ok.metric("command_exit_status") == 0)
        #expect(fail.state == .critical)
        #expect(fail.message.hasPrefix("HTTP CRITICAL: HTTP/1.0 500 Internal Server Error - "), "\(fail.message)")
        #expect(try fail.metric("command_exit_status") == 2)
    }

    /// A socket that listens and never accepts: the kernel completes the handshake, nobody
    /// answers. check_http's own `-t` ends it critical; an exec timeout shorter than it, unknown.
    @Test func aServerThatNeverAnswers() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in(
            sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")),
            sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                guard bind(listener, $0, length) == 0, listen(listener, 8) == 0, getsockname(listener, $0, &length) == 0
                else { throw POSIXError(.EADDRINUSE) }
            }
        }
        let port = "\(UInt16(bigEndian: address.sin_port))"
        let http = ExecTesting.plugins + "/check_http"
        let own = try sample([("own", [http, "-H", "127.0.0.1", "-p", port, "-t", "1"])])
        let check = try #require(own["own"])
        #expect(check.state == .critical)
        #expect(check.message == "CRITICAL - Socket timeout after 1 seconds", "\(check.message)")
        let cut = try sample(
            [("cut", [http, "-H", "127.0.0.1", "-p", port, "-t", "30"])], extra: #", "timeout": "1s""#)
        let killed = try #require(cut["cut"])
        #expect(killed.state == .unknown)
        #expect(killed.message.hasPrefix("killed by SIGTERM after timeout 1s"), "\(killed.message)")
    }
}
