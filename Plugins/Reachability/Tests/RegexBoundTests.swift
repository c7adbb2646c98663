import Foundation
import PathwatchTestSupport
import Testing

/// Regular expressions are bounded: a pattern that would backtrack for ever on a megabyte body
/// ends in a clear verdict (matched, not found, or the match limit named) within two seconds
/// of CPU a search whatever `max_body`, and a pattern that is costly to compile is compiled within bounds or refused
/// at load, the same way by `check-config` and by `once`. Through the real agent, measured with
/// the kernel's accounting of the whole process tree.
@Suite(.onItsOwnThread) struct RegexBoundTests {
    static let bodyBytes = 1 << 20

    /// Patterns on large bodies (`/repeat` query strings for the fixture server) on which a
    /// backtracking matcher tries an exponential number of ways (glibc's regexec does not finish
    /// any of them), with the state and what the message must start with (nil: an ok check).
    /// PCRE2 first looks for the byte a pattern requires, so `(a|aa)*b` on a body without a "b"
    /// is answered at once; with a "b" at the end (a match: the "b" alone), backtracking
    /// explodes, and the linear-time matcher answers. `[ab]{0,50}[ab]{0,50}c` on 64 MiB
    /// (`max_body` at its largest) is too much for either: the search ends after its CPU time,
    /// which does not grow with `max_body`.
    static let catastrophic: [(pattern: String, body: String, says: String?)] = [
        ("(a|aa)*b", "unit=a&count=\(bodyBytes)", "not found in the body (1 MiB)"),
        ("(a|aa)*b", "unit=a&count=\(bodyBytes - 2)&tail=cb", nil),
        ("(.*,){10}x", "unit=a,&count=\(bodyBytes / 2)", "not found in the body (1 MiB)"),
        (
            "[ab]{0,50}[ab]{0,50}c", "unit=a&count=\(64 << 20)&tail=c",
            "the pattern exceeded its match limit (2s of CPU) on the body (64 MiB) before it could answer"
        ),
    ]

    /// Loose bounds: far below a pinned core or a runaway allocation, far above the agent's
    /// start-up, one sample and a bounded search on a loaded two-core machine.
    static let cpuLimitSeconds = 8.0
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
    func aCatastrophicPatternFailsClearlyWithinBounds(
        example: (pattern: String, body: String, says: String?), isolation: String
    ) throws {
        let (pattern, body, says) = example
        let server = try EndpointServer()
        let setup = try AgentEndToEndTests.Setup()
        let url = server.url("/repeat?" + body)
        // A probe timeout far above the bound, so only the matcher's own limit can end the search.
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
        #expect(run.cpuSeconds < Self.cpuLimitSeconds, "once took \(run.cpuSeconds) s of CPU")
        #expect(run.peakRSSMiB < Self.memoryLimitMiB, "once peaked at \(run.peakRSSMiB) MiB")
    }

    /// `a{1,32767}` is compiled (it is one repeated byte) within the same bounds; a repeat of a
    /// group that large is refused with its path. `check-config` and `once` agree on both.
    @Test func costlyPatternsAreCompiledWithinBoundsOrRefusedTheSameWayByCheckConfigAndOnce() throws {
        let server = try EndpointServer()
        let setup = try AgentEndToEndTests.Setup()
        let url = server.url("/repeat?unit=a&count=40000")
        let cases: [(pattern: String, refusal: String?)] = [
            ("a{1,32767}", nil),
            ("(ab){1,32767}", "regular expression is too large"),
        ]
        for (pattern, refusal) in cases {
            let config = try setup.config(
                #"{"targets": [{"name": "repeat", "url": "\#(url)", "expect_body": "/\#(pattern)/"}]}"#)
            let checked = try measure(["check-config", "--config", config])
            let once = try measure(["once", "--config", config])
            print(
                "/\(pattern)/: check-config \(checked.cpuSeconds) s CPU, \(checked.peakRSSMiB) MiB; once \(once.cpuSeconds) s, \(once.peakRSSMiB) MiB"
            )
            for run in [checked, once] {
                #expect(run.cpuSeconds < Self.cpuLimitSeconds, "/\(pattern)/: \(run.cpuSeconds) s of CPU")
                #expect(run.peakRSSMiB < Self.memoryLimitMiB, "/\(pattern)/: peak \(run.peakRSSMiB) MiB")
            }
            if let refusal {
                for run in [checked, once] {
                    #expect(run.result.status == 78, "/\(pattern)/: \(run.result.stderr)")
                    #expect(
                        run.result.stderr.contains(
                            "probes[0].config.targets[0].expect_body: not a valid regular expression: \(refusal)"),
                        "/\(pattern)/: \(run.result.stderr)")
                    #expect(run.result.stderr.contains("at offset"), "/\(pattern)/: \(run.result.stderr)")
                }
            } else {
                #expect(checked.result.status == 0, "/\(pattern)/: \(checked.result.stderr)")
                #expect(once.result.status == 0, "/\(pattern)/: \(once.result.stdout)\n\(once.result.stderr)")
                #expect(try check(once.result.stdout, "repeat")["state"] as? String == "ok", "\(once.result.stdout)")
            }
        }
    }
}
