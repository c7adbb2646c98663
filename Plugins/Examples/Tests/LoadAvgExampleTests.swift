import Foundation
import PathwatchTestSupport
import Testing

/// The C example: built from the header alone, loaded by the real agent.
@Suite(.onItsOwnThread) struct LoadAvgExampleTests {
    @Test func builtFromTheHeaderAloneItReportsWhatTheKernelSays() throws {
        let build = try ExampleBuild()
        defer { build.cleanUp() }
        let before = try LoadAverage.read()
        // warn at 0 per CPU and crit far away: the state is "warning" whatever the machine's load.
        let result = try build.once(probeConfig: #"{"warn_per_cpu": 0, "crit_per_cpu": 1000}"#)
        let after = try LoadAverage.read()
        #expect(result.status == 1, "stderr: \(result.stderr)")

        let document = try parseJSONObject(result.stdout)
        let checks = try #require(document["checks"] as? [[String: Any]])
        let check = try #require(checks.first { $0["id"] as? String == "load/load" })
        #expect(check["plugin"] as? String == "loadavg")
        #expect(check["state"] as? String == "warning")
        let metrics = try #require(check["metrics"] as? [String: Double])
        #expect(Set(metrics.keys) == ["load1", "load5", "load15", "load1_per_cpu", "cpus", "running", "tasks"])

        // The kernel updates load averages every 5 s and prints them to 0.01: the probe's reading
        // lies between the two taken around it, give or take that last digit.
        for (index, name) in ["load1", "load5", "load15"].enumerated() {
            let value = try #require(metrics[name])
            let low = min(before.load[index], after.load[index]) - 0.01
            let high = max(before.load[index], after.load[index]) + 0.01
            #expect((low...high).contains(value), "\(name) \(value) not within \(low)...\(high)")
        }
        let cpus = Double(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        #expect(metrics["cpus"] == cpus)
        let perCPU = try #require(metrics["load1_per_cpu"])
        #expect(abs(perCPU - metrics["load1"]! / cpus) < 1e-9)
        #expect(
            check["message"] as? String
                == String(
                    format: "warning: %.2f per CPU (warn 0); load %.2f %.2f %.2f on %d CPUs",
                    perCPU, metrics["load1"]!, metrics["load5"]!, metrics["load15"]!, Int(cpus)))
        // Runnable and total tasks move with every process started (the agent's own threads
        // among them), so they are held to sanity rather than equality.
        let running = try #require(metrics["running"])
        let tasks = try #require(metrics["tasks"])
        #expect(running >= 1 && running <= tasks)
        #expect(tasks >= min(before.tasks, after.tasks) / 2 && tasks <= max(before.tasks, after.tasks) * 2)
    }

    @Test func withDefaultThresholdsTheStateFollowsTheLoadPerCPU() throws {
        let build = try ExampleBuild()
        defer { build.cleanUp() }
        let result = try build.once(probeConfig: "{}")
        let document = try parseJSONObject(result.stdout)
        let check = try #require((document["checks"] as? [[String: Any]])?.first)
        let perCPU = try #require((check["metrics"] as? [String: Double])?["load1_per_cpu"])
        let expected = perCPU >= 2 ? ("critical", 2) : perCPU >= 1 ? ("warning", 1) : ("ok", 0)
        #expect(check["state"] as? String == expected.0)
        #expect(result.status == Int32(expected.1))
    }

    @Test(arguments: [
        (#"{"bogus": 1}"#, "probes[0].config.bogus", "unknown key \"bogus\""),
        // A key that is not a plain name keeps its brackets: one key, not a path through two.
        (#"{"warn.per_cpu": 1}"#, #"probes[0].config["warn.per_cpu"]:"#, "unknown key \"warn.per_cpu\""),
        (#"{"warn_per_cpu": "high"}"#, "probes[0].config.warn_per_cpu", "expected a number, found a string"),
        (#"{"crit_per_cpu": -1}"#, "probes[0].config.crit_per_cpu", "expected a number of at least 0"),
        (#"{"warn_per_cpu": 3}"#, "probes[0].config.warn_per_cpu", "must not exceed crit_per_cpu (2), found 3"),
    ])
    func aBadConfigIsAConfigurationErrorWithItsPath(config: String, path: String, message: String) throws {
        let build = try ExampleBuild()
        defer { build.cleanUp() }
        let result = try build.once(probeConfig: config)
        #expect(result.status == 78)
        #expect(result.stderr.contains(path), "stderr: \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func thePackageBuildsTheSameExampleAndTheAgentListsIt() throws {
        let folder = try TestEnvironment.makeTemporaryDirectory("pathwatch-example-list")
        defer { TestEnvironment.removeTemporaryDirectory(folder) }
        let config = folder.appendingPathComponent("config.json")
        try #"{"agent": {"plugin_dirs": ["\#(TestEnvironment.productsDirectory.path)"]}}"#
            .write(to: config, atomically: true, encoding: .utf8)
        let result = try run([TestEnvironment.pathwatchBinary.path, "plugins", "--config", config.path])
        #expect(result.status == 0)
        let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("loadavg ") }
        #expect(line?.contains(TestEnvironment.plugin("pathwatch_loadavg").path) == true, "\(result.stdout)")
        #expect(line?.contains("abi 1") == true)
    }
}
