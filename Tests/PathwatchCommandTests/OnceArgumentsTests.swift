import ArgumentParser
import Testing
@testable import pathwatch

/// `once` reads its plain command lines without ArgumentParser (`OnceArguments`): whatever it
/// takes, ArgumentParser must read to the same options; whatever else, it must leave to
/// ArgumentParser.
@Suite struct OnceArgumentsTests {
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
    ]

    /// Command lines left to ArgumentParser (help, errors, and forms read in more than one way).
    static let left: [[String]] = [
        [], ["run"], ["status"], ["help", "once"], ["once", "--help"], ["once", "-h"], ["once", "--version"],
        ["once", "--config"], ["once", "--config="], ["once", "--config", "-x"], ["once", "--config", "--format"],
        ["once", "--config", "a", "--config", "b"], ["once", "--format", "yaml"], ["once", "--format", "JSON"],
        ["once", "--log-level", "verbose"], ["once", "--", "--config"], ["once", "x"], ["once", "--conf", "x"],
        ["once", "-c", "x"], ["once", "--format"], ["once", "--generate-completion-script", "bash"],
        ["once", "--config=a", "--config=b"], ["once", "--format=text", "--format", "json"],
    ]

    @Test(arguments: taken) func takenLinesReadAsArgumentParserReadsThem(_ line: [String]) throws {
        let direct = try #require(OnceArguments(["pathwatch"] + line))
        let parsed = try Pathwatch.parseAsRoot(line)
        let once = try #require(parsed as? Pathwatch.Once)
        #expect(direct.options.config == once.options.config)
        #expect(direct.options.logLevel == once.options.logLevel)
        #expect(direct.format == once.format)
    }

    @Test(arguments: left) func otherLinesAreLeftToArgumentParser(_ line: [String]) {
        #expect(OnceArguments(["pathwatch"] + line) == nil)
    }
}
