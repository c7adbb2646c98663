import Foundation
import PathwatchTestSupport
import Testing

/// `plugins --try` as an author first meets it, run as the unprivileged user: the library named
/// as it sits in the current folder, the probe's config as text or `@FILE` under a name of its
/// own, a sample of many megabytes shown whole, and a crash reported without the trial child's
/// own backtrace posing as what the plug-in printed.
@Suite(.onItsOwnThread) struct PluginTrialInputTests {
    func folder() throws -> URL {
        let dir = try FixturePlugins.folderWithTestProbe()
        try Unprivileged.own(dir)
        return dir
    }

    @Test func aBareFileNameIsTheFileInTheCurrentFolder() throws {
        let dir = try folder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let here = try run(
            Unprivileged.pathwatch(["plugins", "--try", "libtestprobe.so"]), timeout: 60, currentDirectory: dir)
        #expect(here.status == 0, "\(here.stdout)\(here.stderr)")
        #expect(here.stdout.contains("plug-in: testprobe"), "\(here.stdout)")
        #expect(!here.stdout.contains("cannot open shared object file"), "\(here.stdout)")
        let missing = try run(
            Unprivileged.pathwatch(["plugins", "--try", "libnothere.so"]), timeout: 60, currentDirectory: dir)
        #expect(missing.status != 0)
        #expect(
            missing.stderr.contains("libnothere.so: no such file in the current folder"),
            "\(missing.stdout)\(missing.stderr)")
    }

    @Test func theProbeConfigIsTextOrAFileUnderItsOwnName() throws {
        let dir = try folder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let library = dir.appendingPathComponent("libtestprobe.so").path
        let text = try run(
            Unprivileged.pathwatch(["plugins", "--try", library, "--probe-config", #"{"checks": 3}"#]), timeout: 60)
        #expect(text.status == 0, "\(text.stdout)\(text.stderr)")
        #expect(text.stdout.contains("sample: 3 observations"), "\(text.stdout)")

        let file = try writeConfig(#"{"checks": 4}"#, in: dir, name: "probe.json")
        try Unprivileged.own(dir)
        let fromFile = try run(
            Unprivileged.pathwatch(["plugins", "--try", library, "--probe-config", "@\(file.path)"]), timeout: 60)
        #expect(fromFile.status == 0, "\(fromFile.stdout)\(fromFile.stderr)")
        #expect(fromFile.stdout.contains("sample: 4 observations"), "\(fromFile.stdout)")

        // A file longer than one command-line argument may be (128 KiB) still reaches the plug-in.
        let padding = String(repeating: "x", count: 200_000)
        let large = try writeConfig(#"{"checks": 5, "padding": "\#(padding)"}"#, in: dir, name: "large.json")
        try Unprivileged.own(dir)
        let fromLarge = try run(
            Unprivileged.pathwatch(["plugins", "--try", library, "--probe-config", "@\(large.path)"]), timeout: 60)
        #expect(fromLarge.status == 0, "\(fromLarge.stdout)\(fromLarge.stderr)")
        #expect(fromLarge.stdout.contains("sample: 5 observations"), "\(fromLarge.stdout)")

        let unreadable = try run(
            Unprivileged.pathwatch(["plugins", "--try", library, "--probe-config", "@\(dir.path)/none.json"]),
            timeout: 60)
        #expect(unreadable.status != 0)
        #expect(
            unreadable.stderr.contains("--probe-config @\(dir.path)/none.json: cannot read the probe's config"),
            "\(unreadable.stderr)")

        // The former spelling still works, and says which name to use.
        let old = try run(
            Unprivileged.pathwatch(["plugins", "--try", library, "--config", #"{"checks": 2}"#]), timeout: 60)
        #expect(old.status == 0, "\(old.stdout)\(old.stderr)")
        #expect(old.stdout.contains("sample: 2 observations"), "\(old.stdout)")
        #expect(old.stderr.contains("--config is deprecated; use --probe-config"), "\(old.stderr)")
    }

    /// `${env:…}` and `${file:…}` in the probe's config are substituted as in the agent's own
    /// configuration, text or @FILE, with its errors; what the trial prints never shows a value.
    @Test func secretReferencesAreSubstitutedAsTheAgentsConfigurationDoes() throws {
        let dir = try folder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let library = dir.appendingPathComponent("libtestprobe.so").path
        let secret = "trial-secret-Zq81-LmN0pQ"
        try "file-secret-Hk27-WxYz9\n".write(
            to: dir.appendingPathComponent("token.txt"), atomically: false, encoding: .utf8)
        let file = try writeConfig(
            #"{"checks": 1, "echo": "env ${env:PW_TRIAL_SECRET} file ${file:token.txt} end"}"#, in: dir,
            name: "probe.json")
        try Unprivileged.own(dir)
        let environment = ["PW_TRIAL_SECRET": secret]
        let fromFile = try run(
            Unprivileged.pathwatch(["plugins", "--try", library, "--probe-config", "@\(file.path)"]),
            environment: environment, timeout: 60)
        #expect(fromFile.status == 0, "\(fromFile.stdout)\(fromFile.stderr)")
        #expect(fromFile.stdout.contains("env [redacted] file [redacted] end"), "\(fromFile.stdout)")
        let inline = try run(
            Unprivileged.pathwatch([
                "plugins", "--try", library, "--probe-config", #"{"checks": 1, "echo": "env ${env:PW_TRIAL_SECRET}"}"#,
            ]), environment: environment, timeout: 60)
        #expect(inline.status == 0, "\(inline.stdout)\(inline.stderr)")
        #expect(inline.stdout.contains("env [redacted]"), "\(inline.stdout)")
        for result in [fromFile, inline] {
            let all = result.stdout + result.stderr
            #expect(!all.contains("${"), "substituted: \(all)")
            #expect(!all.contains(secret) && !all.contains("file-secret-Hk27-WxYz9"), "\(all)")
        }

        // A reference that cannot be resolved is the agent's error, naming the key.
        let unset = try run(
            Unprivileged.pathwatch([
                "plugins", "--try", library, "--probe-config", #"{"echo": "${env:PW_TRIAL_NOT_SET}"}"#,
            ]), timeout: 60)
        #expect(unset.status != 0)
        #expect(
            unset.stderr.contains(
                "--probe-config: config.echo: environment variable PW_TRIAL_NOT_SET is not set (referenced as ${env:PW_TRIAL_NOT_SET})"
            ), "\(unset.stderr)")
    }

    /// 2,000 observations of 4,000-byte messages: 8 MB, which `once` and `run` take.
    @Test func aSampleOfManyMegabytesIsReportedWhole() throws {
        let dir = try folder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let library = dir.appendingPathComponent("libtestprobe.so").path
        let result = try run(
            Unprivileged.pathwatch([
                "plugins", "--try", library, "--probe-config", #"{"checks": 2000, "message_bytes": 4000}"#,
            ]), timeout: 120)
        #expect(result.status == 0, "\(result.stdout.suffix(2_000))\(result.stderr)")
        #expect(result.stdout.contains("sample: 2000 observations"), "\(result.stdout.prefix(2_000))")
        #expect(result.stdout.contains("… and 1000 more, not shown"), "\(result.stdout.suffix(2_000))")
        #expect(result.stdout.contains("destroy: ok"), "\(result.stdout.suffix(2_000))")
        #expect(!result.stdout.contains("exited with status"), "\(result.stdout.suffix(2_000))")
    }

    @Test func aCrashShowsNoBacktraceOfTheTrialChild() throws {
        let dir = try folder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let library = dir.appendingPathComponent("libtestprobe.so").path
        let result = try run(
            Unprivileged.pathwatch(["plugins", "--try", library, "--probe-config", #"{"crash_in": "sample"}"#]),
            timeout: 60)
        #expect(result.status == 1)
        #expect(result.stdout.contains("plug-in crashed: SIGSEGV (signal 11) during sample"), "\(result.stdout)")
        // The fixture prints nothing when it crashes: whatever stderr holds is not the plug-in's.
        #expect(!result.stdout.contains("the plug-in wrote to stderr"), "\(result.stdout)")
    }
}
