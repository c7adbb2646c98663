import Foundation
import PathwatchTestSupport
import Testing

/// A 10 MB answer must not grow the agent: the peak resident memory (VmHWM) of the plug-in's
/// own process (process isolation), read once its first sample is in, grows by about max_body
/// with a body condition and by nothing without one. A control with max_body above the body's
/// size shows the measurement does see a body kept whole.
@Suite(.onItsOwnThread) struct BodyBoundTests {
    static let bodyBytes = 10_000_000

    /// Runs `pathwatch run` as an ordinary user with one target, waits for the first sample of
    /// `api/big`, and returns the plug-in process's VmHWM in KiB with the check's state.
    func pluginPeak(_ server: EndpointServer, size: Int, keys: String) throws -> (
        kib: Int, state: String, message: String
    ) {
        let setup = try AgentEndToEndTests.Setup()
        let state = try Unprivileged.makeTemporaryDirectory("pathwatch-reach-state")
        defer { TestEnvironment.removeTemporaryDirectory(state) }
        let config = try writeConfig(
            #"""
            {"agent": {"plugin_dirs": ["\#(setup.directory.path)"], "state_dir": "\#(state.path)"},
             "probes": [{"id": "api", "plugin": "reachability", "interval": "1h",
                         "config": {"targets": [{"name": "big", "url": "\#(server.url("/big/\(size)"))"\#(keys)}]}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}
            """#, in: setup.directory)
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop() }
        // The event: a document in which the check has been sampled.
        let sampled = waitUntilValue(timeout: 60) { () -> (String, String)? in
            for line in agent.outputLines.reversed() {
                guard let document = try? parseJSONObject(line),
                    let check = (document["checks"] as? [[String: Any]])?.first(where: {
                        $0["id"] as? String == "api/big"
                    }),
                    let state = check["state"] as? String, state == "ok" || state == "critical"
                else { continue }
                return (state, check["message"] as? String ?? "")
            }
            return nil
        }
        guard let (checkState, message) = sampled else {
            throw TestFailure("no sample: \(agent.errorOutput.suffix(2000))")
        }
        let children = processTree(agent.processIdentifier).dropFirst()
        let peaks = children.compactMap(Self.peakKiB)
        guard let peak = peaks.max() else { throw TestFailure("no plug-in process under the agent") }
        return (peak, checkState, message)
    }

    /// VmHWM of a process in KiB, from /proc/PID/status.
    static func peakKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    @Test func aTenMegabyteBodyGrowsThePlugInByAtMostAboutMaxBody() throws {
        let server = try EndpointServer()
        let json = #", "expect_json": {"/status": "UP"}"#
        let base = try pluginPeak(server, size: 100, keys: json)
        let plain = try pluginPeak(server, size: Self.bodyBytes, keys: "")
        let bounded = try pluginPeak(server, size: Self.bodyBytes, keys: json)
        let whole = try pluginPeak(server, size: Self.bodyBytes, keys: json + #", "max_body": "16MiB""#)
        let growth = (plain: plain.kib - base.kib, bounded: bounded.kib - base.kib, whole: whole.kib - base.kib)
        print(
            "plug-in VmHWM: base \(base.kib) KiB; 10 MB body: no condition +\(growth.plain) KiB, expect_json (max_body 1 MiB) +\(growth.bounded) KiB, max_body 16 MiB (control) +\(growth.whole) KiB"
        )

        #expect(plain.state == "ok", "\(plain.message)")
        #expect(
            bounded.state == "critical"
                && bounded.message.hasPrefix("expect_json: the body is not complete JSON, cut at max_body (1 MiB)"),
            "\(bounded.message)")
        // Without a condition nothing is kept; with one, the kept MiB and its parse, not 10 MB.
        #expect(growth.plain < 2 * 1024, "no condition grew the plug-in by \(growth.plain) KiB")
        #expect(growth.bounded < 4 * 1024, "expect_json grew the plug-in by \(growth.bounded) KiB")
        // The control: a limit above the body keeps all of it, and the measurement sees it.
        #expect(growth.whole > 9 * 1024, "max_body 16 MiB grew the plug-in by only \(growth.whole) KiB")
    }
}
