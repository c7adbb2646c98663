import Foundation
import PathwatchTestSupport
import Testing

/// Stopping while a sample is inside its plug-in is not a late sample: the probe was stopped,
/// and the log must not say that a sample "returned after its deadline and grace" (every stop
/// of an agent with a slow probe used to say so, with the probe's timeout far off).
@Suite(.onItsOwnThread) struct StopWithSampleInFlightTests {
    /// The plug-in child's thread sleeping inside the test probe's sample: the call is in flight.
    static func sampleInFlight(in folder: URL) -> Bool {
        StopManyProbesTests.pluginChildren(servingFrom: folder).contains { child in
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(child)/task")) ?? []
            return tasks.contains { task in
                let wchan = (try? String(contentsOfFile: "/proc/\(child)/task/\(task)/wchan", encoding: .utf8)) ?? ""
                return wchan.contains("nanosleep")
            }
        }
    }

    @Test func aStopDuringASampleIsNotReportedAsALateSample() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"], "state_dir": "\(dir.path)/state"},
             "probes": [{"id": "slow", "plugin": "testprobe", "interval": "1h", "timeout": "120s",
                         "isolation": "process", "config": {"sleep_ms": 60000}}],
             "sinks": [{"type": "stdout", "format": "text", "on": "change"}]}
            """, in: dir)
        try Unprivileged.own(dir)
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop(grace: 1) }
        let inFlight = waitUntil(timeout: 60) { Self.sampleInFlight(in: dir) }
        try #require(inFlight, "no sample in flight; stderr: \(agent.errorOutput.suffix(2_000))")
        agent.signal(SIGTERM)
        let ended = agent.waitForExit(timeout: 30)
        try #require(ended, "still running 30 s after SIGTERM")
        #expect(agent.stop() == 0, "a clean stop exits 0; stderr: \(agent.errorOutput.suffix(1_000))")
        #expect(
            !agent.errorOutput.contains("deadline and grace"),
            "a stop was logged as a late sample: \(agent.errorOutput.suffix(1_000))")
    }
}
