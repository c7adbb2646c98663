import Foundation
import PathwatchProbeKit
import PathwatchProbeTesting
import PathwatchTestSupport

@testable import ExecProbe

/// What the exec tests share: a probe from a list of commands, and a count of the processes a
/// test's commands left, found from /proc by a marker in their environment.
enum ExecTesting {
    static let plugins = "/usr/lib/nagios/plugins"
    static var hasMonitoringPlugins: Bool { FileManager.default.isExecutableFile(atPath: plugins + "/check_dummy") }
    static let needsPlugins = "needs Debian's monitoring-plugins-basic and -standard (make test-deps)"

    /// A JSON string.
    static func quoted(_ s: String) -> String {
        String(
            decoding: try! JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes]),
            as: UTF8.self
        ).dropFirst().dropLast().description
    }

    /// A probe config running `commands` (name → argv), each marked with `marker` in its
    /// environment; extra JSON members of each command in `extra`.
    static func config(_ commands: [(String, [String])], marker: String, extra: String = "", probe: String = "")
        -> String
    {
        let list = commands.map { name, argv in
            "{\"name\": \(quoted(name)), \"command\": [\(argv.map(quoted).joined(separator: ", "))], \"env\": {\"PW_TEST_MARK\": \(quoted(marker))}\(extra)}"
        }
        return "{\"commands\": [\(list.joined(separator: ", "))]\(probe)}"
    }

    /// Processes alive (not zombies) whose environment carries `marker`, and zombies of any.
    static func processes(marked marker: String) -> (alive: Int, zombies: Int) {
        var alive = 0
        var zombies = 0
        let needle = Array("PW_TEST_MARK=\(marker)".utf8)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        where entry.allSatisfy(\.isNumber) {
            guard let environ = FileManager.default.contents(atPath: "/proc/\(entry)/environ") else { continue }
            let state = (try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8)).flatMap {
                $0.split(separator: ")").last?.split(separator: " ").first
            }
            let marked = environ.split(separator: 0).contains { Array($0) == needle }
            if marked { if state == "Z" { zombies += 1 } else { alive += 1 } }
        }
        return (alive, zombies)
    }

    /// Zombie children of this process (the tests' stand-in for the plug-in child).
    static func zombieChildren() -> Int {
        let me = getpid()
        var count = 0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        where entry.allSatisfy(\.isNumber) {
            guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let tail = stat.split(separator: ")").last
            else { continue }
            let fields = tail.split(separator: " ")
            if fields.count > 2, fields[0] == "Z", Int32(fields[1]) == me { count += 1 }
        }
        return count
    }

    /// This process's pidfds whose process has ended and been reaped (fdinfo says `Pid: -1`).
    /// The whole test binary shares one descriptor table: suites running beside these tests hold
    /// pidfds of live children (a plug-in child, another exec run), and close theirs moments after
    /// reaping. A runner that leaks one keeps it for good, so a leak is a count that stays up
    /// (the tests wait a few seconds for it to come down).
    static func descriptorsOfEndedProcesses() -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter { entry in
            guard
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"))
                    == "anon_inode:[pidfd]",
                let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(entry)", encoding: .utf8)
            else { return false }
            return info.split(separator: "\n").contains { $0.hasPrefix("Pid:") && $0.hasSuffix("-1") }
        }.count
    }

    /// Waits (up to 5 s, polling /proc) until no marked process is alive; false if one still is.
    static func waitUntilNoneAlive(_ marker: String) -> Bool {
        waitUntil(timeout: 5) { processes(marked: marker).alive == 0 }
    }
}
