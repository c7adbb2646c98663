import ArgumentParser
import PathwatchCommands
import Testing

@testable import PathwatchCLI

/// `run`, `once` and `check-config` read their plain command lines without ArgumentParser (`PlainArguments`):
/// whatever that takes, ArgumentParser must read to the same options; whatever else, it must
/// leave to ArgumentParser (in the command-line companion).
@Suite struct PlainArgumentsTests {
    /// Command lines the direct reading takes, after `pathwatch`.
    static let taken: [[String]] = [
        ["once"],
        ["once", "--config", "config.json"],
        ["once", "--config=/etc/pathwatch/config.json"],
        ["once", "--config", "a=b.json"],
        ["once", "--config=a=b.json"],
        ["once", "--config", "once"],
        ["once", "--config", "with space.json", "--format", "text"],
        ["once", "--format", "nagios", "--config", "c.json"],
        ["once", "--format=json"],
        ["once", "--log-level", "debug"],
        ["once", "--log-level=error", "--format=text", "--config=x"],
        ["once", "--config", "", "--format", "nagios"],
        ["once", "--config=-dash.json"],
    ]

    /// `run` command lines the direct reading takes.
    static let takenRun: [[String]] = [
        ["run"],
        ["run", "--config", "/etc/pathwatch/config.json"],
        ["run", "--config=config.json", "--log-level", "warning"],
        ["run", "--log-level=debug", "--config", "run"],
    ]

    /// `check-config` command lines the direct reading takes.
    static let takenCheck: [[String]] = [
        ["check-config"],
        ["check-config", "--config", "/etc/pathwatch/config.json"],
        ["check-config", "--config=config.json", "--log-level", "warning"],
    ]

    /// Command lines left to ArgumentParser (help, errors, and forms read in more than one way).
    static let left: [[String]] = [
        [], ["status"], ["check-config", "--help"], ["check-config", "--format", "json"],
        ["check-config", "-c", "x"], ["plugins"], ["--help"], ["--version"], ["runs"],
        ["run", "--format", "json"], ["run", "--help"], ["run", "--config"], ["run", "x"],
        ["run", "--log-level", "loud"], ["run", "--config", "a", "--config", "b"], ["help", "once"],
        ["once", "--help"], ["once", "-h"], ["once", "--version"],
        ["once", "--config"], ["once", "--config="], ["once", "--config", "-x"], ["once", "--config", "--format"],
        ["once", "--config", "a", "--config", "b"], ["once", "--format", "yaml"], ["once", "--format", "JSON"],
        ["once", "--log-level", "verbose"], ["once", "--", "--config"], ["once", "x"], ["once", "--conf", "x"],
        ["once", "-c", "x"], ["once", "--format"], ["once", "--generate-completion-script", "bash"],
        ["once", "--config=a", "--config=b"], ["once", "--format=text", "--format", "json"],
        ["run", "--config", "a", "--log-level", "debug", "--config", "b"],
    ]

    @Test(arguments: taken) func takenLinesReadAsArgumentParserReadsThem(_ line: [String]) throws {
        let direct = try #require(PlainArguments(["pathwatch"] + line))
        #expect(direct.command == .once)
        let parsed = try Pathwatch.parseAsRoot(line)
        let once = try #require(parsed as? Pathwatch.Once)
        #expect(direct.options.config == once.options.config)
        #expect(direct.options.logLevel == once.options.logLevel)
        #expect(direct.format == once.format)
    }

    @Test(arguments: takenRun) func takenRunLinesReadAsArgumentParserReadsThem(_ line: [String]) throws {
        let direct = try #require(PlainArguments(["pathwatch"] + line))
        #expect(direct.command == .run)
        let parsed = try Pathwatch.parseAsRoot(line)
        let run = try #require(parsed as? Pathwatch.Run)
        #expect(direct.options.config == run.options.config)
        #expect(direct.options.logLevel == run.options.logLevel)
    }

    @Test(arguments: takenCheck) func takenCheckLinesReadAsArgumentParserReadsThem(_ line: [String]) throws {
        let direct = try #require(PlainArguments(["pathwatch"] + line))
        #expect(direct.command == .checkConfig)
        let parsed = try Pathwatch.parseAsRoot(line)
        let check = try #require(parsed as? Pathwatch.CheckConfig)
        #expect(direct.options.config == check.options.config)
        #expect(direct.options.logLevel == check.options.logLevel)
    }

    /// What the companion parsed is handed back to `pathwatch` in a form the direct reading takes,
    /// to the same options: every spelling of `run`, `once` and `check-config` ends in the
    /// agent's executable.
    @Test(arguments: taken + takenRun + takenCheck + left) func parsedLinesAreHandedBackInAPlainFormThatReadsTheSame(
        _ line: [String]
    ) throws {
        guard let parsed = try? Pathwatch.parseAsRoot(line) else { return }
        let plain: PlainArguments
        if let once = parsed as? Pathwatch.Once {
            plain = PlainArguments(command: .once, options: once.options.plain, format: once.format)
        } else if let run = parsed as? Pathwatch.Run {
            plain = PlainArguments(command: .run, options: run.options.plain)
        } else if let check = parsed as? Pathwatch.CheckConfig {
            plain = PlainArguments(command: .checkConfig, options: check.options.plain)
        } else {
            return
        }
        let back = try #require(PlainArguments(["pathwatch"] + plain.arguments), "\(line) → \(plain.arguments)")
        #expect(back.command == plain.command)
        #expect(back.options.config == plain.options.config)
        #expect(back.options.logLevel == plain.options.logLevel)
        #expect(back.format == plain.format)
    }

    @Test(arguments: left) func otherLinesAreLeftToArgumentParser(_ line: [String]) {
        #expect(PlainArguments(["pathwatch"] + line) == nil)
    }
}
