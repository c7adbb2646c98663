import Foundation
import PathwatchJSON
import PathwatchTestSupport
import Testing

/// A plug-in whose descriptor holds a pointer that leads nowhere (a wild string, a NULL table
/// with a count, SIZE_MAX declarations, a name with no end before unreadable memory, a call
/// into data) is refused with a line naming the file and the field, by `pathwatch plugins`
/// and by an inline `once`, which read the descriptor in their own process: never a crash.
@Suite(.onItsOwnThread) struct WildDescriptorTests {
    static let cases: [(knob: Int, reason: String)] = [
        (1, "descriptor.name points outside the library's memory"),
        (2, "metric declarations: descriptor.metrics: array is null but its count is 2"),
        (3, "metric declarations: descriptor.metric_count 18446744073709551615 is more than 4096"),
        (4, "descriptor.name has no terminating NUL within the library's memory"),
        (5, "metric declarations: descriptor.metrics[0].help points outside the library's memory"),
        (6, "descriptor points outside the library's memory"),
        (7, "descriptor.sample points outside the library's code"),
        (8, "descriptor.description points outside the library's memory"),
    ]

    @Test(arguments: cases.map(\.knob))
    func aWildDescriptorIsRefusedByTheField(knob: Int) throws {
        let reason = try #require(Self.cases.first { $0.knob == knob }?.reason)
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        try FixturePlugins.build("wild_descriptor.c", as: "wild", into: dir, defines: ["WILD=\(knob)"])
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"], "isolation": "inline"},
             "probes": [{"id": "w", "plugin": "wild"}]}
            """, in: dir)

        let plugins = try run(Unprivileged.pathwatch(["plugins", "--config", config.path]), timeout: 60)
        #expect(!plugins.timedOut)
        #expect(plugins.status == 0, "\(plugins.stdout)\(plugins.stderr)")
        #expect(plugins.stdout.contains("libwild.so: \(reason)"), "\(plugins.stdout)\(plugins.stderr)")

        let once = try run(Unprivileged.pathwatch(["once", "--config", config.path]), timeout: 60)
        #expect(!once.timedOut)
        #expect(once.status == 78, "\(once.stdout)\(once.stderr)")
        #expect(once.stderr.contains("probes[0].plugin: no plug-in named \"wild\""), "\(once.stderr)")
        #expect(once.stderr.contains(reason), "\(once.stderr)")
        #expect(once.stderr.utf8.count < 100_000, "a refusal, not a backtrace")
    }

    /// A descriptor's version and description reach the listing: a control or bidirectional
    /// character in them is shown as its code point.
    @Test func theListingShowsNoControlCharacterOfAPlugins() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        try FixturePlugins.build("wild_descriptor.c", as: "wild", into: dir, defines: ["WILD=9"])
        let config = try writeConfig(
            #"{"agent": {"plugin_dirs": ["\#(dir.path)"]}, "probes": [{"id": "w", "plugin": "wild"}]}"#, in: dir)
        let plugins = try run(Unprivileged.pathwatch(["plugins", "--config", config.path]), timeout: 60)
        #expect(plugins.status == 0, "\(plugins.stdout)\(plugins.stderr)")
        #expect(plugins.stdout.contains(#"1.0\u{1B}[31m"#), "\(plugins.stdout)")
        #expect(plugins.stdout.contains(#"A description \u{202E} reversed \u{1B}]0;title\u{7}."#), "\(plugins.stdout)")
        #expect(!plugins.stdout.unicodeScalars.contains { $0 != "\n" && TextSafety.isUnsafe($0) })
    }
}
