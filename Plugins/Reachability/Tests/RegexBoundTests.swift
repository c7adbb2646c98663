import Foundation
import PathwatchTestSupport
import Testing

/// Regular expressions answer on any body: patterns on which a backtracking matcher tries an
/// exponential number of ways on a megabyte body end in the right verdict (matched or not
/// found) and never in a limit, whatever `max_body`; a pattern whose program is too large to
/// compile within bounds is refused at load, the same way by `check-config` and by `once`.
/// Through the real agent, its memory read from the kernel's accounting of the whole process
/// tree. No timing is asserted: a matcher that gave up would show as a wrong verdict.
@Suite(.onItsOwnThread) struct RegexBoundTests {
    static let bodyBytes = 1 << 20

    /// Patterns on large bodies (`/repeat` query strings for the fixture server) on which a
    /// backtracking matcher tries an exponential number of ways (glibc's regexec does not finish
    /// any of them; PCRE2, which the probe used before RE2, gave up on all but the first), with
    /// what the message must start with (nil: an ok check). `[ab]{0,50}[ab]{0,50}c` on 64 MiB
    /// (`max_body` at its largest) once used up the search's two seconds of CPU.
    static let catastrophic: [(pattern: String, body: String, says: String?)] = [
        ("(a|aa)*b", "unit=a&count=\(bodyBytes)", "not found in the body (1 MiB)"),
        ("(a|aa)*b", "unit=a&count=\(bodyBytes - 2)&tail=cb", nil),
        ("(.*,){10}x", "unit=a,&count=\(bodyBytes / 2)", "not found in the body (1 MiB)"),
        ("(.*,){10}x", "head=x&unit=a,&count=\(bodyBytes / 2 - 1)", "not found in the body (1024 KiB)"),
        ("(a|aa)*b", "unit=aaaaaaaaaaaaaaaaaaaac&count=\(bodyBytes / 21)&tail=b", nil),
        ("[ab]{0,50}[ab]{0,50}c", "unit=a&count=\((64 << 20) - 1)&tail=c", nil),
        ("[ab]{0,50}[ab]{0,50}c", "unit=a&count=\(64 << 20)", "not found in the body (64 MiB)"),
    ]

    /// A loose bound: far below a runaway allocation, far above the agent's start-up, one sample
    /// and the kept body (64 MiB at most).
    static let memoryLimitMiB = 256.0

    func measure(_ arguments: [String]) throws -> MeasuredRun {
        try runMeasuringUsage(Unprivileged.pathwatch(arguments), timeout: 90)
    }

    /// The check `api/<name>` of a `once` document.
    func check(_ output: String, _ name: String) throws -> [String: Any] {
        let checks = try parseJSONObject(output)["checks"] as? [[String: Any]] ?? []
        guard let found = checks.first(where: { $0["id"] as? String == "api/\(name)" }) else {
            throw TestFailure("no check api/\(name) in \(output.prefix(2000))")
        }
        return found
    }

    /// In the plug-in's own child (the default) and inline in the agent, where a runaway match
    /// would hold the agent's sampling thread.
    @Test(arguments: catastrophic, ["process", "inline"])
    func aCatastrophicPatternAnswersRightly(
        example: (pattern: String, body: String, says: String?), isolation: String
    ) throws {
        let (pattern, body, says) = example
        let server = try EndpointServer()
        let setup = try AgentEndToEndTests.Setup()
        let url = server.url("/repeat?" + body)
        // A probe timeout far above what the search takes, so only a wrong verdict can fail.
        let config = try writeConfig(
            #"""
            {"agent": {"plugin_dirs": ["\#(setup.directory.path)"]},
             "probes": [{"id": "api", "plugin": "reachability", "timeout": "30s", "isolation": "\#(isolation)",
                         "config": {"targets": [{"name": "slow-regex", "url": "\#(url)", "expect_body": "/\#(pattern)/", "max_body": "64MiB"}]}}]}
            """#, in: setup.directory)
        let run = try measure(["once", "--config", config.path])
        print(
            "once (\(isolation)) with /\(pattern)/ on \(body): \(run.cpuSeconds) s CPU, peak RSS \(run.peakRSSMiB) MiB"
        )
        let found = try check(run.result.stdout, "slow-regex")
        let message = found["message"] as? String ?? ""
        if let says {
            #expect(found["state"] as? String == "critical", "\(found)")
            #expect(message.hasPrefix("expect_body /\(pattern)/: \(says)"), "\(message)")
        } else {
            #expect(found["state"] as? String == "ok", "\(found)")
        }
        #expect(message.count < 300, "\(message)")
        #expect(run.peakRSSMiB < Self.memoryLimitMiB, "once peaked at \(run.peakRSSMiB) MiB")
    }

    /// `a{1,1000}` is compiled (RE2 counts a repeat up to 1,000) and so is the largest program
    /// within the bound, `[ab]{0,1000}` ten times; `a{1,32767}` is refused, and so is
    /// `[ab]{0,1000}` eleven times, whose program passes the bound: `check-config` and `once`
    /// agree on all four, with the path.
    @Test func costlyPatternsAreCompiledWithinBoundsOrRefusedTheSameWayByCheckConfigAndOnce() throws {
        let server = try EndpointServer()
        let setup = try AgentEndToEndTests.Setup()
        let url = server.url("/repeat?unit=a&count=40000")
        let cases: [(pattern: String, refusal: String?)] = [
            ("a{1,1000}", nil),
            (String(repeating: "[ab]{0,1000}", count: 10), nil),
            (
                "a{1,32767}",
                "invalid repetition size at offset 1 (a repeat count is at most 1000, nested counts multiplied)"
            ),
            (
                String(repeating: "[ab]{0,1000}", count: 11),
                "pattern too large - compile failed (its program needs more than 256 KiB; a repeat copies what it repeats)"
            ),
        ]
        for (pattern, refusal) in cases {
            let config = try setup.config(
                #"{"targets": [{"name": "repeat", "url": "\#(url)", "expect_body": "/\#(pattern)/"}]}"#)
            let checked = try measure(["check-config", "--config", config])
            let once = try measure(["once", "--config", config])
            print(
                "/\(pattern.prefix(40))/: check-config \(checked.cpuSeconds) s CPU, \(checked.peakRSSMiB) MiB; once \(once.cpuSeconds) s, \(once.peakRSSMiB) MiB"
            )
            for run in [checked, once] {
                #expect(run.peakRSSMiB < Self.memoryLimitMiB, "/\(pattern)/: peak \(run.peakRSSMiB) MiB")
            }
            if let refusal {
                for run in [checked, once] {
                    #expect(run.result.status == 78, "/\(pattern)/: \(run.result.stderr)")
                    #expect(
                        run.result.stderr.contains(
                            "probes[0].config.targets[0].expect_body: not a valid regular expression: \(refusal)"),
                        "/\(pattern)/: \(run.result.stderr)")
                }
            } else {
                #expect(checked.result.status == 0, "/\(pattern)/: \(checked.result.stderr)")
                #expect(once.result.status == 0, "/\(pattern)/: \(once.result.stdout)\n\(once.result.stderr)")
                #expect(try check(once.result.stdout, "repeat")["state"] as? String == "ok", "\(once.result.stdout)")
            }
        }
    }
}
