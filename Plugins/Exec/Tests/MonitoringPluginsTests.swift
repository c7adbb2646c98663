import Foundation
import PathwatchProbeKit
import PathwatchProbeTesting
import PathwatchTestSupport
import Testing

@testable import ExecProbe

/// Debian's real Monitoring Plugins through the probe: state, message and performance data.
@Suite(.onItsOwnThread, .enabled(if: ExecTesting.hasMonitoringPlugins, "\(ExecTesting.needsPlugins)"))
struct MonitoringPluginsTests {
    func sample(_ commands: [(String, [String])]) throws -> [String: Emitted] {
        let marker = UUID().uuidString
        let probe = try ProbeTester(ExecProbe.self, config: ExecTesting.config(commands, marker: marker))
        let checks = try probe.sample(within: .seconds(10))
        #expect(ExecTesting.waitUntilNoneAlive(marker))
        return Dictionary(uniqueKeysWithValues: checks.map { ($0.key, $0) })
    }

    @Test func checkDummyMapsEveryExitStatus() throws {
        let p = ExecTesting.plugins + "/check_dummy"
        let checks = try sample((0...4).map { ("s\($0)", [p, "\($0)", "text \($0)"]) })
        #expect(checks["s0"]?.state == .ok && checks["s0"]?.message == "OK: text 0")
        #expect(checks["s1"]?.state == .warning && checks["s1"]?.message == "WARNING: text 1")
        #expect(checks["s2"]?.state == .critical && checks["s2"]?.message == "CRITICAL: text 2")
        #expect(checks["s3"]?.state == .unknown && checks["s3"]?.message == "UNKNOWN: text 3")
        // 4 is outside the API: check_dummy refuses it with status 3 and says so.
        #expect(checks["s4"]?.state == .unknown)
        #expect(try checks["s0"]?.metric("command_exit_status") == 0)
        #expect(try checks["s2"]?.metric("command_exit_status") == 2)
    }

    @Test func checkLoadReportsItsThreeAveragesWithThresholds() throws {
        let check = try #require(
            try sample([("load", [ExecTesting.plugins + "/check_load", "-w", "900,900,900", "-c", "999,999,999"])])[
                "load"])
        #expect(check.state == .ok)
        #expect(check.message.hasPrefix("LOAD OK - total load average:"))
        for name in ["load1", "load5", "load15"] {
            #expect(check.metrics[name] != nil, "no \(name) in \(check.metrics)")
            #expect(check.metrics[name + "_warn"] == 900)
            #expect(check.metrics[name + "_crit"] == 999)
            #expect(check.metrics[name + "_min"] == 0)
        }
    }

    @Test func checkProcsCountsProcesses() throws {
        let check = try #require(
            try sample([("procs", [ExecTesting.plugins + "/check_procs", "-w", "100000"])])["procs"])
        #expect(check.state == .ok)
        #expect(check.message.hasPrefix("PROCS OK:"))
        #expect(try check.metric("procs") >= 1)
        #expect(check.metrics["procs_warn"] == 100_000)
    }

    @Test func checkTCPToAnOpenAndAClosedPort() throws {
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
        let open = Int(UInt16(bigEndian: address.sin_port))
        let closed = try unusedLoopbackPort()
        let tcp = ExecTesting.plugins + "/check_tcp"
        let checks = try sample([
            ("open", [tcp, "-H", "127.0.0.1", "-p", "\(open)"]),
            ("closed", [tcp, "-H", "127.0.0.1", "-p", "\(closed)"]),
        ])
        let up = try #require(checks["open"])
        let down = try #require(checks["closed"])
        #expect(up.state == .ok)
        #expect(up.message.hasPrefix("TCP OK"))
        #expect(up.metrics["time_seconds"] != nil, "\(up.metrics)")
        #expect(down.state == .critical)
        #expect(down.message == "connect to address 127.0.0.1 and port \(closed): Connection refused")
    }
}
