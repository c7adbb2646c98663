import Foundation
import PathwatchProbeKit
import PathwatchProbeTesting
import PathwatchTestSupport
import Testing

@testable import ExecProbe

/// Commands that misbehave: each ends with the state and reason expected, and leaves no process
/// of its group behind (counted from /proc by the marker in its environment).
@Suite(.onItsOwnThread) struct HostileCommandTests {
    func run(_ name: String, _ script: String, timeout: String = "1s", grace: String = "300ms") throws -> Emitted {
        let marker = UUID().uuidString
        let config = ExecTesting.config(
            [(name, ["/bin/sh", "-c", script])], marker: marker, extra: ", \"timeout\": \"\(timeout)\"",
            probe: ", \"kill_grace\": \"\(grace)\"")
        let probe = try ProbeTester(ExecProbe.self, config: config)
        let checks = try probe.sample(within: .seconds(5))
        #expect(checks.count == 1)
        // SIGKILL is sent before the sample returns; the kernel ends the processes just after.
        #expect(ExecTesting.waitUntilNoneAlive(marker), "a process of \(name) is still running")
        return checks[0]
    }

    @Test func aCommandIgnoringSIGTERMIsKilledAfterTheGrace() throws {
        let check = try run("stubborn", "trap '' TERM; echo waiting; while :; do sleep 0.05; done")
        #expect(check.state == .unknown)
        #expect(check.message == "killed by SIGKILL after timeout 1s (it ignored SIGTERM): waiting")
    }

    @Test func aCommandPastItsTimeoutIsEndedBySIGTERM() throws {
        let check = try run("slow", "exec sleep 30")
        #expect(check.state == .unknown)
        #expect(check.message == "killed by SIGTERM after timeout 1s")
    }

    @Test func aFloodIsCutAndSaid() throws {
        let check = try run("flood", "echo 'FLOOD OK'; head -c 1000000 /dev/zero | tr '\\\\0' x; exit 0")
        #expect(check.state == .ok)
        #expect(check.message.hasPrefix("FLOOD OK"))
        #expect(
            check.message.contains("output cut at 65536 bytes (max_output); 934473 more bytes read and not kept"),
            "\(check.message)")
        #expect(try check.metric("command_output_bytes") == 1_000_009)
    }

    @Test func aCommandThatClosesItsOutputAndKeepsRunningTimesOut() throws {
        let check = try run("closer", "echo 'said this'; exec >&- 2>&-; sleep 30")
        #expect(check.state == .unknown)
        #expect(
            check.message == "killed by SIGTERM after timeout 1s; it had closed its output and kept running: said this")
    }

    @Test func aCommandEndedBySignalSaysWhich() throws {
        let check = try run("crash", "echo before; kill -SEGV $$")
        #expect(check.state == .unknown)
        #expect(check.message == "killed by SIGSEGV: before")
    }

    @Test func aGrandchildHoldingTheOutputIsKilledWithItsGroup() throws {
        let check = try run("forker", "sleep 30 & echo 'PARENT OK'; exit 0", timeout: "3s")
        #expect(check.state == .ok)
        #expect(
            check.message
                == "PARENT OK [a process it started still held its output after it exited: its process group was killed]"
        )
        #expect(try check.metric("command_duration_ms") < 2_000)
    }

    @Test func aDaemonLeftBehindIsKilledAndSaid() throws {
        let check = try run("leaver", "sleep 30 >/dev/null 2>&1 & echo 'LEFT OK'")
        #expect(check.state == .ok)
        #expect(check.message == "LEFT OK [it left processes running in its process group: killed]")
    }

    @Test func statusesOutsideTheAPIAreUnknownWithTheReason() throws {
        let check = try run("missing", "echo 'no such thing' >&2; exit 127")
        #expect(check.state == .unknown)
        #expect(check.message == "exited with status 127: no such thing")
    }

    @Test func aProgramThatCannotStartIsUnknown() throws {
        let probe = try ProbeTester(
            ExecProbe.self,
            config:
                #"{"commands": [{"name": "x", "command": ["/nonexistent/check_x"]}, {"name": "y", "command": ["no_such_check_anywhere"]}]}"#
        )
        let checks = try probe.sample(within: .seconds(5)).sorted { $0.key < $1.key }
        #expect(checks.map(\.state) == [.unknown, .unknown])
        #expect(checks[0].message == "cannot run /nonexistent/check_x: No such file or directory")
        #expect(checks[1].message == "cannot run no_such_check_anywhere: No such file or directory")
    }

    @Test func theEnvironmentIsMinimalAndStdinIsEmptyAndOnlyThreeDescriptorsAreOpen() throws {
        let probe = try ProbeTester(
            ExecProbe.self,
            config: #"""
                {"commands": [{"name": "env", "command": ["/bin/sh", "-c", "echo \"$(env | sort | tr '\\n' ' ')| fds=$(ls /proc/self/fd | wc -l) stdin=$(wc -c)\""], "env": {"SECRET_TOKEN": "hunter2"}}]}
                """#)
        let check = try #require(try probe.sample(within: .seconds(5)).first)
        // ls sees its own directory descriptor besides 0, 1, 2; `wc` reads nothing from /dev/null.
        #expect(
            check.message.hasPrefix(
                "LC_CTYPE=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin PWD="),
            "\(check.message)")
        #expect(check.metrics["fds"] == 4)
        #expect(check.metrics["stdin"] == 0)
    }

    @Test func aThousandRunsLeaveNoZombieAndNoDescriptor() throws {
        let marker = UUID().uuidString
        let commands = (0..<10).map {
            ("c\($0)", ["/bin/sh", "-c", $0 % 2 == 0 ? "echo OK; exit 0" : "sleep 5 & echo FORK; exit 2"])
        }
        let probe = try ProbeTester(
            ExecProbe.self, config: ExecTesting.config(commands, marker: marker, probe: ", \"max_parallel\": 4"))
        _ = try probe.sample(within: .seconds(10))
        let descriptors = ExecTesting.descriptorsOfEndedProcesses()
        for _ in 0..<99 {
            let checks = try probe.sample(within: .seconds(10))
            #expect(checks.count == 10)
        }
        #expect(waitUntil(timeout: 5) { ExecTesting.descriptorsOfEndedProcesses() <= descriptors })
        #expect(waitUntil(timeout: 5) { ExecTesting.zombieChildren() == 0 })
        #expect(ExecTesting.waitUntilNoneAlive(marker))
    }
}
