import Foundation
import PathwatchProbeKit
import PathwatchProbeTesting
import PathwatchTestSupport
import Testing

@testable import ExecProbe

/// What a command prints cannot cost the check: more metrics than a check carries are cut with
/// the count said, and control characters and bidirectional overrides are escaped in the
/// message. What a configuration cannot mean is refused with its path: a relative program, a
/// relative PATH entry.
@Suite(.onItsOwnThread) struct ExecOutputSafetyTests {
    func check(_ script: String, format: String = "nagios") throws -> Emitted {
        let marker = UUID().uuidString
        let config = ExecTesting.config(
            [("out", ["/bin/sh", "-c", script])], marker: marker, extra: ", \"format\": \"\(format)\"")
        let probe = try ProbeTester(ExecProbe.self, config: config)
        let checks = try probe.sample(within: .seconds(10))
        return try #require(checks.first)
    }

    /// 2,000 perfdata items: the agent takes at most 1,024 metrics in a check, the probe's
    /// three among them, and would refuse all of it ("metric_count … is more than 1024").
    @Test func perfdataPastTheLimitKeepsTheFirstAndSaysHowManyWereLeftOut() throws {
        let check = try check(
            #"printf 'MANY OK |'; i=0; while [ $i -lt 2000 ]; do printf ' m%d=%d' $i $i; i=$((i+1)); done; echo"#)
        #expect(check.state == .ok)
        #expect(check.metrics.count == 1_024)
        #expect(check.metrics["m0"] == 0 && check.metrics["m1020"] == 1_020 && check.metrics["m1021"] == nil)
        #expect(check.metrics["command_exit_status"] == 0)
        #expect(
            check.message
                == "MANY OK [979 more metrics left out: a check carries at most 1024, the first 1021 of the output kept]"
        )
    }

    /// Thresholds count too: 300 items of value, warn, crit, min and max are 1,500 metrics.
    @Test func thresholdMetricsCountTowardsTheLimit() throws {
        let check = try check(
            #"printf 'T OK |'; i=0; while [ $i -lt 300 ]; do printf ' t%d=1;2;3;0;9' $i; i=$((i+1)); done; echo"#)
        #expect(check.metrics.count == 1_024)
        #expect(check.message.contains("[479 more metrics left out"), "\(check.message)")
    }

    @Test func prometheusSamplesPastTheLimitAreCutTheSameWay() throws {
        let check = try check(
            #"i=0; while [ $i -lt 1500 ]; do echo "s_$i $i"; i=$((i+1)); done"#, format: "prometheus")
        #expect(check.state == .ok)
        #expect(check.metrics.count == 1_024)
        #expect(
            check.message
                == "1021 metrics [479 more metrics left out: a check carries at most 1024, the first 1021 of the output kept]"
        )
    }

    /// ESC (a terminal's colour or cursor sequence), a bidirectional override (RLO, which shows
    /// "exe.txt" as "txt.exe") and a C1 control reach the message escaped, from stdout, from
    /// stderr (the reason of a failure) and from a perfdata label named in a problem.
    @Test func controlCharactersAndBidiOverridesAreEscapedInTheMessage() throws {
        let stdout = try check(#"printf '\033[31mRED\033[0m OK \342\200\256txt.exe \302\233x\n'"#)
        #expect(stdout.message == #"\u{1B}[31mRED\u{1B}[0m OK \u{202E}txt.exe \u{9B}x"#)
        let stderr = try check(#"printf '\033]0;title\007 failed\n' >&2; exit 9"#)
        #expect(stderr.message == #"exited with status 9: \u{1B}]0;title\u{7} failed"#)
        let label = try check(#"printf 'OK | \033x\n'"#)
        #expect(label.message == #"OK [perfdata "\u{1B}x": no '=' (expected label=value)]"#)
    }

    func refusal(_ command: String, env: String = "", name: String = "x") -> String? {
        do {
            _ = try ProbeTester(
                ExecProbe.self, config: #"{"commands": [{"name": "\#(name)", "command": \#(command)\#(env)}]}"#)
            return nil
        } catch {
            return error.description
        }
    }

    /// A relative program would run from the agent's working folder, whatever it is: refused
    /// with its path and what to write; a bare name is looked up in PATH, as documented.
    @Test func aRelativeProgramIsRefusedNamingItsPath() {
        #expect(
            refusal(#"["./check.sh"]"#)
                == #"commands[0].command[0]: "./check.sh" is a relative path; write the program's absolute path (a name without a slash is looked up in PATH)"#
        )
        #expect(
            refusal(#"["scripts/check_db", "-w", "5"]"#)?.hasPrefix("commands[0].command[0]: \"scripts/check_db\"")
                == true)
        #expect(refusal(#"["../check"]"#) != nil)
        #expect(refusal(#"["check_load"]"#) == nil)
        #expect(refusal(#"["/usr/lib/nagios/plugins/check_load"]"#) == nil)
    }

    /// A PATH with an empty or relative entry makes a bare name's lookup depend on the working
    /// folder: refused at `env.PATH`, naming the entry by its place (the value may be a secret).
    @Test(arguments: ["bin:/usr/bin", "/usr/bin::/bin", "/usr/bin:", ":/usr/bin", "."])
    func aRelativePATHEntryIsRefused(path: String) {
        let message = refusal(#"["check_x"]"#, env: #", "env": {"PATH": "\#(path)"}"#)
        #expect(message?.hasPrefix("commands[0].env.PATH: entry ") == true, "\(message ?? "accepted")")
        #expect(message?.contains("is not an absolute folder") == true)
    }

    /// A command's name is its check's key: a bidirectional override or a C1 control in it is
    /// refused at load, as the agent refuses them in every identifier.
    @Test func aNameWithABidiOverrideOrAC1ControlIsRefused() {
        #expect(
            refusal(#"["/bin/true"]"#, name: #"disk\u202Etxt"#)
                == "commands[0].name: expected printable characters; found a bidirectional control character U+202E at character 5"
        )
        #expect(
            refusal(#"["/bin/true"]"#, name: #"a\u009Bb"#)?.hasPrefix("commands[0].name: expected printable") == true)
    }
}
